"""The filesystems recipe's mechanism on the lab's NAS, through the engine: each configuration on a scratch ext4,
xfs or btrfs that nfstune makes in a file on the share's disk and exports alone, and the NAS exactly as it was
afterwards (exports, mounts, loop devices, the share's files)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from nfstune.bench.sizing import default_sizes
from nfstune.bench.workloads import MIB
from nfstune.lab import LabConfig
from nfstune.recipes.loader import load_recipe_file
from tests.lab.engine_session import run_session

pytestmark = pytest.mark.lab

SHIPPED = Path(__file__).parents[2] / "recipes" / "filesystems.toml"
SNAPSHOT = (
    "sha256sum /etc/exports; exportfs -s; ls -A /export; ls -A /etc/exports.d /srv 2>&1; losetup -a; "
    "grep -v -e ' nfsd ' -e rpc_pipefs /proc/mounts | sort; true"
)


def test_each_configuration_runs_on_its_own_scratch_filesystem_and_the_nas_is_left_as_it_was(
    lab: LabConfig, tmp_path: Path
) -> None:
    # the shipped recipe's configurations, in two rounds of one cheap workload
    text = SHIPPED.read_text().replace("min = 3\nmax = 8", "min = 2\nmax = 2\nwarmup = 0")
    text = text.replace(
        'workloads = ["small-files", "sync-4k", "seq-write", "seq-read", "file-create", "file-delete"]',
        'workloads = ["file-create"]',
    )
    (tmp_path / "filesystems.toml").write_text(text)
    recipe, errors = load_recipe_file(tmp_path / "filesystems.toml")
    assert errors == [] and recipe is not None and recipe.workloads == ("file-create",)
    sizes = dataclasses.replace(default_sizes("small"), seq_file_bytes=16 * MIB)
    ran = run_session(lab, recipe, tmp_path, sizes=sizes, seed=2, snapshot=SNAPSHOT)
    assert ran.facts["server_filesystems"] == frozenset({"ext4", "xfs", "btrfs"})  # the lab image has all three
    assert ran.plan.skipped == ()
    assert ran.after == ran.before and "/mnt/nfstune/" not in ran.client_mounts and ran.journal.pending() == []
    results, sid, events = ran.results, ran.session_id, ran.events
    data = results.session(sid)
    assert data["status"] == "completed"
    runs = {run["config_label"]: run for run in data["runs"]}
    assert set(runs) == {"ext4", "xfs", "btrfs"}
    assert all(len(run["repeats"]) == 2 and run["status"] == "completed" for run in runs.values())
    # each visit made its own filesystem, of its type, and exported it alone to the client (sync by default)
    made = [e.message for e in events if "scratch" in e.message and "filesystem in /export/" in e.message]
    assert sorted({fs for fs in ("ext4", "xfs", "btrfs") for m in made if f"scratch {fs} filesystem" in m}) == [
        "btrfs",
        "ext4",
        "xfs",
    ]
    assert len(made) == 6  # 3 configurations x 2 rounds
    assert all(run["export_options"].startswith("sync") for run in runs.values())
