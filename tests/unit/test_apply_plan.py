"""Applying a recommendation for good, the pure part: the exact new bytes of the exports file and fstab, and the
exact diff the admin sees before anything is written."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from nfstune.changes.apply import plan_apply
from nfstune.changes.fstab_check import findmnt_section
from nfstune.errors import ConfigError
from nfstune.nfs.exports_rewrite import exports_edit
from nfstune.nfs.file_edit import unified_diff
from nfstune.nfs.fstab_rewrite import fstab_edit
from nfstune.store import Journal, open_store

EXPORTS = """# NAS exports, hand-edited
/srv/media   192.168.1.0/24(ro,all_squash)  \\
             laptop(rw,async,no_subtree_check)
/srv/backup *(ro)
"""
PROJECTS = """# projects share, managed by hand
/srv/projects 10.0.0.0/24(rw,async,no_subtree_check)   # fast, not safe
"""
RECOMMENDED = "/srv/projects 10.0.0.0/24(rw,sync,no_subtree_check,root_squash)"
FILES = {"/etc/exports": EXPORTS, "/etc/exports.d/projects.exports": PROJECTS}


def test_the_export_is_replaced_in_the_exports_d_file_that_defines_it() -> None:
    edit = exports_edit(FILES, "/srv/projects", RECOMMENDED, host="nas")
    assert edit.path == "/etc/exports.d/projects.exports"
    assert edit.old == PROJECTS.encode()
    assert edit.old_sha256 == hashlib.sha256(PROJECTS.encode()).hexdigest()
    assert edit.new == (
        b"# projects share, managed by hand\n"
        b"/srv/projects 10.0.0.0/24(rw,sync,no_subtree_check,root_squash)   # fast, not safe\n"
    )
    assert edit.diff == (
        "--- a/etc/exports.d/projects.exports\n"
        "+++ b/etc/exports.d/projects.exports\n"
        "@@ -1,2 +1,2 @@\n"
        " # projects share, managed by hand\n"
        "-/srv/projects 10.0.0.0/24(rw,async,no_subtree_check)   # fast, not safe\n"
        "+/srv/projects 10.0.0.0/24(rw,sync,no_subtree_check,root_squash)   # fast, not safe\n"
    )
    assert not edit.noop
    assert edit.summary == "nas: /etc/exports.d/projects.exports: the export of /srv/projects on line 2"


def test_etc_exports_wins_over_exports_d() -> None:
    files = {**FILES, "/etc/exports": EXPORTS + "/srv/projects 10.0.0.5(ro,async)\n"}
    edit = exports_edit(files, "/srv/projects", "/srv/projects 10.0.0.5(ro,sync)")
    assert edit.path == "/etc/exports"
    assert edit.new.decode() == EXPORTS + "/srv/projects 10.0.0.5(ro,sync)\n"
    # the entry in exports.d is not the one exportfs uses: its clients would be new ones here
    with pytest.raises(ConfigError, match=r"10\.0\.0\.0/24 would become a new client.*10\.0\.0\.5 would no longer be"):
        exports_edit(files, "/srv/projects", RECOMMENDED)


def test_comments_other_clients_and_the_continuation_style_are_kept() -> None:
    entry = "/srv/media   192.168.1.0/24(ro,all_squash)  \\\n             laptop(rw,sync,no_subtree_check)"
    edit = exports_edit(FILES, "/srv/media", entry)
    assert edit.path == "/etc/exports"
    assert edit.new.decode() == EXPORTS.replace("laptop(rw,async,", "laptop(rw,sync,")
    assert edit.diff == (
        "--- a/etc/exports\n"
        "+++ b/etc/exports\n"
        "@@ -1,4 +1,4 @@\n"
        " # NAS exports, hand-edited\n"
        " /srv/media   192.168.1.0/24(ro,all_squash)  \\\n"
        "-             laptop(rw,async,no_subtree_check)\n"
        "+             laptop(rw,sync,no_subtree_check)\n"
        " /srv/backup *(ro)\n"
    )


def test_a_new_client_or_a_dropped_one_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"/etc/exports line 2: .*desk would become a new client"):
        exports_edit(FILES, "/srv/media", "/srv/media 192.168.1.0/24(ro,all_squash) laptop(rw) desk(ro)")
    with pytest.raises(ConfigError, match=r"192.168.1.0/24 would no longer be a client"):
        exports_edit(FILES, "/srv/media", "/srv/media laptop(rw,sync,no_subtree_check)")


def test_a_share_exported_nowhere_is_appended_to_etc_exports() -> None:
    edit = exports_edit(FILES, "/srv/new", "/srv/new 10.0.0.0/24(rw,sync,no_subtree_check)", host="nas")
    assert edit.path == "/etc/exports"
    assert edit.new == (EXPORTS + "/srv/new 10.0.0.0/24(rw,sync,no_subtree_check)\n").encode()
    assert "is not exported yet" in edit.summary
    # a file without a final newline gets one before the new line, and the diff says so
    edit = exports_edit({"/etc/exports": "/a *(ro)"}, "/b", "/b *(ro)\n")
    assert edit.new == b"/a *(ro)\n/b *(ro)\n"
    assert edit.diff == (
        "--- a/etc/exports\n+++ b/etc/exports\n@@ -1 +1,2 @@\n"
        "-/a *(ro)\n\\ No newline at end of file\n+/a *(ro)\n+/b *(ro)\n"
    )


def test_a_missing_etc_exports_is_created() -> None:
    edit = exports_edit({}, "/b", "/b *(ro)")
    assert edit.old is None and edit.old_sha256 is None and edit.new == b"/b *(ro)\n"
    assert edit.diff == "--- /dev/null\n+++ b/etc/exports\n@@ -0,0 +1 @@\n+/b *(ro)\n"


def test_nothing_is_appended_after_a_line_where_exportfs_stops_reading() -> None:
    with pytest.raises(ConfigError, match=r"line 1: .*correct that line first"):
        exports_edit({"/etc/exports": "/a host(rw,bogus)\n"}, "/b", "/b *(ro)")


def test_a_line_already_in_force_is_a_no_op() -> None:
    line = "/srv/projects 10.0.0.0/24(rw,async,no_subtree_check)"
    edit = exports_edit(FILES, "/srv/projects", line, host="nas")
    assert edit.noop and edit.diff == "" and edit.old == edit.new
    assert edit.summary == "nas: /etc/exports.d/projects.exports already reads as recommended: nothing to change"


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("/srv/projects 10.0.0.0/24(rw,bogus)", "does not parse"),
        ("/srv/other 10.0.0.0/24(rw,sync)", "exports '/srv/other', not the share '/srv/projects'"),
        ("/srv/projects", "\\* would become a new client"),
        ("/srv/projects 10.0.0.0/24(rw)\n/srv/x *(ro)", "not one export"),
        ("/srv/projects 10.0.0.0/24(rw) # note", "not one export"),
        ("/srv/projects 10.0.0.0/33(rw)", "10.0.0.0/33 would become a new client"),
        ("   ", "is empty"),
    ],
)
def test_bad_exports_lines_are_refused(line: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(")):
        exports_edit(FILES, "/srv/projects", line)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("/srv/new", "names no client"),
        ("/srv/new 10.0.0.0/33(rw)", "Invalid prefix"),
        ("/srv/new *(rw)", "every host write access"),
        ("/srv/new 10.0.0.0/0(ro,no_root_squash)", "every host root access"),
    ],
)
def test_bad_new_exports_are_refused(line: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        exports_edit(FILES, "/srv/new", line)


def test_defaults_count_as_the_clients_options() -> None:
    # "-async" is overridden by the word's own "sync": only that word changes
    edit = exports_edit({"/etc/exports": "/srv/x -async a(rw)\n"}, "/srv/x", "/srv/x -async a(rw,sync)")
    assert edit.new == b"/srv/x -async a(rw,sync)\n"
    # dropping "-no_root_squash" changes what a gets, even if it squashes more: nothing nfstune does not tune changes
    with pytest.raises(ConfigError, match="a: root_squash where it was no_root_squash"):
        exports_edit({"/etc/exports": "/srv/x -no_root_squash a(rw)\n"}, "/srv/x", "/srv/x a(rw,sync)")
    # "-ro" makes the implied ro explicit: rw for it is refused
    with pytest.raises(ConfigError, match="a: rw where it was ro"):
        exports_edit({"/etc/exports": "/srv/x -ro a\n"}, "/srv/x", "/srv/x a(rw)")


def test_bytes_that_are_not_utf8_are_kept() -> None:
    old = b"# caf\xe9\n/srv/x a(rw,async)\n"
    edit = exports_edit({"/etc/exports": old.decode("utf-8", "surrogateescape")}, "/srv/x", "/srv/x a(rw,sync)")
    assert edit.old == old and edit.new == b"# caf\xe9\n/srv/x a(rw,sync)\n"
    assert "# caf\\xe9" in edit.diff


FSTAB = "# /etc/fstab\nUUID=1234  /  ext4  defaults  0 1\nnas:/export/  /data\tnfs  rw,soft  0 0\n"
LINE = "nas:/export /mnt/nas nfs vers=4.2,hard,_netdev,nofail 0 0"


def test_fstab_edits_only_the_version_of_the_entry_of_the_same_share_keeping_its_blanks() -> None:
    edit = fstab_edit(FSTAB, "nas:/export /data nfs rw,soft,vers=3 0 0", host="client")
    assert edit.new.decode() == (
        "# /etc/fstab\nUUID=1234  /  ext4  defaults  0 1\nnas:/export/  /data\tnfs  rw,soft,vers=3  0 0\n"
    )
    assert edit.diff == (
        "--- a/etc/fstab\n+++ b/etc/fstab\n@@ -1,3 +1,3 @@\n # /etc/fstab\n UUID=1234  /  ext4  defaults  0 1\n"
        "-nas:/export/  /data\tnfs  rw,soft  0 0\n+nas:/export/  /data\tnfs  rw,soft,vers=3  0 0\n"
    )
    assert edit.summary == "client: /etc/fstab: nas:/export/ on /data: the options of line 3"


def test_fstab_never_moves_or_strips_the_users_entry() -> None:
    with pytest.raises(
        ConfigError,
        match=r"line 3 already mounts nas:/export/ on /data; .*mount point would move "
        r"from /data to /mnt/nas; rw would be dropped; soft would be dropped; hard would be added",
    ):
        fstab_edit(FSTAB, LINE)


def test_fstab_never_replaces_another_mount_on_the_same_mount_point() -> None:
    text = "other:/x /mnt/nas nfs4 ro 0 0\n" + FSTAB.replace("nas:/export/", "nas:/elsewhere")
    with pytest.raises(ConfigError, match=r"line 1 already mounts other:/x \(nfs4\) on /mnt/nas"):
        fstab_edit(text, LINE)


def test_fstab_appends_a_new_mount() -> None:
    edit = fstab_edit("/dev/vda / ext4 rw,noatime 0 0", "nas:/srv/x /mnt/x nfs4 hard\n")
    assert edit.new == b"/dev/vda / ext4 rw,noatime 0 0\nnas:/srv/x /mnt/x nfs4 hard\n"
    assert edit.diff.endswith(
        "-/dev/vda / ext4 rw,noatime 0 0\n\\ No newline at end of file\n"
        "+/dev/vda / ext4 rw,noatime 0 0\n+nas:/srv/x /mnt/x nfs4 hard\n"
    )
    assert fstab_edit(None, LINE).diff == f"--- /dev/null\n+++ b/etc/fstab\n@@ -0,0 +1 @@\n+{LINE}\n"


def test_fstab_no_op() -> None:
    text = "/dev/vda / ext4 rw 0 0\n" + LINE + "\n"
    edit = fstab_edit(text, LINE, host="client")
    assert edit.noop and edit.diff == "" and "nothing to change" in edit.summary


def test_fstab_never_replaces_a_local_filesystem() -> None:
    with pytest.raises(ConfigError, match=r"line 2 already mounts /dev/sdb1 \(ext4\) on /mnt/nas"):
        fstab_edit("/dev/vda / ext4 rw 0 0\n/dev/sdb1 /mnt/nas ext4 defaults 0 2\n", LINE)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("nas:/export /mnt/nas", "mount would skip the new fstab line: it has 2 fields"),
        ("nas:/export /mnt/nas nfs hard # the NAS", "it has '#' where the dump number goes: a comment can only"),
        ("nas:/export /mnt/nas nfs hard 0 0#x", "it has '0#x' where the pass number goes"),
        ("/dev/sdb1 /mnt/nas ext4 defaults 0 0", "type 'ext4', not nfs or nfs4"),
        ("nas:/export /mnt/nas nfs hard x 0", "it has 'x' where the dump number goes"),
        ("export /mnt/nas nfs hard 0 0", "is not server:/path"),
        ("nas:/export mnt/nas nfs hard 0 0", "not an absolute path"),
        ("# nas:/export /mnt/nas nfs hard 0 0", "is a comment"),
        (LINE + "\n" + LINE, "one line"),
    ],
)
def test_bad_fstab_lines_are_refused(line: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        fstab_edit(FSTAB, line)


def test_diff_keeps_carriage_returns_inside_their_lines() -> None:
    diff = unified_diff("/etc/fstab", b"a\r\nb\r\n", b"a\r\nc\r\n")
    assert diff == "--- a/etc/fstab\n+++ b/etc/fstab\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"


FINDMNT = """/
   [ ] target exists
   [W] recommended root FS passno is 1 (current is 0)
/mnt/nas
   [ ] target exists
   [W] your fstab has been modified, but systemd still uses the old version;
       use 'systemctl daemon-reload' to reload

0 parse errors, 0 errors, 2 warnings
"""


def test_findmnt_section_of_one_target() -> None:
    assert findmnt_section(FINDMNT, "/mnt/nas") == [
        "   [ ] target exists",
        "   [W] your fstab has been modified, but systemd still uses the old version;",
        "       use 'systemctl daemon-reload' to reload",
    ]
    assert findmnt_section(FINDMNT, "/mnt/other") is None


def test_committed_journal_entries_are_no_longer_pending(tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    kept = journal.record("root@nas:22", "file", "/etc/exports", original=b"old")
    other = journal.record("root@nas:22", "dir", "/mnt/x")
    journal.mark_committed([kept])
    assert [e.id for e in journal.pending()] == [other]
    journal.mark_committed([])
    state = journal._conn.execute("SELECT state FROM journal WHERE id = ?", (kept,)).fetchone()[0]
    assert state == "committed"  # not 'restored': it was never undone


def test_the_plan_shows_every_file_apply_writes_as_a_step_with_its_undo() -> None:
    """The steps under the diff: each file's dated copy before the file, the exports reloaded after the exports
    file, fstab last; a failure puts fstab back before the exports file (newest first)."""
    plan = plan_apply(
        FILES,
        "UUID=1 / ext4 defaults 0 1\n",
        "/srv/projects",
        RECOMMENDED,
        "nas:/srv/projects /mnt/projects nfs vers=4.2 0 0",
        server=("nas", "root@nas:22"),
        client=("laptop", "me@laptop:22"),
    )
    exports, fstab = "/etc/exports.d/projects.exports", "/etc/fstab"
    written = [(s.host, s.writes) for s in plan.steps.do if s.writes]
    assert written == [
        ("server", f"{exports}.nfstune-<date>.bak"),
        ("server", exports),
        ("client", f"{fstab}.nfstune-<date>.bak"),
        ("client", fstab),
    ]
    lines = [s.line for s in plan.steps.do]
    assert lines.index("exportfs -ra") == [s.writes for s in plan.steps.do].index(exports) + 1
    put_back = [s.writes for s in plan.steps.undo if s.writes]
    assert put_back == [fstab, exports]
    assert "exportfs -ra && exportfs -f" in [s.line for s in plan.steps.undo]
    assert plan.review.startswith(plan.diff) and all(s.text() in plan.review for s in plan.steps.do)
    # an edit that changes nothing writes nothing
    same = plan_apply(
        {"/etc/exports": f"{RECOMMENDED}\n"},
        "nas:/srv/projects /mnt/projects nfs vers=4.2 0 0\n",
        "/srv/projects",
        RECOMMENDED,
        "nas:/srv/projects /mnt/projects nfs vers=4.2 0 0",
        server=("nas", "root@nas:22"),
        client=("laptop", "me@laptop:22"),
    )
    assert same.noop and not [s for s in same.steps.do if s.writes]
