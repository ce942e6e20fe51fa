"""Applying a recommendation for good on the lab's real NFS server and client: the recommended lines land in
/etc/exports and /etc/fstab and are verified; a failed check on either host puts both files back byte for byte;
a file changed after the diff was shown is refused; a committed apply survives recover_on_connect; an apply is
undone byte for byte (in code and by `nfstune apply --undo`), and not over a file changed since."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.advice.recommend import Measured, Recommendation, recommend
from nfstune.changes.apply import ApplyFailed, ApplyRefused, apply, prepare
from nfstune.changes.apply_undo import prepare_undo, undo_apply
from nfstune.changes.transaction import recover_on_connect
from nfstune.errors import ConfigError
from nfstune.lab import LabConfig, host
from nfstune.remote import Host
from nfstune.session.workflow import current_export
from nfstune.store import Journal, Results, open_store
from tests.lab.cli import nfstune_in

pytestmark = pytest.mark.lab

MOUNT_POINT = "/mnt/nfstune-apply-test"
NAS_SNAPSHOT = (
    "sha256sum /etc/exports; echo ==; ls -A /etc | grep exports; echo ==; exportfs -s; echo ==; "
    "ls -A /var/lib/nfstune 2>&1; true"
)
CLIENT_SNAPSHOT = "sha256sum /etc/fstab; echo ==; ls -A /etc | grep fstab; echo ==; ls -A /mnt; true"
FAKE_FINDMNT = "/usr/local/sbin/findmnt"  # before /usr/bin in root's PATH
ASYNC_EXPORTS = b"/export 10.99.0.0/24(rw,async,no_subtree_check,no_root_squash)\n"
SYNC_LINE = "/export 10.99.0.0/24(rw,sync,no_subtree_check,no_root_squash)"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "nfstune.sqlite3"


@pytest.fixture
def journal(db: Path) -> Journal:
    return Journal(open_store(db))


@pytest.fixture
def originals(nas: Host, client: Host) -> Iterator[tuple[str, str]]:
    """The hosts' snapshots before the test; whatever the test leaves is put back after it, and checked."""
    before = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    exports, fstab = nas.read_file("/etc/exports"), client.read_file("/etc/fstab")
    assert exports is not None and fstab is not None
    yield before
    if nas.read_file("/etc/exports") != exports:
        nas.write_file("/etc/exports", exports)
    nas.run("rm -f /etc/exports.nfstune-*.bak; exportfs -ra")
    fstab_left = client.read_file("/etc/fstab") != fstab
    if fstab_left:
        client.write_file("/etc/fstab", fstab)
    # systemd's mount units follow the fstab put back only after a reload, several seconds in an emulated VM: only
    # when this fixture put it back (Apply and its undo reload themselves)
    reload = "; systemctl daemon-reload" if fstab_left else ""
    leftovers = f"rm -f {FAKE_FINDMNT} /etc/fstab.nfstune-*.bak; rm -d {MOUNT_POINT}/sub {MOUNT_POINT} 2>/dev/null"
    client.run(f"{leftovers}; true{reload}")
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == before


def recommendation(nas: Host, client: Host, mount_point: str = MOUNT_POINT) -> Recommendation:
    """From the hosts' own files, as the desktop and `nfstune run` make it."""
    current = current_export(nas, "/export", client)
    return recommend(
        share="/export",
        server="nas",
        exports=current.exports,
        fstab=current.fstab,
        mount_point=mount_point,
        measured=Measured(),
    )


def make_async(nas: Host) -> None:
    """The admin's export as nfstune finds it: async (the lab's own is sync); the fixture puts it back."""
    nas.write_file("/etc/exports", ASYNC_EXPORTS)
    nas.run("exportfs -ra")


def test_recommended_lines_are_applied_and_verified(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    make_async(nas)
    rec = recommendation(nas, client)
    assert rec.exports_line == SYNC_LINE  # the admin's no_root_squash is kept: nfstune does not change access
    old_exports, old_fstab = nas.read_file("/etc/exports"), client.read_file("/etc/fstab")
    plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line)
    assert plan.server_edit.diff.endswith(f"+{rec.exports_line}\n")
    assert plan.client_edit.diff.endswith(f"+{rec.fstab_line}\n")
    log: list[str] = []
    result = apply(plan, nas, client, journal, log.append)
    assert nas.run("exportfs -s").stdout == (
        "/export  10.99.0.0/24(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash)\n"
    )
    assert result.exportfs_s == nas.run("exportfs -s").stdout
    assert nas.read_file("/etc/exports") == plan.server_edit.new == f"{rec.exports_line}\n".encode()
    assert client.read_file("/etc/fstab") == plan.client_edit.new == old_fstab + f"{rec.fstab_line}\n".encode()
    # the old files are kept beside the new ones, with the same owner and mode
    assert result.server_backup and result.server_backup.startswith("/etc/exports.nfstune-")
    assert result.client_backup and result.client_backup.startswith("/etc/fstab.nfstune-")
    assert nas.read_file(result.server_backup) == old_exports
    assert client.read_file(result.client_backup) == old_fstab
    stat = "stat -c '%U %G %a' "
    assert nas.run(stat + result.server_backup).stdout == nas.run(stat + "/etc/exports").stdout
    assert client.run(stat + result.client_backup).stdout == client.run(stat + "/etc/fstab").stdout
    assert result.created_dirs == (MOUNT_POINT,)
    assert client.run(["test", "-d", MOUNT_POINT], check=False).exit_status == 0
    assert "0 parse errors, 0 errors" in result.findmnt
    assert not any("systemd still uses the old version" in w for w in result.warnings)  # daemon-reload ran
    assert not any(MOUNT_POINT in line for line in client.run("cat /proc/mounts").stdout.splitlines())
    assert journal.pending() == []


def test_failing_server_check_rolls_back_byte_identical(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    line = "/nfstune-missing 10.99.0.0/24(rw,sync,no_subtree_check,root_squash)"
    plan = prepare(nas, client, "/nfstune-missing", line, f"nas:/nfstune-missing {MOUNT_POINT} nfs hard 0 0")
    with pytest.raises(ApplyFailed) as info:
        apply(plan, nas, client, journal, lambda _m: None)
    assert info.value.host == nas.label and info.value.command == "exportfs -ra"
    assert "Failed to stat /nfstune-missing" in str(info.value)
    assert "Both files were put back as they were" in str(info.value)
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == originals
    assert journal.pending() == []


def test_failing_client_check_rolls_back_both_hosts(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    """findmnt finds an error after the server was changed, the fstab written and the mount point made: all of
    it is undone, the directories nfstune made included."""
    make_async(nas)
    originals = nas.run(NAS_SNAPSHOT).stdout, originals[1]  # the admin's async export is what to come back to
    rec = recommendation(nas, client, f"{MOUNT_POINT}/sub")
    plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line)
    assert not plan.server_edit.noop
    fake = (
        f"#!/bin/sh\necho {MOUNT_POINT}/sub\necho '   [E] a findmnt that finds an error'\n"
        "echo '0 parse errors, 1 error, 0 warnings' >&2\nexit 1\n"
    )
    client.write_file(FAKE_FINDMNT, fake.encode(), mode="755")
    with pytest.raises(ApplyFailed) as info:
        apply(plan, nas, client, journal, lambda _m: None)
    assert info.value.host == client.label and "findmnt --verify" in info.value.command
    assert f"findmnt reports an error for {MOUNT_POINT}/sub" in str(info.value)
    assert "[E] a findmnt that finds an error" in str(info.value)
    client.run(f"rm -f {FAKE_FINDMNT}")
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == originals
    assert journal.pending() == []


def test_a_file_changed_after_the_diff_is_refused(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    make_async(nas)
    originals = nas.run(NAS_SNAPSHOT).stdout, originals[1]  # the admin's async export is what to come back to
    rec = recommendation(nas, client)
    plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line)
    exports = nas.read_file("/etc/exports")
    assert exports is not None
    nas.write_file("/etc/exports", exports + b"# edited by someone else\n")
    changed = nas.run(NAS_SNAPSHOT).stdout
    with pytest.raises(ApplyRefused, match="/etc/exports has changed since the diff was made: nothing was written"):
        apply(plan, nas, client, journal, lambda _m: None)
    assert nas.run(NAS_SNAPSHOT).stdout == changed and client.run(CLIENT_SNAPSHOT).stdout == originals[1]
    nas.write_file("/etc/exports", exports)
    fstab = client.read_file("/etc/fstab")
    assert fstab is not None
    client.write_file("/etc/fstab", fstab + b"# edited by someone else\n")
    with pytest.raises(ApplyRefused, match="/etc/fstab has changed"):
        apply(plan, nas, client, journal, lambda _m: None)
    client.write_file("/etc/fstab", fstab)
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == originals
    assert journal.pending() == []


def test_a_committed_apply_is_not_undone_at_the_next_connect(
    lab: LabConfig, nas: Host, client: Host, journal: Journal, db: Path, originals: tuple[str, str]
) -> None:
    make_async(nas)
    rec = recommendation(nas, client)
    plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line)
    apply(plan, nas, client, journal, lambda _m: None)
    applied = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    # the next start of nfstune: a fresh store connection, fresh logins
    with host(lab, "nas") as nas2, host(lab, "client") as client2:
        assert recover_on_connect([nas2, client2], Journal(open_store(db)), lambda _m: None) == []
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == applied
    assert "(sync," in nas.run("exportfs -s").stdout
    assert rec.fstab_line in client.run("cat /etc/fstab").stdout


def test_the_users_fstab_entry_is_edited_in_place(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    """The client already mounts the share its own way: Apply changes only the measured version on that line,
    keeping its mount point, ro, noexec and x-systemd.automount (the old Apply replaced the line)."""
    fstab = client.read_file("/etc/fstab")
    assert fstab is not None
    own = f"nas:/export/  {MOUNT_POINT}\tnfs  ro,noexec,x-systemd.automount,nfsvers=4.1,_netdev  0  0\n"
    client.write_file("/etc/fstab", fstab + own.encode())
    current = current_export(nas, "/export", client)
    rec = recommend(
        share="/export",
        server="nas",
        exports=current.exports,
        fstab=current.fstab,
        measured=Measured(best_version="4.2", version_reason="4.2 measured faster"),
    )
    assert rec.fstab_line == own.rstrip("\n").replace("nfsvers=4.1", "vers=4.2")
    plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line)
    assert plan.server_edit.noop and plan.mount_point == MOUNT_POINT
    result = apply(plan, nas, client, journal, lambda _m: None)
    assert client.read_file("/etc/fstab") == fstab + own.replace("nfsvers=4.1", "vers=4.2").encode()
    assert "0 parse errors, 0 errors" in result.findmnt
    client.write_file("/etc/fstab", fstab)  # the fixture checks the rest is as it was


def test_an_apply_is_undone_byte_for_byte_and_verified(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    """Undo puts back exactly what Apply found (the admin's async export, the fstab without the new line), reloads
    the exports, drops the backups and the mount point Apply made, and is not offered twice."""
    make_async(nas)
    before = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    rec = recommendation(nas, client)
    apply(prepare(nas, client, "/export", rec.exports_line, rec.fstab_line), nas, client, journal, lambda _m: None)
    assert "(sync," in nas.run("exportfs -s").stdout
    plan = prepare_undo(nas, client, journal)
    assert [f.path for f in plan.files] == ["/etc/exports", "/etc/fstab"]
    assert f"-{SYNC_LINE}\n+{ASYNC_EXPORTS.decode()}" in plan.diff and f"-{rec.fstab_line}\n" in plan.diff
    log: list[str] = []
    result = undo_apply(plan, nas, client, journal, log.append)
    assert result.restored == (f"{nas.label}: /etc/exports", f"{client.label}: /etc/fstab")
    assert result.removed_dirs == (f"{client.label}: {MOUNT_POINT}",) and result.warnings == ()
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == before  # backups gone too
    assert "(async," in nas.run("exportfs -s").stdout  # the kernel runs the restored file
    assert any("exportfs -ra accepts the restored /etc/exports" in line for line in log)
    assert journal.pending() == []
    with pytest.raises(ConfigError, match="nothing to undo"):
        prepare_undo(nas, client, journal)


def test_an_undo_over_a_file_changed_since_the_apply_is_refused(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    make_async(nas)
    rec = recommendation(nas, client)
    result = apply(prepare(nas, client, "/export", rec.exports_line, rec.fstab_line), nas, client, journal, print)
    exports = nas.read_file("/etc/exports")
    assert exports is not None
    nas.write_file("/etc/exports", exports + b"# the admin's own edit after the apply\n")
    changed = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    with pytest.raises(ApplyRefused, match="changed since nfstune applied it") as info:
        prepare_undo(nas, client, journal)
    assert str(result.server_backup) in str(info.value)  # where the old file is, for a restore by hand
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == changed


def test_nfstune_apply_and_apply_undo_from_the_command_line(
    lab: LabConfig, lab_state_home: Path, nas: Host, client: Host, tmp_path: Path, originals: tuple[str, str]
) -> None:
    """A stored session's recommendation applied by `nfstune apply N --lab`, at a mount point the admin chose, then
    undone by `nfstune apply --undo --lab`: without --yes and a terminal nothing is written."""
    make_async(nas)
    before = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    data = tmp_path / "data"
    results = Results(open_store(data / "nfstune" / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    results.end_session(sid, "completed")
    env = os.environ | {"XDG_STATE_HOME": str(lab_state_home), "XDG_DATA_HOME": str(data)}

    nfstune = nfstune_in(env, timeout=300)

    chosen = f"{MOUNT_POINT}/sub"  # the fixture removes it should the test stop half-way
    asked = nfstune("apply", str(sid), "--lab", "--mount-point", chosen)
    assert asked.returncode == 1 and "--yes" in asked.stdout and "Not applied: nothing was changed" in asked.stdout
    assert f"+{SYNC_LINE}" in asked.stdout and f"nas:/export {chosen} nfs" in asked.stdout  # the diff came first
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == before
    done = nfstune("apply", str(sid), "--lab", "--mount-point", chosen, "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Applied and verified" in done.stdout and "(sync," in nas.run("exportfs -s").stdout
    assert f"nas:/export {chosen} nfs" in client.run("cat /etc/fstab").stdout
    undone = nfstune("apply", "--undo", "--lab", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert "Undone and verified" in undone.stdout and f"-{SYNC_LINE}" in undone.stdout
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == before
    again = nfstune("apply", "--undo", "--lab", "--yes")
    assert again.returncode == 2 and "nothing to undo" in again.stderr


def test_a_thread_count_goes_into_nfs_conf_and_its_undo_puts_the_file_back_byte_for_byte(
    nas: Host, client: Host, journal: Journal, originals: tuple[str, str]
) -> None:
    """A many-clients session's thread count: one line added to the [nfsd] section of the NAS's own nfs.conf (the
    rest byte for byte), read back by nfs-utils' own nfsconf, the running count left alone; the undo restores the
    file, and drops its backup."""
    conf = nas.read_file("/etc/nfs.conf")
    assert conf is not None and b"# threads=8" in conf  # Debian's file: the value commented out
    running = nas.run("cat /proc/fs/nfsd/threads").stdout
    try:
        rec = recommendation(nas, client)
        plan = prepare(nas, client, "/export", rec.exports_line, rec.fstab_line, nfsd_threads=64)
        assert plan.threads_edit is not None and plan.threads_edit.path == "/etc/nfs.conf"
        added = [ln for ln in plan.threads_edit.diff.splitlines() if ln.startswith(("+", "-"))]
        assert added == ["--- a/etc/nfs.conf", "+++ b/etc/nfs.conf", "+threads=64"]
        result = apply(plan, nas, client, journal, lambda _m: None)
        assert result.threads_backup is not None and nas.read_file(result.threads_backup) == conf
        assert nas.run("nfsconf --get nfsd threads").stdout.strip() == "64"
        assert nas.run("cat /proc/fs/nfsd/threads").stdout == running  # it takes effect at the next start
        undo = prepare_undo(nas, client, journal)
        assert "/etc/nfs.conf" in [f.path for f in undo.files] and "-threads=64" in undo.diff
        log: list[str] = []
        undo_apply(undo, nas, client, journal, log.append)
        assert nas.read_file("/etc/nfs.conf") == conf
        assert nas.run("nfsconf --get nfsd threads", check=False).exit_status != 0  # unset again
        assert "nfs.conf.nfstune-" not in nas.run("ls -A /etc").stdout
        assert any("nfs-utils reads the thread count of the restored /etc/nfs.conf" in line for line in log)
        assert journal.pending() == []
    finally:
        if nas.read_file("/etc/nfs.conf") != conf:
            nas.write_file("/etc/nfs.conf", conf)
        nas.run("rm -f /etc/nfs.conf.nfstune-*.bak")
