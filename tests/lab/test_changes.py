"""Journaled changes on the lab's real NFS server and client: undone byte-identical, recovered after a SIGKILL,
and the lab-poc's aliasing leak caught by the kernel check."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.changes.export import ExportChange, list_connected_clients
from nfstune.changes.mount import ClientMount
from nfstune.changes.nfsd_threads import read_threads, set_threads
from nfstune.changes.transaction import ChangeFailed, Transaction, recover_on_connect
from nfstune.errors import NfstuneError
from nfstune.lab import LabConfig, host
from nfstune.nfs.export_edit import change_client_options
from nfstune.remote import Host, HostKeyChanged
from nfstune.store import Journal, open_store

pytestmark = pytest.mark.lab

SNAPSHOT = (
    "sha256sum /etc/exports; echo ==; find /etc/exports.d -printf '%p %m %s\\n' 2>&1; "
    "cat /etc/exports.d/* 2>/dev/null; echo ==; exportfs -s; echo ==; ls -A /export; echo ==; "
    "ls -A /var/lib/nfstune 2>&1; true"
)


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(open_store(tmp_path / "nfstune.sqlite3"))


def client_nfs_mounts(client: Host) -> list[str]:
    return [ln for ln in client.run("cat /proc/mounts").stdout.splitlines() if ln.split()[2] in ("nfs", "nfs4")]


def test_async_change_and_mount_are_undone_byte_identical(nas: Host, client: Host, journal: Journal) -> None:
    before = nas.run(SNAPSHOT).stdout
    original = nas.read_file("/etc/exports")
    log: list[str] = []
    tx = Transaction(journal, log.append)
    assert original is not None
    new = change_client_options(original.decode(), "/export", "10.99.0.0/24", ["async"]).encode()
    change = ExportChange(nas, tx, file="/etc/exports", new_text=new, expect={"/export": "async"})
    change.apply()
    assert "async" in nas.run("exportfs -s").stdout
    assert (
        nas.read_file("/var/lib/nfstune/journal/" + nas.run("ls /var/lib/nfstune/journal").stdout.strip()) == original
    )
    mount = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
    negotiated = mount.mount()
    assert "nosharecache" in negotiated and "vers=4.2" in negotiated
    client.run(["touch", f"{mount.scratch}/probe"])
    change.verify_kernel({"/export": "async"})  # the client used it: the kernel really runs it async
    clients = list_connected_clients(nas)
    assert any(c.address.startswith("10.99.0.2:") and c.version == "4.2" for c in clients)
    tx.undo()
    assert nas.run(SNAPSHOT).stdout == before
    assert nas.read_file("/etc/exports") == original
    assert client_nfs_mounts(client) == []
    assert journal.pending() == []


def test_sigkill_after_change_is_recovered_by_a_fresh_process(
    lab: LabConfig, nas: Host, client: Host, tmp_path: Path
) -> None:
    before = nas.run(SNAPSHOT).stdout
    db = str(tmp_path / "crash.sqlite3")
    lab_json = json.dumps(
        {
            "state_dir": str(lab.state_dir),
            "nas_port": lab.nas_port,
            "client_port": lab.client_port,
            "link_port": lab.link_port,
            "disk": lab.disk,
            "link": lab.link,
        }
    )
    child = Path(__file__).with_name("crash_child.py")
    run = subprocess.run([sys.executable, str(child), "apply", db, lab_json], capture_output=True, text=True)
    assert run.returncode == -9, run.stdout + run.stderr  # killed by SIGKILL, before any undo
    ready = json.loads(run.stdout.split("READY ", 1)[1])
    # the crash left the change in force
    assert "async" in nas.run("exportfs -s").stdout
    assert any(ready["mount_point"] in ln for ln in client_nfs_mounts(client))
    assert len(Journal(open_store(Path(db))).pending()) >= 4
    fresh = subprocess.run([sys.executable, str(child), "recover", db, lab_json], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "RECOVERED" in fresh.stdout
    assert nas.run(SNAPSHOT).stdout == before  # /etc/exports, /etc/exports.d, exportfs -s, /export, backups
    assert client_nfs_mounts(client) == []
    assert client.run(["test", "-e", ready["mount_point"]], check=False).exit_status == 1
    assert Journal(open_store(Path(db))).pending() == []


def test_second_export_leak_is_caught_and_undone(nas: Host, client: Host, journal: Journal) -> None:
    """The lab-poc leak: the same filesystem bind-mounted and exported async to a narrower client made the
    user's sync export run async. The kernel check must catch it, and the change must be undone."""
    before = nas.run(SNAPSHOT).stdout
    nas.run("mkdir -p /srv/nfstune-leak && mount --bind /export /srv/nfstune-leak")
    try:
        tx = Transaction(journal, lambda _m: None)
        leak = b"/srv/nfstune-leak 10.99.0.2(rw,async,no_subtree_check,no_root_squash)\n"
        change = ExportChange(
            nas, tx, file="/etc/exports.d/nfstune.exports", new_text=leak, expect={"/srv/nfstune-leak": "async"}
        )
        change.apply()  # exportfs -s alone sees nothing wrong
        mount = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
        mount.mount()
        client.run(["touch", f"{mount.scratch}/x"])
        with pytest.raises(ChangeFailed) as info:
            change.verify_kernel({"/export": "sync"})
        assert "resolve to the export /srv/nfstune-leak" in str(info.value)
        assert "The change was undone" in str(info.value)
        assert client_nfs_mounts(client) == [] and journal.pending() == []
    finally:
        nas.run("umount /srv/nfstune-leak; rmdir /srv/nfstune-leak", check=False)
    assert nas.run(SNAPSHOT).stdout == before
    # and after the undo the user's export resolves to itself again
    tx = Transaction(journal, lambda _m: None)
    mount = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
    mount.mount()
    client.run(["touch", f"{mount.scratch}/y"])
    caches = nas.run("cat /proc/net/rpc/nfsd.fh/content").stdout
    assert "/srv/nfstune-leak" not in caches and "/export" in caches
    tx.undo()


def test_changed_nas_host_key_is_refused(lab: LabConfig, nas: Host) -> None:
    original_key = lab.host_key("nas").read_bytes()
    nas.run("ssh-keygen -q -t ed25519 -N '' -f /root/other_key && cp /root/other_key /etc/ssh/ssh_host_ed25519_key")
    try:
        # sshd reads its host key for every new connection
        with pytest.raises(HostKeyChanged) as info:
            host(lab, "nas").connect()
        assert "HOST KEY CHANGED" in str(info.value)
    finally:
        nas.write_file("/etc/ssh/ssh_host_ed25519_key", original_key)
        nas.run("rm -f /root/other_key /root/other_key.pub")
    with host(lab, "nas") as again:
        assert again.run("hostname").stdout.strip() == "nas"


def test_isolated_mode_runs_async_without_touching_the_user_export(nas: Host, client: Host, journal: Journal) -> None:
    from nfstune.changes.isolated import IsolatedExport

    before = nas.run(SNAPSHOT).stdout
    tx = Transaction(journal, lambda _m: None)
    iso = IsolatedExport(
        nas, tx, share_path="/export", client_spec="10.99.0.0/24", options="rw,async,no_subtree_check", size_mib=32
    )
    iso.apply()
    try:
        mine = ClientMount(client, nas, tx, server_address="nas", export_path=iso.path, options="vers=4.2")
        mine.mount()
        users = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
        users.mount()
        client.run(["touch", f"{mine.scratch}/a", f"{users.scratch}/b"])
        assert iso.change is not None
        iso.change.verify_kernel({"/export": "sync", iso.path: "async"})
    finally:
        tx.undo()
    assert nas.run(SNAPSHOT).stdout == before
    assert nas.run(f"test -e {iso.path} || echo gone").stdout.strip() == "gone"
    assert client_nfs_mounts(client) == [] and journal.pending() == []


def test_readahead_is_set_for_our_mount_only_and_restored(nas: Host, client: Host, journal: Journal) -> None:
    from nfstune.changes.mount import set_readahead

    tx = Transaction(journal, lambda _m: None)
    mount = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
    mount.mount()
    dev = client.run(["mountpoint", "-d", mount.mount_point]).stdout.strip()
    path = f"/sys/class/bdi/{dev}/read_ahead_kb"
    before = set_readahead(client, tx, mount.mount_point, 15360)
    assert before == 128  # the NFS default since Linux 5.4 (nfs-knowledge.md)
    assert client.run(["cat", path]).stdout.strip() == "15360"
    (entry,) = [e for e in journal.pending() if e.kind == "sysfs"]
    tx.undo()
    assert entry.original == b"128" and journal.pending() == []
    assert client_nfs_mounts(client) == []


def test_nfsd_threads_are_changed_for_a_run_and_put_back(nas: Host, journal: Journal) -> None:
    """The many-clients recipe's knob (issue 13): the running count only; nfs.conf and the rest of the server
    stay as they were, and the undo, or the recovery of a later process, writes the old count back."""
    before_files = nas.run(SNAPSHOT + "; sha256sum /etc/nfs.conf; ls -A /etc/nfs.conf.d").stdout
    count = read_threads(nas)
    assert count >= 1
    log: list[str] = []
    tx = Transaction(journal, log.append)
    assert set_threads(nas, tx, count + 4) == count
    assert read_threads(nas) == count + 4 == int(nas.run("cat /proc/fs/nfsd/threads").stdout)
    assert f"{nas.label}: nfsd threads {count} -> {count + 4}" in log
    with pytest.raises(NfstuneError, match="0 would stop the NFS server"):
        set_threads(nas, tx, 0)
    tx.undo(announce=True)
    assert read_threads(nas) == count
    assert f"{nas.label}: undone: /proc/fs/nfsd/threads set back to {count}" in log
    # a process that dies after the change: the next connect's recovery puts the count back
    Transaction(journal, log.append).record(nas, "sysfs", "/proc/fs/nfsd/threads", original=f"{count}\n".encode())
    nas.run(f"echo {count + 2} > /proc/fs/nfsd/threads", sudo=True)
    assert [e.target for e in recover_on_connect([nas], journal, log.append)] == ["/proc/fs/nfsd/threads"]
    assert read_threads(nas) == count
    assert nas.run(SNAPSHOT + "; sha256sum /etc/nfs.conf; ls -A /etc/nfs.conf.d").stdout == before_files
