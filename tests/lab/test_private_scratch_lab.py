"""The session's scratch directory is private to the run (issue 42), on the lab behind root_squash and behind
no_root_squash: made on the server (a login there) and over NFS from the client (no login). Seen from the server
and through NFS from the client, it is mode 0700 and belongs to the user the share maps the client's root to;
another user of the client can neither list, create, delete nor replace anything in it; fio lays out its file
and opens it again there (the reopen fs.protected_regular refused in a sticky directory); and the undo leaves
nothing behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.changes.mount import make_scratch
from nfstune.changes.nfs_scratch import make_nfs_scratch
from nfstune.changes.transaction import Transaction
from nfstune.remote import Host
from nfstune.store import Journal, open_store

pytestmark = pytest.mark.lab

SHARE = "/export"
OTHER = "setpriv --reuid=4242 --regid=4242 --clear-groups"  # an unprivileged user of the client, not the share's owner
SQUASHED_TO = {"root_squash": "65534", "no_root_squash": "0"}


@pytest.fixture(params=["root_squash", "no_root_squash"])
def squash(request: pytest.FixtureRequest, nas: Host) -> Iterator[str]:
    """The lab's /export behind `root_squash` or `no_root_squash`, its top folder open to all (1777, as a public
    share is), so that the client's root may make the directory there without a login on the NAS whichever it is.
    The exports file and the folder's owner and mode are put back afterwards."""
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None and b"no_root_squash" in original
    owner, mode = nas.run(["stat", "-c", "%u:%g %a", SHARE]).stdout.split()
    nas.write_file("/etc/exports", original.replace(b"no_root_squash", request.param.encode()), sudo=True)
    try:
        nas.run(f"chmod 1777 {SHARE} && exportfs -ra", sudo=True)
        yield request.param
    finally:
        nas.write_file("/etc/exports", original, sudo=True)
        nas.run(f"chown {owner} {SHARE} && chmod {mode} {SHARE} && exportfs -ra", sudo=True)


def on_client(client: Host, line: str, *, check: bool = True) -> tuple[int, str]:
    """`line` run as root on the client with the export mounted at $m (a mount of the test's own, gone after)."""
    wrapped = (
        f"m=$(mktemp -d) && chmod 755 $m && export m && mount -t nfs -o nosharecache nas:{SHARE} $m || exit 99; "
        f"trap 'umount $m; rmdir $m' EXIT; {line}"
    )
    done = client.run(wrapped, sudo=True, check=False, timeout=600)
    if check:
        assert done.exit_status == 0, done.stdout + done.stderr
    return done.exit_status, done.stdout + done.stderr


def assert_private(nas: Host, client: Host, path: str, uid: str) -> None:
    """`path`: where the workloads write, on the server (in the share)."""
    name = path.removeprefix(f"{SHARE}/")
    # as the server sees it
    on_server = nas.run(["stat", "-c", "%u %a", path], sudo=True).stdout
    print(f"nas: stat {path}: {on_server.strip()}")
    assert on_server.split() == [uid, "700"]
    # as the client sees it, through NFS
    _, seen = on_client(client, f"stat -c '%u %a' $m/{name}")
    print(f"client (through NFS): stat {name}: {seen.strip()}")
    assert seen.split() == [uid, "700"]
    # a file of the workloads' in it; another user of the client may not list, create, delete or replace anything
    on_client(client, f"echo measured > $m/{name}/f")
    on_client(client, f"{OTHER} ls $m")  # that user reaches the share: what fails below fails on the directory
    for attempt in (
        f"ls $m/{name}",
        f"touch $m/{name}/theirs",
        f"rm -f $m/{name}/f",
        f"echo replaced > $m/{name}/f",
        f"mv $m/{name}/f $m/{name}/g",
        f"ln -s /etc/passwd $m/{name}/link",
    ):
        status, out = on_client(client, f"{OTHER} sh -c '{attempt}'", check=False)
        print(f"client, uid 4242: {attempt}: exit {status}: {out.strip().splitlines()[-1:]}")
        assert status != 0, f"another user could: {attempt}\n{out}"
    _, kept = on_client(client, f"cat $m/{name}/f && ls -A $m/{name}")
    assert kept.split()[0] == "measured" and "theirs" not in kept and "link" not in kept
    # fio lays its file out and opens it again (O_CREAT), twice over, as the seq-write and sync-4k workloads do
    fio = f"fio --name=reopen --filename=$m/{name}/seq --size=8M --bs=1M --rw=write --end_fsync=1 --ioengine=psync"
    _, out = on_client(client, f"{fio} && {fio} --sync=dsync --bs=4k --size=256k")
    print("client, root: fio twice:", [line.strip() for line in out.splitlines() if "err=" in line])
    assert "err= 0" in out and "Permission denied" not in out, out


def test_made_on_the_server_it_is_the_squashed_users_alone_and_goes_at_the_end(
    squash: str, nas: Host, client: Host, tmp_path: Path
) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    said: list[str] = []
    tx = Transaction(journal, said.append)
    path = make_scratch(nas, client, tx, "nas", SHARE, ".nfstune-private1")
    assert path == f"{SHARE}/.nfstune-private1"
    uid = SQUASHED_TO[squash]
    assert any(f"{path} is private to the run: uid {uid} (" in line and "mode 0700" in line for line in said), said
    # the probe folder is gone, the mark alone is left of nfstune's own
    left = nas.run(["ls", "-A", path], sudo=True).stdout.split()
    assert len(left) == 1 and left[0].startswith(".nfstune-owner-"), left
    assert_private(nas, client, path, uid)
    print("\n".join(said))
    tx.undo()
    print("nas: ls -A /export after the undo:", nas.run(["ls", "-A", SHARE], sudo=True).stdout.split())
    assert ".nfstune-private1" not in nas.run(["ls", "-A", SHARE], sudo=True).stdout
    assert journal.pending() == []


def test_made_over_nfs_without_a_login_it_is_the_squashed_users_alone_and_goes_at_the_end(
    squash: str, nas: Host, client: Host, tmp_path: Path
) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    said: list[str] = []
    tx = Transaction(journal, said.append)
    path = make_nfs_scratch(client, tx, "nas", SHARE, ".nfstune-private2")
    uid = SQUASHED_TO[squash]
    assert any(f"{path}/files is private to the run: uid {uid} (" in line for line in said), said
    assert nas.run(["stat", "-c", "%u %a", path], sudo=True).stdout.split() == [uid, "700"]
    assert_private(nas, client, f"{path}/files", uid)
    print("\n".join(said))
    tx.undo()
    print("nas: ls -A /export after the undo:", nas.run(["ls", "-A", SHARE], sudo=True).stdout.split())
    assert ".nfstune-private2" not in nas.run(["ls", "-A", SHARE], sudo=True).stdout
    assert journal.pending() == []


@pytest.fixture
def owners_share(nas: Host) -> Iterator[str]:
    """The lab's /export behind root_squash, its top folder uid 1000's (mode 755): the client's root may not write
    there, the folder's owner may. The exports file and the folder's owner and mode are put back afterwards."""
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None and b"no_root_squash" in original
    owner, mode = nas.run(["stat", "-c", "%u:%g %a", SHARE]).stdout.split()
    nas.write_file("/etc/exports", original.replace(b"no_root_squash", b"root_squash"), sudo=True)
    try:
        nas.run(f"chown 1000:1000 {SHARE} && chmod 755 {SHARE} && exportfs -ra", sudo=True)
        yield SHARE
    finally:
        nas.write_file("/etc/exports", original, sudo=True)
        nas.run(f"chown {owner} {SHARE} && chmod {mode} {SHARE} && exportfs -ra", sudo=True)


def test_made_over_nfs_by_the_shares_owner_the_workloads_folder_is_still_private(
    owners_share: str, nas: Host, client: Host, tmp_path: Path
) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    said: list[str] = []
    tx = Transaction(journal, said.append)
    path = make_nfs_scratch(client, tx, "nas", SHARE, ".nfstune-private3")
    assert any(f"the owner of {SHARE} made the scratch directory {path}" in line for line in said), said
    # the owner's, others may pass through it only; the workloads' folder the squashed root's alone
    top = nas.run(["stat", "-c", "%u %a", path], sudo=True).stdout
    print(f"nas: stat {path}: {top.strip()}")
    assert top.split() == ["1000", "711"]
    status, out = on_client(client, f"{OTHER} touch $m/.nfstune-private3/theirs", check=False)
    assert status != 0, out
    assert_private(nas, client, f"{path}/files", "65534")
    print("\n".join(said))
    tx.undo()
    print("nas: ls -A /export after the undo:", nas.run(["ls", "-A", SHARE], sudo=True).stdout.split())
    assert ".nfstune-private3" not in nas.run(["ls", "-A", SHARE], sudo=True).stdout
    assert journal.pending() == []
