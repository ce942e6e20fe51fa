"""What a reload of the exports changed besides the change itself (changes.export.changed_elsewhere), and the one
verifier of an exports change that the measurement's change, Apply and Undo last Apply share
(changes.export.verify_exports), on tables as `exportfs -s` gives them."""

from __future__ import annotations

import pytest

from nfstune.changes.export import CheckFailed, Expected, Reloaded, changed_elsewhere, rows_changed, verify_exports
from nfstune.nfs.kernel_view import parse_exportfs_s
from nfstune.remote.local import LocalHost
from tests.exportfs_corpus import Capture
from tests.unit.test_exports import corpus_cases

BEFORE = parse_exportfs_s(
    "/export  10.99.0.0/24(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash)\n"
    "/srv/media  *(sync,wdelay,hide,no_subtree_check,sec=sys,ro,secure,root_squash,no_all_squash)\n"
    "/srv/home  10.99.0.2(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash)\n"
)


def test_the_changed_export_may_change_and_nothing_else() -> None:
    after = dict(BEFORE)
    after[("/export", "10.99.0.0/24")] = ("async", *BEFORE[("/export", "10.99.0.0/24")][1:])
    assert changed_elsewhere(BEFORE, after, lambda path, _client: path == "/export") == []
    # the same reload seen by a change of another share: /export moved under it
    assert changed_elsewhere(BEFORE, after, lambda path, _client: path == "/srv/home") == [
        "/export 10.99.0.0/24(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash) "
        "became 10.99.0.0/24(async,wdelay,hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash)"
    ]


def test_another_share_dropped_or_made_writable_is_named() -> None:
    after = {key: opts for key, opts in BEFORE.items() if key[0] != "/srv/home"}
    after[("/srv/media", "*")] = tuple("rw" if o == "ro" else o for o in BEFORE[("/srv/media", "*")])
    found = changed_elsewhere(BEFORE, after, lambda path, _client: path == "/export")
    assert len(found) == 2
    assert found[0].startswith("/srv/media *(") and found[0].endswith(",rw,secure,root_squash,no_all_squash)")
    assert found[1].startswith("/srv/home 10.99.0.2(") and found[1].endswith(" became unexported")


# --- the one verifier of an exports change (the measurement's, Apply's and its Undo's), on recorded exportfs output


def _recorded(case_id: str) -> tuple[bytes, Reloaded]:
    """A corpus case's exports text, and the reload as exportfs 2.6.2 did it (tests/captures/exportfs)."""
    text = next(case.text for case in corpus_cases() if case.id == case_id)
    rc, err, shown, _ = Capture.load().as_run().results[case_id]
    said = tuple(line for line in err.splitlines() if line.strip())
    reloaded = Reloaded(err.strip() if rc else "", () if rc else said, shown, {} if rc else parse_exportfs_s(shown))
    return text.encode(), reloaded


ASYNC, ASYNC_RELOAD = _recorded("hostile:19")  # /export/a client(sync,async)
SYNC, SYNC_RELOAD = _recorded("hostile:20")  # /export/a client(async,sync)


def test_the_rows_expected_of_a_change_are_what_exportfs_listed_for_the_new_text() -> None:
    rows = rows_changed(ASYNC, SYNC)
    assert set(rows) == {"/export/a"}
    listed = {client: opts for (path, client), opts in SYNC_RELOAD.table.items() if path == "/export/a"}
    assert rows["/export/a"] == listed


def test_an_undo_whose_export_did_not_come_back_is_caught() -> None:
    """Apply made /export/a sync; its Undo writes the async text back, exportfs -ra exits 0 but the client's name
    no longer resolves, so nothing is exported (recorded: hostile:57)."""
    _, unresolved = _recorded("hostile:57")
    assert unresolved.refused == "" and unresolved.table == {}
    expected = Expected(rows=rows_changed(SYNC, ASYNC))
    with pytest.raises(CheckFailed) as failed:
        verify_exports(LocalHost(), unresolved, SYNC_RELOAD.table, expected, file="/etc/exports", kernel=False)
    assert failed.value.command == "exportfs -s" and "/export/a" in failed.value.problem
    assert "does not list client" in failed.value.problem
    # the export that did come back, with its original options, passes the same check
    shown = verify_exports(LocalHost(), ASYNC_RELOAD, SYNC_RELOAD.table, expected, file="/etc/exports", kernel=False)
    assert shown == ASYNC_RELOAD.shown


def test_a_refused_file_a_wrong_mode_and_a_dropped_export_still_listed_are_caught() -> None:
    _, refused = _recorded("hostile:5")
    with pytest.raises(CheckFailed, match="exportfs refused /etc/exports") as failed:
        verify_exports(LocalHost(), refused, {}, Expected(), file="/etc/exports", kernel=False)
    assert failed.value.command == "exportfs -ra" and "unknown keyword" in failed.value.output
    # the measurement's change knows only the mode it made: the kernel runs sync, not async
    with pytest.raises(CheckFailed, match=r"exportfs -s shows /export/a client\(sync,.*not async"):
        verify_exports(
            LocalHost(), SYNC_RELOAD, ASYNC_RELOAD.table, Expected(modes={"/export/a": "async"}), file="x", kernel=False
        )
    two, two_reload = _recorded("multiline:23")  # /export/a and /export/b
    dropped = rows_changed(two, two.split(b"\n", 1)[0] + b"\n")
    assert dropped == {"/export/b": {}}
    with pytest.raises(CheckFailed, match="/export/b is still exported"):
        verify_exports(LocalHost(), two_reload, two_reload.table, Expected(rows=dropped), file="x", kernel=False)
    # gone as it should be, it is no change elsewhere; /export/a moving is
    gone = {key: opts for key, opts in two_reload.table.items() if key[0] != "/export/b"}
    shown = "".join(f"{p}  {c}({','.join(o)})\n" for (p, c), o in gone.items())
    verify_exports(
        LocalHost(), Reloaded("", (), shown, gone), two_reload.table, Expected(rows=dropped), file="x", kernel=False
    )
    moved = {**gone, ("/export/a", "client"): ("sync", *gone[("/export/a", "client")][1:])}
    with pytest.raises(CheckFailed, match="also changed an export the change was not meant to touch: /export/a"):
        verify_exports(
            LocalHost(), Reloaded("", (), "", moved), two_reload.table, Expected(rows=dropped), file="x", kernel=False
        )
