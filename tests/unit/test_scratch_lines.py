"""The scratch directory's shell lines over NFS (changes/nfs_scratch.py), run by a real sh against a folder standing in
for the export (tests/fake_share.py): a share path, a scratch name or a server address runs nothing whatever it
holds, on the way that works and on the one that fails; and the undo removes only a directory that carries the
mark its own step left in it (issue 37)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nfstune.changes.nfs_scratch import nfs_scratch_steps
from nfstune.changes.transaction import undo_steps
from nfstune.errors import NfstuneError
from nfstune.nfs.own_mount import SCRATCH_PREFIX, new_scratch_name
from nfstune.store.journal import JournalEntry
from tests.fake_share import fake_mount_path

HOSTILE = [
    "$(touch pwned)",
    "`touch pwned`",
    '"; touch pwned; echo "',
    "'; touch pwned; echo '",
    "x\ntouch pwned",
]


def _run(line: str, tmp_path: Path, share: Path) -> subprocess.CompletedProcess[str]:
    path = fake_mount_path(tmp_path / "bin", share)
    work = tmp_path / "cwd"  # where a `touch pwned` that ran would leave its file
    work.mkdir(exist_ok=True)
    return subprocess.run(
        ["sh", "-c", line], capture_output=True, text=True, cwd=work, env={"PATH": path}, timeout=60, check=False
    )


def _share(tmp_path: Path) -> Path:
    share = tmp_path / "export"
    share.mkdir()
    return share


@pytest.mark.parametrize("evil", HOSTILE)
def test_a_share_path_in_the_error_text_runs_nothing(tmp_path: Path, evil: str) -> None:
    """Both mkdir attempts fail (the name is taken), so the line says why, naming the share: as text."""
    share = _share(tmp_path)
    (share / ".nfstune-1").mkdir()
    (share / ".nfstune-1" / "kept").write_text("someone's\n")
    (step,) = nfs_scratch_steps("nas", f"/srv/{evil}", ".nfstune-1").do
    done = _run(step.line, tmp_path, share)
    assert done.returncode != 0
    assert not (tmp_path / "cwd" / "pwned").exists(), done.stderr
    assert f"/srv/{evil}" in done.stderr  # the share as it is named, byte for byte
    assert (share / ".nfstune-1" / "kept").read_text() == "someone's\n"


@pytest.mark.parametrize("evil", HOSTILE)
def test_a_hostile_scratch_name_and_server_are_made_and_removed_as_text(tmp_path: Path, evil: str) -> None:
    share = _share(tmp_path)
    name = f".nfstune-{evil.replace(chr(10), ' ')}"
    steps = nfs_scratch_steps(f"nas{evil}", f"/srv/{evil}", name)
    made = _run(steps.do[0].line, tmp_path, share)
    assert made.returncode == 0, made.stderr
    assert [p.name for p in share.iterdir()] == [name]
    (share / name / "f").write_text("a workload's file\n")
    undone = _run(steps.undo[0].line, tmp_path, share)
    assert undone.returncode == 0, undone.stderr
    assert list(share.iterdir()) == []
    assert not (tmp_path / "cwd" / "pwned").exists()


def test_the_undo_keeps_a_directory_of_that_name_it_did_not_make(tmp_path: Path) -> None:
    """The undo after a make that failed, or a crash before the mkdir: what is there is someone else's."""
    share = _share(tmp_path)
    (share / ".nfstune-1" / "sub").mkdir(parents=True)
    (share / ".nfstune-1" / "sub" / "kept").write_text("someone's\n")
    undone = _run(nfs_scratch_steps("nas", "/srv/x", ".nfstune-1").undo[0].line, tmp_path, share)
    assert undone.returncode == 0, undone.stderr
    assert (share / ".nfstune-1" / "sub" / "kept").read_text() == "someone's\n"


def test_an_entry_journaled_before_marks_is_still_removed_at_the_next_start(tmp_path: Path) -> None:
    """A journal left by an earlier nfstune (no token in it): its scratch directory goes as it went then."""
    share = _share(tmp_path)
    (share / ".nfstune-1" / "f").parent.mkdir()
    (share / ".nfstune-1" / "f").write_text("a workload's file\n")
    detail = {"server": "nas", "share": "/srv/x", "name": ".nfstune-1"}
    (step,) = undo_steps(
        "client", JournalEntry(1, "root@client:22", "nfs-scratch", "/srv/x/.nfstune-1", None, None, detail)
    )
    undone = _run(step.line, tmp_path, share)
    assert undone.returncode == 0, undone.stderr
    assert list(share.iterdir()) == []


def test_a_journaled_token_that_is_not_one_is_refused_by_entry() -> None:
    detail = {"owner": "x' y"}
    entry = JournalEntry(7, "root@nas:22", "scratch", "/srv/x/.nfstune-1", None, None, detail)
    with pytest.raises(NfstuneError, match=r"journal entry 7: .* is not the token of a scratch directory's mark"):
        undo_steps("server", entry)


def test_each_scratch_name_is_drawn_anew() -> None:
    """Not a clock reading another run, tool or user could have taken first."""
    names = {new_scratch_name() for _ in range(200)}
    assert len(names) == 200
    assert all(n.startswith(SCRATCH_PREFIX) and len(n) >= len(SCRATCH_PREFIX) + 16 for n in names)
