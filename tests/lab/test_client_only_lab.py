"""A NAS nfstune cannot log in to, on the lab: `nfstune run --lab --no-server-login` runs a client-side recipe from
the client alone and leaves both hosts as they were; its report says which figures lack the server's side. And the
scratch directory made over NFS behind root_squash (as the owner of the share's top folder) is removed again."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.changes.nfs_scratch import make_nfs_scratch
from nfstune.changes.transaction import ChangeFailed, Transaction
from nfstune.lab import LabConfig, host
from nfstune.remote import CommandFailed, Host
from nfstune.store import Journal, open_store
from tests.lab.cli import nfstune_in

pytestmark = pytest.mark.lab

# two block sizes from the client, and async, which needs the server: skipped, with where to set it
RECIPE = """
id = "client-only-test"
title = "Block size, and async"
summary = "Two block sizes from the client; async changes the server."
why = "The client-only lab test."
changes_host = "server"
workloads = ["seq-write", "seq-read"]
baseline = "rsize=1M"
warning = "async can lose acknowledged writes on a server crash (exports(5))."

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "rsize=1M"
mount = { vers = "4.2", rsize = 1048576, wsize = 1048576 }

[[configs]]
label = "rsize=32K"
mount = { vers = "4.2", rsize = 32768, wsize = 32768 }

[[configs]]
label = "async"
export = { set = ["async"] }
warning = "async can lose acknowledged writes on a server crash (exports(5))."
"""

NAS_STATE = "sha256sum /etc/exports; exportfs -v 2>&1; ls -A /export; ls -A /var/lib/nfstune 2>&1 || true"
CLIENT_STATE = (
    "grep -v rpc_pipefs /proc/mounts; sha256sum /etc/fstab; ls -A /mnt /tmp /var/tmp 2>&1; pgrep -ax fio || true"
)


def test_a_nas_without_login_runs_a_client_side_recipe_and_says_what_its_figures_lack(
    lab: LabConfig, tmp_path: Path
) -> None:
    with host(lab, "nas") as nas, host(lab, "client") as client:
        before = nas.run(NAS_STATE, sudo=True).stdout, client.run(CLIENT_STATE, sudo=True).stdout
    data = tmp_path / "data"
    (data / "nfstune" / "recipes").mkdir(parents=True)
    (data / "nfstune" / "recipes" / "client-only-test.toml").write_text(RECIPE)
    env = os.environ | {"XDG_STATE_HOME": str(lab.state_dir.parent.parent), "XDG_DATA_HOME": str(data)}

    nfstune = nfstune_in(env, timeout=1500)

    argv = ("run", "--lab", "--no-server-login", "--recipe", "client-only-test", "--scale", "small")
    run = nfstune(*argv, "--html", str(tmp_path / "report.html"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert "probing nas (no login) and lab client" in out, out[:2000]
    assert "info: No login on nas (no login): the client's side alone" in out
    assert "warning (client-only-test)" not in out  # it warns of async, which does not run here
    # the configuration that changes the server is not run, and the admin is told where to set it instead
    skipped = re.search(r"client-only-test async: skipped \(nfstune cannot log in to the server.*", out)
    assert skipped is not None and "Synology DSM: Control Panel > Shared Folder" in skipped.group(0), out[:3000]
    assert "async" not in re.findall(r"client-only-test round \d: (\S+) done", out)
    assert "making the scratch directory /export/.nfstune-" in out and "over NFS" in out
    # the throughput ceilings and the disk's latency need a login on the server: only the round trip is measured
    assert "baselines" not in out and "ceilings: the network round trip (ping)" in out
    assert "network round trip (ping, client → server → client): " in out
    assert "server disk, one 4 KiB synchronous write" not in out
    assert re.search(r"round 2: rsize=32K done", out)
    # the recommendation is the client's fstab line alone, and says why
    assert "Recommended /etc/fstab line (on the client" in out
    assert "Recommended export" not in out
    assert "nfstune could not log in to the server, so its exports were not read" in out

    with host(lab, "nas") as nas, host(lab, "client") as client:
        after = nas.run(NAS_STATE, sudo=True).stdout, client.run(CLIENT_STATE, sudo=True).stdout
    assert after[0] == before[0], "the NAS differs after the session"
    assert after[1] == before[1], "the client differs after the session"

    session = re.search(r"^session (\d+): completed$", out, re.M)
    assert session is not None, out[-2000:]
    report = nfstune("report", session.group(1))
    assert report.returncode == 0, report.stderr
    assert "without the server's side" in report.stdout
    assert "the server's page cache could not be dropped" in report.stdout
    assert "Not measured: 1 configuration that changes the server" in report.stdout
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Without the server's side</h2>" in page and "no network ceiling" in page
    assert "<h3>Export" not in page  # no export recommended: it was not read


@pytest.fixture
def squashed_share(nas: Host) -> Iterator[str]:
    """The lab's /export behind root_squash, its top folder uid 1000's (mode 755): the client's root may not write
    there, its owner may. (Not a subdirectory exported apart: over NFSv4 the parent export's options would apply.)
    The NAS's exports and the folder's owner and mode are put back afterwards."""
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None and b"no_root_squash" in original
    owner = nas.run(["stat", "-c", "%u:%g %a", "/export"]).stdout.split()
    nas.write_file("/etc/exports", original.replace(b"no_root_squash", b"root_squash"), sudo=True)
    try:
        nas.run("chown 1000:1000 /export && chmod 755 /export && exportfs -ra", sudo=True)
        yield "/export"
    finally:
        nas.write_file("/etc/exports", original, sudo=True)
        nas.run(["sh", "-c", f"chown {owner[0]} /export && chmod {owner[1]} /export && exportfs -ra"], sudo=True)


def test_the_scratch_directory_behind_root_squash_is_made_by_the_shares_owner_and_removed(
    squashed_share: str, nas: Host, client: Host, tmp_path: Path
) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    tx = Transaction(journal, lambda line: None)
    path = make_nfs_scratch(client, tx, "nas", squashed_share, ".nfstune-squash1")
    assert path == f"{squashed_share}/.nfstune-squash1"
    # the owner's, closed to others' writes; the workloads' folder in it the squashed root's alone (issue 42)
    assert nas.run(["stat", "-c", "%u %a", path]).stdout.split() == ["1000", "711"]
    assert nas.run(["stat", "-c", "%u %a", f"{path}/files"]).stdout.split() == ["65534", "700"]
    # what the workloads leave: files and folders of the client's root, which the server squashes to nobody
    work = "m=$(mktemp -d); mount -t nfs nas:/export $m && mkdir $m/.nfstune-squash1/files/tree && "
    work += "echo x > $m/.nfstune-squash1/files/tree/f && echo y > $m/.nfstune-squash1/files/g; r=$?; umount $m; "
    work += "rmdir $m; exit $r"
    client.run(work, sudo=True)
    owners = nas.run(f"stat -c %u {path}/files/tree {path}/files/tree/f {path}/files/g").stdout.split()
    assert owners == ["65534"] * 3  # squashed: root's files are nobody's, which root alone could not remove
    assert len(journal.pending()) == 1
    tx.undo()
    assert ".nfstune-squash1" not in nas.run(["ls", "-A", squashed_share]).stdout
    assert journal.pending() == []


def test_a_share_neither_root_nor_its_owner_may_write_is_refused_by_name(
    squashed_share: str, nas: Host, client: Host, tmp_path: Path
) -> None:
    nas.run(["chown", "0:0", squashed_share], sudo=True)  # root's, 755, and root is squashed
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    tx = Transaction(journal, lambda line: None)
    with pytest.raises((CommandFailed, ChangeFailed)) as failed:
        make_nfs_scratch(client, tx, "nas", squashed_share, ".nfstune-squash2")
    assert f"neither root nor the owner of {squashed_share} (uid 0, mode 755) may write in it" in str(failed.value)
    tx.undo()  # nothing was made: the undo finds nothing to remove
    assert ".nfstune-squash2" not in nas.run(["ls", "-A", squashed_share]).stdout
    assert journal.pending() == []
