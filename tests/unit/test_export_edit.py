"""Changing one export's options in the admin's own files, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfstune.errors import NfstuneError
from nfstune.nfs.export_edit import change_client_options, edit_client_options, locate, with_options, without_options

EXPORTS = """# NAS exports, hand-edited
/srv/media   192.168.1.0/24(ro,all_squash)  \\
             laptop(rw,sync,no_subtree_check)
/export 10.99.0.0/24(rw,sync,no_subtree_check,no_root_squash)   # the lab's share

/srv/backup *(ro)
"""


def test_only_the_chosen_client_changes() -> None:
    new = change_client_options(EXPORTS, "/export", "10.99.0.0/24", ["async"])
    assert new == EXPORTS.replace(
        "10.99.0.0/24(rw,sync,no_subtree_check,no_root_squash)",
        "10.99.0.0/24(rw,async,no_subtree_check,no_root_squash)",
    )
    back = change_client_options(new, "/export", "10.99.0.0/24", ["sync"])
    assert back == EXPORTS


def test_a_client_on_a_continuation_line() -> None:
    new = change_client_options(EXPORTS, "/srv/media", "laptop", ["no_wdelay"])
    assert "laptop(rw,sync,no_subtree_check,no_wdelay)" in new
    assert new.count("\n") == EXPORTS.count("\n") and "\\\n" in new


def test_with_options_replaces_in_place() -> None:
    assert with_options(["rw", "sync", "wdelay", "sync"], ["async", "no_wdelay"]) == ["rw", "async", "no_wdelay"]
    assert with_options(["rw"], ["async"]) == ["rw", "async"]
    assert with_options(["fsid=1", "rw"], ["fsid=2"]) == ["fsid=2", "rw"]


def test_locate_prefers_etc_exports_then_exports_d_in_name_order() -> None:
    files = {
        "/etc/exports.d/b.exports": "/srv/x host(rw)\n",
        "/etc/exports.d/a.exports": "/srv/x other(ro)\n/srv/y *(ro)\n",
        "/etc/exports": EXPORTS,
    }
    assert locate(files, "/export").file == "/etc/exports"
    x = locate(files, "/srv/x")
    assert (x.file, x.clients) == ("/etc/exports.d/a.exports", ("other",))
    with pytest.raises(NfstuneError, match="no export of /srv/z"):
        locate(files, "/srv/z")


@given(st.sampled_from(["sync", "async", "wdelay", "no_wdelay", "ro", "rw", "insecure", "secure"]))
def test_any_change_leaves_the_other_entries_byte_identical(option: str) -> None:
    new = change_client_options(EXPORTS, "/export", "10.99.0.0/24", [option])
    assert new.splitlines()[:3] == EXPORTS.splitlines()[:3]
    assert new.splitlines()[4:] == EXPORTS.splitlines()[4:]


def test_unset_removes_the_named_options_and_nothing_else() -> None:
    assert without_options(["rw", "no_wdelay", "anonuid=1000", "sync"], ["no_wdelay", "anonuid"]) == ["rw", "sync"]
    text = "# keep\n/export a(rw,no_wdelay,anonuid=1000) b(rw,no_wdelay)  # b too\n/srv x(ro)\n"
    edited = edit_client_options(text, "/export", "a", ["sync"], ["no_wdelay", "anonuid"])
    assert edited == "# keep\n/export a(rw,sync) b(rw,no_wdelay)  # b too\n/srv x(ro)\n"
    assert edit_client_options(text, "/srv", "x", [], ["no_wdelay"]) == text  # nothing to remove: byte-identical
