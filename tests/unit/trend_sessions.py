"""Sessions of one pair of hosts over weeks, written through the store's own API as `nfstune run` writes them (the
hosts with their probed facts, the session with its facts and its plan, a run per configuration and workload with
the options read back, one warm-up, then the counted rounds), at times a test chooses: what the trend tests read."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from nfstune import paths
from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.recipes.plan_text import plan_json
from nfstune.session.workflow import Facts, plan_for
from nfstune.store import Results
from nfstune.store import results as store_results

PROBES = Path(__file__).parent.parent / "captures" / "probe"
LAB_NAS = parse_probe_output((PROBES / "lab-nas-root.txt").read_text())
LAB_CLIENT = parse_probe_output((PROBES / "lab-client-root.txt").read_text())
# the NAS after an upgrade to Debian 13, as its probe would say
UPGRADED_NAS = dataclasses.replace(
    LAB_NAS,
    os_version_id="13",
    os_pretty_name="Debian GNU/Linux 13 (trixie)",
    kernel="6.12.48+deb13-cloud-amd64",
    nfs_utils_version="2.8.3",
)
NAS_KEY, CLIENT_KEY = "root@127.0.0.1:2222", "root@127.0.0.1:2223"
# as the lab's exportfs -s and /proc/mounts showed them (tests/captures/sessions/first-look-lab-50mbit-hdd.json)
EXPORT = "sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash"
MOUNT = (
    "rw,relatime,vers=4.2,rsize=131072,wsize=131072,namlen=255,hard,nosharecache,proto=tcp,timeo=600,retrans=2,"
    "sec=sys,clientaddr=10.99.0.2,local_lock=none,addr=10.99.0.1"
)
DAY = 86400.0
START = 1_790_000_000.0  # a Tuesday in September 2026


@dataclass(frozen=True)
class Run:
    recipe: str
    label: str
    workload: str
    values: Sequence[float]  # the counted rounds' figures, in the workload's unit
    export: str | None = EXPORT
    negotiated: str | None = MOUNT
    config: dict[str, Any] = field(default_factory=dict)
    # each counted round's record as the engine stores it (bench.figure.repeat_record), where `values` does not say
    # enough (sync-4k's percentiles); the warm-up is then the first round's record
    records: Sequence[dict[str, Any]] | None = None


def first_look(figures: dict[str, Sequence[float]], **options: Any) -> list[Run]:
    """A first-look session's runs: its one configuration on each workload."""
    return [Run("first-look", "defaults", workload, values, **options) for workload, values in figures.items()]


class Clock:
    """The store's clock (store.results reads time.time()), set by the test: sessions days apart."""

    def __init__(self) -> None:
        self.now = START

    def time(self) -> float:
        return self.now


def use_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The store reads `clock` for the rest of the test (every other time.time() is left alone)."""
    clock = Clock()
    monkeypatch.setattr(store_results, "time", SimpleNamespace(time=clock.time))
    return clock


def shipped_recipes() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def store_session(
    results: Results,
    runs: Sequence[Run],
    *,
    nas: HostFacts | None = LAB_NAS,
    client: HostFacts = LAB_CLIENT,
    scale: str = "small",
    share: str = "/export",
    server: tuple[str, str] = (NAS_KEY, "lab nas"),
    status: str = "completed",
) -> int:
    """`nas` None: a session without a login to the NAS (no facts of it). The plan is the recipes' real plan on
    these facts, as the session would have stored it (its sizes follow the scale)."""
    recipes = shipped_recipes()
    chosen = [recipes[r] for r in dict.fromkeys(run.recipe for run in runs)]
    plan = plan_for(None, Facts(nas or LAB_NAS, client), chosen, scale, seed=1, server_login=nas is not None)
    sid = results.start_session(
        server_host=results.upsert_host(server[0], server[1], nas.to_json() if nas else None),
        client_host=results.upsert_host(CLIENT_KEY, "lab client", client.to_json()),
        share=share,
        scale=scale,
        recipes=[r.id for r in chosen],
        server_facts=nas.to_json() if nas else None,
        client_facts=client.to_json(),
        plan=plan_json(plan),
    )
    for run in runs:
        run_id = results.start_run(
            sid, recipe=run.recipe, config_label=run.label, config=run.config, workload=run.workload
        )
        results.set_run_options(run_id, requested=None, negotiated=run.negotiated, export=run.export)
        if run.records is not None:
            for number, record in enumerate([run.records[0], *run.records]):
                results.add_repeat(run_id, number, warmup=number == 0, values=record)
        else:
            for number, value in enumerate([run.values[0] * 3, *run.values]):  # round 0: a warm-up, far off
                results.add_repeat(run_id, number, warmup=number == 0, values=repeat(run.workload, value))
        results.end_run(run_id, "completed")
    results.end_session(sid, status)
    return sid


def repeat(workload: str, value: float) -> dict[str, Any]:
    """A repeat's record whose figure (bench.figure) is `value`, as the tools would have measured it."""
    if workload.startswith("seq"):
        return {"tool": "fio", "bytes": 96 << 20, "seconds": 96 / value, "mb_per_s": value, "raw_output": "{}"}
    if workload == "small-files":
        return {"tool": "tar", "bytes": 20 * 4096, "seconds": value, "ops": 20, "raw_output": "tar"}
    return {"tool": "fio", "bytes": 50 * 4096, "seconds": value * 50 / 1000, "ops": 50, "lat_mean_us": value * 1000}
