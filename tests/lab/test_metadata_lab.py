"""The metadata workloads on the lab's real NFS, through the engine: files created, stat'ed and deleted a second,
and the time of an `rm -rf` of the small-files tree, under sync and async and over NFS 3 and 4.2."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.bench.sizing import default_sizes
from nfstune.cli.run import report_text
from nfstune.lab import LabConfig
from nfstune.recipes.loader import load_recipe_file
from tests.lab.engine_session import run_session

pytestmark = pytest.mark.lab

RECIPE = """
id = "mini-metadata"
title = "metadata under sync, async and NFS 3"
summary = "A short test recipe."
why = "Tests."
changes_host = "server"
workloads = ["file-create", "file-stat", "file-delete", "tree-delete"]
baseline = "sync"

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "sync"
mount = { vers = "4.2" }
export = { set = ["sync"] }

[[configs]]
label = "async"
mount = { vers = "4.2" }
export = { set = ["async"] }
workloads = ["file-create", "file-delete", "tree-delete"]

[[configs]]
label = "vers=3"
mount = { vers = "3" }
export = { set = ["sync"] }
workloads = ["file-create", "file-stat"]
"""

SNAPSHOT = "sha256sum /etc/exports; exportfs -s; ls -A /export; ls -A /etc/exports.d 2>&1; true"


def test_metadata_rates_under_sync_async_and_nfs3(lab: LabConfig, tmp_path: Path) -> None:
    (tmp_path / "mini-metadata.toml").write_text(RECIPE)
    recipe, errors = load_recipe_file(tmp_path / "mini-metadata.toml")
    assert errors == [] and recipe is not None
    sizes = default_sizes("small")
    ran = run_session(lab, recipe, tmp_path, sizes=sizes, seed=5, snapshot=SNAPSHOT)
    assert ran.after == ran.before and "/mnt/nfstune/" not in ran.client_mounts and ran.journal.pending() == []
    results, sid = ran.results, ran.session_id
    data = results.session(sid)
    assert data["status"] == "completed"
    repeats = {(run["config_label"], run["workload"], r["number"]): r for run in data["runs"] for r in run["repeats"]}
    assert {(label, w) for label, w, _n in repeats} == {
        ("sync", "file-create"),
        ("sync", "file-stat"),
        ("sync", "file-delete"),
        ("sync", "tree-delete"),
        ("async", "file-create"),
        ("async", "file-delete"),
        ("async", "tree-delete"),
        ("vers=3", "file-create"),
        ("vers=3", "file-stat"),
    }
    # every run worked on the whole set of files: fio's filecreate, the shell's cold stats and unlinks, rm -rf
    assert {r["ops"] for r in repeats.values()} == {sizes.small_file_count}
    assert {(w, r["tool"]) for (_l, w, _n), r in repeats.items()} == {
        ("file-create", "fio"),
        ("file-stat", "sh"),
        ("file-delete", "sh"),
        ("tree-delete", "sh"),
    }
    # paired by round: under sync each create and unlink waits for the hdd profile's 8 ms flush, under async not
    for n in (1, 2):
        for workload in ("file-create", "file-delete"):
            assert repeats[("async", workload, n)]["ops_per_s"] > repeats[("sync", workload, n)]["ops_per_s"], n
        assert repeats[("async", "tree-delete", n)]["seconds"] < repeats[("sync", "tree-delete", n)]["seconds"], n
    report = report_text(results, sid)
    assert "file-create" in report and "files/s" in report
