"""The session's scratch directory is private to the run (issue 42): the steps that make it, run by a real sh against
a folder standing in for the export (tests/fake_share.py), leave it mode 0700 and owned by whoever wrote the client's
probe file (on a real share: the user the share maps the client's root to); the scratch filesystems' top folder is
no longer open to all; and the plan says so. The other users kept out, behind root_squash: tests/root and the lab."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from nfstune.changes.isolated import isolated_steps
from nfstune.changes.mount import scratch_steps
from nfstune.changes.nfs_scratch import nfs_scratch_steps
from nfstune.nfs.own_mount import owner_mark
from nfstune.recipes.plan_text import plan_text
from tests.fake_share import fake_mount_path
from tests.unit.test_plan_is_what_runs import plan_of


def _sh(line: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", line], capture_output=True, text=True, env={"PATH": path}, timeout=60, check=False
    )


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_made_on_the_server_it_is_0700_and_the_probe_writers(tmp_path: Path) -> None:
    export = tmp_path / "export"
    export.mkdir()
    path = fake_mount_path(tmp_path / "bin", export)
    make, write, hand_over = scratch_steps("nas", str(export), ".nfstune-1", "tok", "p1").do
    assert [s.host for s in (make, write, hand_over)] == ["server", "client", "server"]
    scratch = export / ".nfstune-1"

    assert _sh(make.line, path).returncode == 0
    # while the client writes its probe: others may pass through, not list; the probe folder is open to all
    assert _mode(scratch) == 0o711 and _mode(scratch / ".nfstune-probe-p1") == 0o777
    assert (scratch / owner_mark("tok")).is_dir()
    assert _sh(write.line, path).returncode == 0
    done = _sh(hand_over.line, path)
    assert done.returncode == 0, done.stderr

    assert _mode(scratch) == 0o700
    assert (scratch.stat().st_uid, scratch.stat().st_gid) == (os.getuid(), os.getgid())  # the probe file's owner
    assert sorted(p.name for p in scratch.iterdir()) == [owner_mark("tok")]  # the probe folder gone
    uid, _user, mode = done.stdout.split()
    assert (uid, mode) == (str(os.getuid()), "700")


def test_a_probe_file_someone_put_there_first_stops_the_hand_over(tmp_path: Path) -> None:
    """The client's probe is an exclusive create: a file already there is not taken for the client's."""
    export = tmp_path / "export"
    export.mkdir()
    path = fake_mount_path(tmp_path / "bin", export)
    make, write, _ = scratch_steps("nas", str(export), ".nfstune-1", "tok", "p1").do
    assert _sh(make.line, path).returncode == 0
    (export / ".nfstune-1" / ".nfstune-probe-p1" / "owner").write_text("planted\n")
    assert _sh(write.line, path).returncode != 0


def test_a_link_in_place_of_the_probe_file_is_not_taken_for_its_owner(tmp_path: Path) -> None:
    """A symbolic link (whoever made it) is not the file the client wrote: the directory is given to no one."""
    export = tmp_path / "export"
    export.mkdir()
    path = fake_mount_path(tmp_path / "bin", export)
    make, _, hand_over = scratch_steps("nas", str(export), ".nfstune-1", "tok", "p1").do
    assert _sh(make.line, path).returncode == 0
    (export / ".nfstune-1" / ".nfstune-probe-p1" / "owner").symlink_to(tmp_path)
    assert _sh(hand_over.line, path).returncode != 0
    assert _mode(export / ".nfstune-1") == 0o711  # not handed over, not opened


def test_made_over_nfs_by_root_it_and_the_workloads_folder_are_0700(tmp_path: Path) -> None:
    export = tmp_path / "export"
    export.mkdir()
    (step,) = nfs_scratch_steps("nas", "/srv/x", ".nfstune-1", "tok").do
    done = _sh(step.line, fake_mount_path(tmp_path / "bin", export))
    assert done.returncode == 0, done.stderr
    scratch = export / ".nfstune-1"
    assert _mode(scratch) == 0o700 and _mode(scratch / "files") == 0o700
    assert sorted(p.name for p in scratch.iterdir()) == sorted([owner_mark("tok"), "files"])
    assert done.stdout.split()[-1] == "700"  # said, for the admin's progress line


def test_a_scratch_filesystems_top_folder_is_not_open_to_all() -> None:
    steps = isolated_steps("/export/.nfstune-isolated-x.img", "/srv/nfstune-isolated-x", "ext4", 64, "rw")
    chmods = [s.argv for s in steps.do if s.argv[:1] == ("chmod",)]
    assert chmods == [("chmod", "0755", "/srv/nfstune-isolated-x")]


def test_the_plan_says_whose_the_scratch_directory_is_and_its_mode(tmp_path: Path) -> None:
    text = plan_text(plan_of(tmp_path, "plan-changes", login=True))
    said = " ".join(text.split())  # the plan's lines joined: the desktop's plan does not wrap them
    assert (
        "The scratch directory is private to the run: mode 0700, owned by the user the share maps the client's" in said
    )
    assert "so no other user of the share can list, delete or replace the files nfstune measures with." in said
    assert "give the scratch directory to that user" in text and "mode 0700: private to the run" in text
    # without a login: the workloads' folder in it, and what the owner of the share's top folder does
    text = plan_text(plan_of(tmp_path, "plan-changes", login=False))
    said = " ".join(text.split())
    assert "The workloads write in .nfstune-00aa/files, private to the run: mode 0700, owned by the user" in said
    assert "closes it to others' writes (0711)" in text
    assert "/mnt/nfstune/00aa/.nfstune-00aa/files/" in text  # where the workloads' files are
