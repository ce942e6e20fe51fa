"""Benchmark for issue 41's done-when (c): watched first looks on the practice lab, three before and three after the
lab link is changed to a slower profile, must mark exactly one change point, at the fourth, naming the network; six
unchanged ones must mark none.

Collecting (--collect DIR; the lab must be up and unshaped, `nfstune lab up`): each first look runs as a watch's
service runs it, through the real command line with no terminal (`nfstune run --lab --recipe first-look --scale
small`, standard input from /dev/null), into a store of its own (XDG_DATA_HOME pointing into DIR), so that the real
store is not touched. Three first looks go into store `steady`; that store is copied to `slower`; three more go into
`steady`, unchanged; then the lab link is shaped to the 100mbit profile (tc tbf on both VMs' eth1, as lab-setup sets
it), three go into `slower`, and the link is put back. So both series share their first three sessions; the second
series' last three ran on the slower link. Every block takes the lab's lock (/tmp/nfstune-lab.lock, flock), the
shaped block as a whole, so that nobody else measures on the shaped link.

Analysing (--analyse DIR): the change points the watch finds in each store (results/watch.py), as a table; with
--capture, each store's figures as the watch reads them go to tests/unit/captures/ for the unit tests.

    PYTHONPATH=app .venv/bin/python tools/bench/watch_change_points.py --collect /tmp/watch-bench
    PYTHONPATH=app .venv/bin/python tools/bench/watch_change_points.py --analyse /tmp/watch-bench \
        [--capture] [--out docs/bench/watch.md]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOCK = Path("/tmp/nfstune-lab.lock")
SHAPE = "tc qdisc replace dev eth1 root tbf rate 100mbit burst 32kb latency 100ms"  # as lab-setup's 100mbit
UNSHAPE = "tc qdisc del dev eth1 root"
STORES = ("steady", "slower")


def log(text: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


@contextlib.contextmanager
def lab_lock() -> Iterator[None]:
    """The same lock as `flock /tmp/nfstune-lab.lock` (flock(2) on the file)."""
    with open(LOCK, "a") as handle:
        log("waiting for the lab's lock")
        fcntl.flock(handle, fcntl.LOCK_EX)
        log("have the lab's lock")
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def nfstune(*argv: str, env: dict[str, str] | None = None, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nfstune", *argv],
        capture_output=True,
        text=True,
        env=env or dict(os.environ),
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        check=False,
    )


def watched_first_look(store: Path, number: int) -> None:
    """One first look as the watch's service runs it, into `store` (its XDG_DATA_HOME)."""
    env = dict(os.environ, XDG_DATA_HOME=str(store))
    started = time.monotonic()
    done = nfstune("run", "--lab", "--recipe", "first-look", "--scale", "small", env=env)
    took = time.monotonic() - started
    (store / f"run-{number}.log").write_text(done.stdout + "\n--- stderr ---\n" + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"first look {number} into {store} failed (exit {done.returncode}): {done.stderr[-1500:]}")
    log(f"first look {number} into {store.name}: {took / 60:.1f} min")


def on_both(command: str) -> None:
    for vm in ("nas", "client"):
        done = nfstune("lab", "ssh", vm, command, timeout=60)
        if done.returncode != 0 and "del" not in command:
            raise SystemExit(f"`{command}` on {vm} failed: {done.stdout}{done.stderr}")


def link_in_force() -> str:
    return nfstune("lab", "status", timeout=120).stdout


def collect(folder: Path) -> None:
    steady, slower = (folder / name for name in STORES)
    for store in (steady, slower):
        store.mkdir(parents=True, exist_ok=True)
    with lab_lock():
        for n in (1, 2, 3):
            watched_first_look(steady, n)
    shutil.copytree(steady / "nfstune", slower / "nfstune", dirs_exist_ok=True)  # the three shared sessions
    with lab_lock():
        for n in (4, 5, 6):
            watched_first_look(steady, n)
    with lab_lock():
        on_both(SHAPE)
        try:
            log("link shaped to 100mbit:\n" + link_in_force())
            for n in (4, 5, 6):
                watched_first_look(slower, n)
        finally:
            on_both(UNSHAPE)
            log("link put back:\n" + link_in_force())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collect", type=Path, help="run the twelve watched first looks' nine sessions into DIR")
    parser.add_argument("--analyse", type=Path, help="the change points in DIR's stores, as a table")
    parser.add_argument("--capture", action="store_true", help="with --analyse: write the figures for the tests")
    parser.add_argument("--out", type=Path, help="with --analyse: also write the table to this Markdown file")
    args = parser.parse_args(argv)
    if args.collect:
        collect(args.collect)
    if args.analyse:
        from watch_analysis import analyse  # this folder is on sys.path when a tool runs

        analyse(args.analyse, capture=args.capture, out=args.out)


if __name__ == "__main__":
    main()
