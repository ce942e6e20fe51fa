"""Benchmark: does the same question, asked again, get the same answer? Runs a recipe (quick-check) several times
on the practice lab, exactly as an admin would (`nfstune run --lab ... --yes`), and prints for every comparison
the verdicts of the runs side by side, how many contradict ("faster" in one run, "slower" in another), how many
configurations expected to measure the same as the baseline came out as an effect, the A/A checks, the time each
run took to its recommendation, and the baseline's sequential figures next to a 1 GiB dd run just before each run.

Prints figures; asserts nothing (it is a benchmark, not a test). Needs the lab up with the hdd profile and a quiet
machine (the lab's CPUs are emulated: anything else running moves its figures):

    .venv/bin/nfstune lab up
    .venv/bin/python tools/bench/reproducibility.py --runs 3 --out docs/bench/reproducibility.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import default_recipe_dirs, load_recipes
from nfstune.results.summary import summarize_session
from nfstune.store import Results, open_store

ROOT = Path(__file__).resolve().parents[2]
NFSTUNE = [str(Path(sys.executable).parent / "nfstune")]  # the venv's own command, as an admin runs it
LOAD_EVERY_S = 15.0
DD_COPIED = re.compile(r"copied, ([\d.]+) s, ")
MOUNT = "/mnt/nfstune-bench-dd"


def dd_reference(size_mib: int) -> tuple[float, float]:
    """A plain dd through an NFS mount of the lab's export: MB/s written (ending in fsync) and read back cold."""
    cfg = LabConfig().as_running()
    with host(cfg, "nas") as nas, host(cfg, "client") as client:
        directory = "/export/.nfstune-bench-dd"
        nas.run(["mkdir", "-p", "-m", "1777", directory], sudo=True)
        client.run(["mkdir", "-p", MOUNT], sudo=True)
        client.run(["mount", "-t", "nfs", "-o", "vers=4.2", "nas:/export", MOUNT], sudo=True, timeout=120)
        path = f"{MOUNT}/.nfstune-bench-dd/big"
        try:
            out = client.run(
                f"dd if=/dev/zero of={path} bs=1M count={size_mib} conv=fsync 2>&1", sudo=True, timeout=3600
            ).stdout
            write = size_mib * 2**20 / float(DD_COPIED.findall(out)[-1]) / 1e6
            for h in (client, nas):
                h.run("sync && echo 3 > /proc/sys/vm/drop_caches", sudo=True)
            out = client.run(f"dd if={path} of=/dev/null bs=1M 2>&1", sudo=True, timeout=3600).stdout
            read = size_mib * 2**20 / float(DD_COPIED.findall(out)[-1]) / 1e6
        finally:
            client.run(["umount", MOUNT], sudo=True, check=False)
            client.run(["rmdir", MOUNT], sudo=True, check=False)
            nas.run(["rm", "-rf", directory], sudo=True)
    return write, read


class LoadWatch:
    """The machine's 1-minute load average, read every LOAD_EVERY_S seconds while a run goes on: how busy the
    machine was that the lab's emulated CPUs shared."""

    def __init__(self) -> None:
        self.samples: list[float] = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> LoadWatch:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def _watch(self) -> None:
        while not self._stop.wait(LOAD_EVERY_S):
            self.samples.append(os.getloadavg()[0])

    def text(self) -> str:
        return (
            f"load {statistics.mean(self.samples):.1f} on average ({min(self.samples):.1f}-{max(self.samples):.1f}, "
            f"{os.cpu_count()} CPUs)"
        )


def run_recipe(recipe: str, scale: str, data_home: Path) -> tuple[float, str, str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "PYTHONPATH": str(ROOT / "app")}
    started = time.monotonic()
    with LoadWatch() as load:
        proc = subprocess.run(
            [*NFSTUNE, "run", "--lab", "--recipe", recipe, "--scale", scale, "--yes"],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-3000:], sep="\n")
        raise SystemExit(f"nfstune run failed (exit {proc.returncode})")
    return seconds, proc.stdout, load.text()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--recipe", default="quick-check")
    parser.add_argument("--scale", default="small")
    parser.add_argument("--dd-mib", type=int, default=1024, help="size of the dd reference run (0: skip it)")
    parser.add_argument("--out", type=Path, help="also write the markdown here")
    parser.add_argument(
        "--sessions-from", type=Path, help="only read the last --runs sessions of this XDG_DATA_HOME (no lab run)"
    )
    args = parser.parse_args(argv)

    lines = [f"# Reproducibility: {args.runs} runs of {args.recipe} on the practice lab", ""]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    lines += [
        f"Run on {datetime.date.today().isoformat()}, commit `{commit.stdout.strip()}`, scale {args.scale}, "
        f"lab profiles: {lab_profiles()}.",
        "",
    ]
    # a dd just before each run: the lab's cold reads vary 9-13 MB/s from one run to the next (the export's disk
    # is an image file on this machine's own disk, read with cache=none), so one dd for three runs compares them
    # with one draw of that spread
    dd: list[tuple[float, float]] = []

    recipes = {r.id: r for r in load_recipes(default_recipe_dirs())[0]}
    home = args.sessions_from or Path(tempfile.mkdtemp(prefix="nfstune-repro-"))
    times: list[float] = []
    loads: list[str] = []
    for number in range(1, 0 if args.sessions_from else args.runs + 1):
        if args.dd_mib:
            dd.append(dd_reference(args.dd_mib))
            print(
                f"run {number}: dd of {args.dd_mib} MiB just before: write {dd[-1][0]:.1f} MB/s, cold read "
                f"{dd[-1][1]:.1f} MB/s",
                flush=True,
            )
        seconds, _, load = run_recipe(args.recipe, args.scale, home)
        times.append(seconds)
        loads.append(load)
        print(f"run {number}: {seconds / 60:.1f} min, {load}", flush=True)
    if args.dd_mib and times:  # and one after the last, so that every run has a dd on each side
        dd.append(dd_reference(args.dd_mib))
        print(f"dd of {args.dd_mib} MiB after the last run: write {dd[-1][0]:.1f} MB/s, cold read {dd[-1][1]:.1f} MB/s")

    results = Results(open_store(home / "nfstune" / "nfstune.sqlite3"))
    sessions = [results.session(s.id) for s in sorted(results.sessions(), key=lambda s: s.id)][-args.runs :]
    if not times:  # read back: the session's own start and end (without the probe and the recommendation)
        times = [float(s["ended_at"] or 0) - float(s["started_at"]) for s in sessions]
    budget = recipes[args.recipe].rounds.budget_s(args.scale)
    within = sum(float(s["ended_at"] or 0) - float(s["started_at"]) <= budget for s in sessions)
    verdicts: dict[tuple[str, str, str], list[str]] = {}
    kinds: dict[tuple[str, str, str], list[str]] = {}
    expected_same: set[tuple[str, str, str]] = set()
    baseline_seq: dict[str, list[float]] = {}
    rounds_done = []
    for session in sessions:
        rounds = set()
        for group in summarize_session(session, recipes):
            for c in group.configs:
                rounds.update(c.rounds)
                if c.label == group.baseline_label and group.workload.startswith("seq") and c.summary:
                    baseline_seq.setdefault(group.workload, []).append(c.summary.median)
                if c.verdict is None:
                    continue
                key = (group.recipe, group.workload, c.label)
                kinds.setdefault(key, []).append(c.verdict.kind)
                ci = c.verdict.ci
                shown = c.verdict.kind if ci is None else f"{c.verdict.kind} ({ci[0]:.2f}-{ci[1]:.2f})"
                verdicts.setdefault(key, []).append(shown)
                if c.same_as_baseline or c.verdict.kind == "unreliable":  # an A/A check
                    expected_same.add(key)
        rounds_done.append(len([r for r in rounds if r > 0]))

    lines += [
        "",
        "Verdicts: speed of the configuration relative to the baseline, geometric mean of the per-round "
        "ratios, with its corrected 95 % CI.",
        "",
    ]
    lines.append("| comparison | " + " | ".join(f"run {i + 1}" for i in range(len(sessions))) + " | agree |")
    lines.append("|---|" + "---|" * len(sessions) + "---|")
    contradictions = 0
    for key, shown in verdicts.items():
        found = set(kinds[key])
        opposite = {"faster", "slower"} <= found
        contradictions += opposite
        agree = "OPPOSITE" if opposite else ("yes" if len(found) == 1 else "differs in settledness")
        name = f"{key[2]} · {key[1]}" + (" (expected the same)" if key in expected_same else "")
        lines.append(f"| {name} | " + " | ".join(shown) + f" | {agree} |")
    same_as_effect = sum(k in ("faster", "slower") for key in expected_same for k in kinds.get(key, []))
    unreliable = sum(k == "unreliable" for key in expected_same for k in kinds.get(key, []))
    aa = [k for key in expected_same for k in kinds.get(key, [])]
    lines += [
        "",
        f"- comparisons with opposite verdicts across the runs: {contradictions} of {len(verdicts)}",
        f"- expected-the-same comparisons reported as an effect: {same_as_effect}; flagged unreliable: {unreliable}",
        f"- A/A checks (all runs): {len(aa)}, of which {aa.count('same')} no difference that matters, "
        f"{aa.count('not settled')} not settled, {unreliable} unreliable",
        "- time to a recommendation: " + ", ".join(f"{t / 60:.1f} min" for t in times),
        f"- the recipe's budget at scale {args.scale}: {budget / 60:.0f} min; runs within it (the session's own "
        f"time, without the probes): {within} of {len(sessions)}",
        *(f"- run {n}: {load}" for n, load in enumerate(loads, 1)),
        "- counted rounds: " + ", ".join(str(r) for r in rounds_done),
    ]
    if dd:
        lines += dd_lines(args.dd_mib, dd, baseline_seq)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    if times:
        print(f"median run time {statistics.median(times) / 60:.1f} min; the sessions are kept in {home}")


def dd_lines(size_mib: int, dd: list[tuple[float, float]], baseline_seq: dict[str, list[float]]) -> list[str]:
    """Each run's baseline against the dd just before it (the issue's criterion) and the dd just after it: the two
    dd runs around one recipe run show how far the lab's own disk moved meanwhile, which is the yardstick for 15 %."""
    lines = [
        f"- a dd of {size_mib} MiB through an NFS mount of the same export before each run and after the last "
        "(write ending in fsync, then a cold read), against the baseline's median of the run between them:"
    ]
    for index, workload in enumerate(("seq-write", "seq-read")):
        medians = baseline_seq.get(workload, [])
        if not medians:
            continue
        lines.append(f"  - {workload}, MB/s:")
        for run, median in enumerate(medians):
            before = dd[run][index]
            after = dd[run + 1][index] if run + 1 < len(dd) else None
            shown = f"    - run {run + 1}: {median:.1f}; dd before {before:.1f} ({percent(median, before)})"
            if after is not None:
                shown += f", dd after {after:.1f} ({percent(median, after)}); dd moved {percent(after, before)}"
            lines.append(shown)
        every = [d[index] for d in dd]
        lines.append(
            f"    - all {len(every)} dd runs: median {statistics.median(every):.1f}, {min(every):.1f}-{max(every):.1f}"
        )
    return lines


def percent(value: float, reference: float) -> str:
    return f"{100 * (value - reference) / reference:+.0f} %"


def lab_profiles() -> str:
    proc = subprocess.run(
        [*NFSTUNE, "lab", "status"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "app")},
    )
    row = next((ln.split() for ln in proc.stdout.splitlines() if ln.startswith("nas ")), [])
    # nas  127.0.0.1:2222  pid 9172  ok  active  hdd  none  6.1.0-...
    return f"disk {row[6]}, link {row[7]}" if len(row) > 7 else "unknown (lab status gave no nas row)"


if __name__ == "__main__":
    main()
