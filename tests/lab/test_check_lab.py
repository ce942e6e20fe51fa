"""`nfstune check N` on the lab, as an admin runs it (issue 41, done-when (a)): a short session measures NFS
versions, its recommendation is applied by `nfstune apply N`, and the check verifies the applied options in force
first, then measures again and says held, or why not. The Apply is undone at the end: the lab is left as found."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.lab import LabConfig
from nfstune.remote import Host
from nfstune.store import Results, open_store
from tests.lab.cli import nfstune_in

pytestmark = pytest.mark.lab

MOUNT_POINT = "/mnt/nfstune-check-test"
NAS_SNAPSHOT = "sha256sum /etc/exports; echo ==; ls -A /etc | grep exports; echo ==; exportfs -s; true"
CLIENT_SNAPSHOT = (
    "sha256sum /etc/fstab; echo ==; ls -A /etc | grep fstab; echo ==; ls -A /mnt; grep nfs /proc/mounts; true"
)
# a short recipe of the user's own (the data folder's recipes), so that the whole test fits in about 8 minutes:
# NFS 3 against a 4.2 baseline that reads in 4 KiB requests. v3 at the size the server grants (128 KiB on the lab)
# reads far faster, so the session has a gain to check, and the recommendation (which sets only the version) is
# applied with it: a real gain on the lab, though the version is not its cause
SHORT = """
id = "versions-short"
title = "NFS 3 against 4.2 with small reads, short"
summary = "NFS 3 and 4.2 (4 KiB reads) on seq-read, in three rounds."
why = "A short session for the check's lab test."
changes_host = "client"
workloads = ["seq-read"]
baseline = "vers=4.2"

[rounds]
min = 3
max = 3

[[configs]]
label = "vers=3"
mount = { vers = "3" }

[[configs]]
label = "vers=4.2"
mount = { vers = "4.2", rsize = 4096 }
"""


@pytest.fixture
def as_found(nas: Host, client: Host) -> Iterator[None]:
    """The hosts' files as they were; whatever the test leaves is put back, then checked."""
    before = nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout
    exports, fstab = nas.read_file("/etc/exports"), client.read_file("/etc/fstab")
    assert exports is not None and fstab is not None
    yield
    if nas.read_file("/etc/exports") != exports:
        nas.write_file("/etc/exports", exports)
    nas.run("rm -f /etc/exports.nfstune-*.bak; exportfs -ra")
    if client.read_file("/etc/fstab") != fstab:
        client.write_file("/etc/fstab", fstab)
        client.run("systemctl daemon-reload")
    client.run(f"rm -f /etc/fstab.nfstune-*.bak; rm -d {MOUNT_POINT} 2>/dev/null; true")
    assert (nas.run(NAS_SNAPSHOT).stdout, client.run(CLIENT_SNAPSHOT).stdout) == before


def test_nfstune_check_verifies_the_applied_options_then_says_held_or_why_not(
    lab: LabConfig, lab_state_home: Path, nas: Host, client: Host, tmp_path: Path, as_found: None
) -> None:
    data = tmp_path / "data"
    (data / "nfstune" / "recipes").mkdir(parents=True)
    (data / "nfstune" / "recipes" / "versions-short.toml").write_text(SHORT)
    env = os.environ | {"XDG_STATE_HOME": str(lab_state_home), "XDG_DATA_HOME": str(data)}
    nfstune = nfstune_in(env, timeout=600)

    ran = nfstune("run", "--lab", "--recipe", "versions-short", "--scale", "small")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    results = Results(open_store(data / "nfstune" / "nfstune.sqlite3"))
    (session,) = [s.id for s in results.sessions()]
    applied = nfstune("apply", str(session), "--lab", "--mount-point", MOUNT_POINT, "--yes")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    line = next(ln for ln in client.run("cat /etc/fstab").stdout.splitlines() if MOUNT_POINT in ln)
    vers = re.search(r"vers=([0-9.]+)", line)
    assert vers is not None

    try:
        checked = nfstune("check", str(session), "--lab", "--yes", "--rounds", "3")
        out = checked.stdout
        print(out)  # what the admin read: shown with -rP
        assert checked.returncode in (0, 1), out[-3000:] + checked.stderr[-3000:]
        # the plan first, then the settings verified before anything is measured
        assert out.index("Verify that the applied settings are in force") < out.index("Check of session")
        mount_line = next(ln for ln in out.splitlines() if "verified:" in ln and "/proc/mounts" in ln)
        assert f"vers={vers.group(1)}" in mount_line
        assert f"{MOUNT_POINT} was not mounted" in out  # Apply mounts nothing: the check mounted the line itself
        measured = [ln for ln in out.splitlines() if "measured as session" in ln]
        if measured:  # verified before the first measurement
            assert out.index(mount_line) < out.index("ceilings:")
        head = re.search(r"Check of session \d+'s Apply: ([A-Z ]+)", out)
        assert head is not None, out[-3000:]
        word = head.group(1).strip().lower()
        assert word in ("held", "did not hold", "not settled", "nothing to check"), word
        if word != "held":  # why not: each workload's reason, or that the session measured no gain to check
            said = ("rests on no measured gain", "nothing to check:", "settle it", "did not hold")
            assert any(why in out for why in said), out[-3000:]
        checks = results.checks_of(session)
        if measured:
            assert len(checks) == 1 and checks[0][2] is not None and checks[0][2]["word"] == word
        report = nfstune("report", str(session))
        assert report.returncode == 0 and (not measured or f"): {word}" in report.stdout)
        assert client.run("grep -c nfstune /proc/mounts; true").stdout.strip() == "0"  # its own mounts are gone
    finally:
        undone = nfstune("apply", "--undo", "--lab", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
