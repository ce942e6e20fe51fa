"""What a reload of the exports changed besides the change itself (changes.export.changed_elsewhere): the check the
measurement's export change and Apply share, on tables as `exportfs -s` gives them."""

from __future__ import annotations

from nfstune.changes.export import changed_elsewhere
from nfstune.nfs.kernel_view import parse_exportfs_s

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
