"""The engine's guard rails on the lab's real NFS (issue 9): an appliance's exports are never written, the admin
confirms a change of the export while another client is connected, a Latin-1 byte in /etc/exports survives a
run byte for byte, `export.unset` reaches the kernel, and `nfstune run` stops at its preflight."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune.changes.export import ApplianceRefused
from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import load_recipe_file
from nfstune.recipes.plan import Plan
from nfstune.remote import Host
from nfstune.session.engine import Declined, Engine, Event
from nfstune.session.server_change import ServerChange
from nfstune.session.workflow import Facts, Pair, make_engine, plan_for, probe_pair
from nfstune.store import Journal, Results, open_store

pytestmark = pytest.mark.lab

RECIPE = """
id = "guard"
title = "async without subtree_check"
summary = "A short test recipe."
why = "Tests."
changes_host = "server"
workloads = ["sync-4k"]
baseline = "plain"

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "plain"
mount = { vers = "4.2" }

[[configs]]
label = "async-unset"
mount = { vers = "4.2" }
export = { set = ["async"], unset = ["subtree_check"] }
"""

SNAPSHOT = "sha256sum /etc/exports; exportfs -s; ls -A /export; ls -A /etc/exports.d 2>&1; true"
TRUENAS_MARKER = "/etc/version"  # TrueNAS CORE's version file (remote/probe_parse.py APPLIANCE_MARKERS)


@pytest.fixture
def hosts(lab: LabConfig) -> Iterator[tuple[Host, Host]]:
    with host(lab, "nas") as nas, host(lab, "client") as client:
        yield nas, client


@pytest.fixture
def server_side(tmp_path: Path) -> Plan:
    """The plan of the recipe's server-side configuration only (as a caller that planned without the facts)."""
    (tmp_path / "guard.toml").write_text(RECIPE)
    recipe, errors = load_recipe_file(tmp_path / "guard.toml")
    assert errors == [] and recipe is not None
    plan = plan_for(None, None, [recipe], "small", share="/export", address="nas")
    (item,) = plan.recipes
    configs = tuple(c for c in item.configs if c.export)
    visits = tuple(v for v in item.visits if v.label in {c.label for c in configs})
    return replace(plan, recipes=(replace(item, configs=configs, visits=visits),))


def engine_for(
    pair: Pair,
    facts: Facts,
    store: Path,
    shown: list[ServerChange],
    answer: bool,
    emit: Callable[[Event], None] = lambda e: None,
) -> Engine:
    conn = open_store(store)

    def confirm(change: ServerChange) -> bool:
        shown.append(change)
        return answer

    return make_engine(
        pair,
        facts,
        scale="small",
        results=Results(conn),
        journal=Journal(conn),
        emit=emit,
        cancel=threading.Event(),
        ceilings=False,
        confirm=confirm,
    )


def session(engine: Engine) -> int:
    return engine.store.results.start_session(
        server_host=None, client_host=None, share="/export", scale="small", recipes=["guard"]
    )


def journal_rows(store: Path) -> int:
    with sqlite3.connect(store) as conn:
        return int(conn.execute("SELECT count(*) FROM journal").fetchone()[0])


def test_an_appliance_is_refused_and_a_latin1_exports_file_survives_a_run(
    hosts: tuple[Host, Host], server_side: Plan, tmp_path: Path
) -> None:
    nas, client = hosts
    pair = Pair(nas, client, "nas", "/export")
    original = nas.read_file("/etc/exports", sudo=True)
    assert original is not None and nas.read_file(TRUENAS_MARKER, sudo=True) is None
    # the lab's line with a subtree_check for the recipe to unset, under a comment in Latin-1
    line = original.replace(b"no_root_squash)", b"no_root_squash,subtree_check)")
    assert line != original
    latin1 = b"# caf\xe9: a Latin-1 comment, as old editors wrote them\n" + line
    try:
        nas.write_file("/etc/exports", latin1, sudo=True)
        nas.run("exportfs -ra", sudo=True)
        nas.write_file(TRUENAS_MARKER, b"TrueNAS-13.0-U6.1 (a lab test)\n", sudo=True)
        facts = probe_pair(pair)
        assert facts.server.appliance == "TrueNAS"
        before = nas.run(SNAPSHOT).stdout
        assert "/export" in before
        # the plan skips the server-side configuration, naming the dataset's Sync setting instead
        skipped = plan_for(pair, facts, [server_side.recipes[0].recipe], "small").skipped
        assert any("async-unset" in s and "'Sync' option" in s for s in skipped)
        # and the engine refuses it before any change even when a caller planned it anyway
        shown: list[ServerChange] = []
        engine = engine_for(pair, facts, tmp_path / "a.sqlite3", shown, True)
        with pytest.raises(ApplianceRefused, match="TrueNAS appliance"):
            engine.run(session(engine), server_side)
        assert nas.run(SNAPSHOT).stdout == before and nas.read_file("/etc/exports", sudo=True) == latin1
        assert journal_rows(tmp_path / "a.sqlite3") == 0 and shown == []

        nas.run(["rm", "-f", TRUENAS_MARKER], sudo=True)
        facts = probe_pair(pair)
        assert facts.server.appliance is None
        engine = engine_for(pair, facts, tmp_path / "b.sqlite3", shown, True)
        sid = session(engine)
        engine.run(sid, server_side)  # today's code: UnicodeEncodeError on the comment's byte
        assert nas.read_file("/etc/exports", sudo=True) == latin1  # restored byte for byte
        assert nas.run(SNAPSHOT).stdout == before and engine.store.journal.pending() == []
        (run,) = engine.store.results.session(sid)["runs"]
        # unset reached the kernel: subtree_check gone (exportfs -s then shows the default, no_subtree_check),
        # async as set, every other option as it was
        kernel = run["export_options"].split(",")
        assert "async" in kernel and "no_root_squash" in kernel and "no_subtree_check" in kernel
    finally:
        nas.run(["rm", "-f", TRUENAS_MARKER], sudo=True)
        nas.write_file("/etc/exports", original, sudo=True)
        nas.run("exportfs -ra", sudo=True)


def test_another_client_is_listed_and_the_admin_decides(
    hosts: tuple[Host, Host], server_side: Plan, tmp_path: Path, lab_state_home: Path
) -> None:
    nas, client = hosts
    pair = Pair(nas, client, "nas", "/export")
    other = "/mnt/other-client"  # a stand-in for another client: a mount of the test's own, not nfstune's
    facts = probe_pair(pair)
    assert facts.client.route is not None
    own_address = facts.client.route.source_address
    before = nas.run(SNAPSHOT).stdout
    client.run(["mkdir", "-p", other], sudo=True)
    try:
        client.run(["mount", "-t", "nfs", "-o", "vers=4.2", "nas:/export", other], sudo=True, timeout=120)
        client.run(["ls", other])
        shown: list[ServerChange] = []
        engine = engine_for(pair, facts, tmp_path / "no.sqlite3", shown, False)
        sid = session(engine)
        with pytest.raises(Declined, match="Nothing was changed"):
            engine.run(sid, server_side)
        (change,) = shown
        assert any(c.host == own_address and c.version == "4.2" for c in change.clients), change.clients
        assert "async-unset" in change.message() and "power cut" in change.message()
        assert nas.run(SNAPSHOT).stdout == before and journal_rows(tmp_path / "no.sqlite3") == 0
        assert engine.store.results.session(sid)["status"] == "cancelled"

        # the CLI without a terminal and without --yes: refused the same way, nothing changed
        env = os.environ | {"XDG_STATE_HOME": str(lab_state_home), "XDG_DATA_HOME": str(tmp_path / "data")}
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "nfstune",
                "run",
                "--lab",
                "--recipe",
                "no-wdelay",
                "--scale",
                "small",
                "--no-ceilings",
            ],
            capture_output=True,
            text=True,
            env=env,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        assert cli.returncode == 2, cli.stdout + cli.stderr
        assert f"{own_address}:" in cli.stdout and "--yes" in cli.stdout and "Nothing was changed" in cli.stderr
        assert nas.run(SNAPSHOT).stdout == before

        engine = engine_for(pair, facts, tmp_path / "yes.sqlite3", shown, True)
        sid = session(engine)
        engine.run(sid, server_side)
        assert len(shown) == 2 and engine.store.results.session(sid)["status"] == "completed"
        assert nas.run(SNAPSHOT).stdout == before and engine.store.journal.pending() == []
    finally:
        client.run(f"umount {other} 2>/dev/null; rmdir {other}", sudo=True, check=False)


def test_nfstune_run_stops_at_preflight_on_a_share_that_is_not_exported(
    lab: LabConfig, lab_state_home: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    env = os.environ | {"XDG_STATE_HOME": str(lab_state_home), "XDG_DATA_HOME": str(data)}
    with host(lab, "nas") as nas:
        nas.run(["mkdir", "/srv/notexported"], sudo=True)  # a real directory: today's code writes into it
        try:
            cli = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "nfstune",
                    "run",
                    "--lab",
                    "--share",
                    "/srv/notexported",
                    "--recipe",
                    "quick-check",
                    "--scale",
                    "small",
                ],
                capture_output=True,
                text=True,
                env=env,
                stdin=subprocess.DEVNULL,
                timeout=600,
            )
            left = nas.run(["ls", "-A", "/srv/notexported"], sudo=True).stdout
        finally:
            nas.run(["rm", "-rf", "--one-file-system", "/srv/notexported"], sudo=True)
    assert cli.returncode == 2, cli.stdout + cli.stderr
    assert "error: /srv/notexported is not exported by" in cli.stdout
    assert "preflight" in cli.stderr and "Nothing was changed" in cli.stderr
    assert left == ""
    stores = list(data.rglob("nfstune.sqlite3"))
    assert stores and all(journal_rows(s) == 0 for s in stores)  # today's code journals its scratch directory


def test_the_lease_of_nfstunes_own_last_unmount_is_no_other_client(
    hosts: tuple[Host, Host], server_side: Plan, tmp_path: Path
) -> None:
    """An NFSv4.0 client keeps its state on the server for a lease after it unmounts (nfs-versions' vers=4.0):
    the next session from the same client, which mounts nothing else, goes on without asking."""
    nas, client = hosts
    pair = Pair(nas, client, "nas", "/export")
    facts = probe_pair(pair)
    assert facts.client.route is not None
    point = "/mnt/nfstune/lease-test"
    client.run(["mkdir", "-p", point], sudo=True)
    try:
        client.run(["mount", "-t", "nfs", "-o", "vers=4.0", "nas:/export", point], sudo=True, timeout=120)
        client.run(["ls", point])
    finally:
        client.run(f"umount {point}; rmdir {point}", sudo=True, check=False)
    listed = nas.run("cat /proc/fs/nfsd/clients/*/info", sudo=True, check=False).stdout
    assert "minor version: 0" in listed  # the lease is still there (what the guard used to stop at)
    shown: list[ServerChange] = []
    log: list[str] = []
    engine = engine_for(pair, facts, tmp_path / "lease.sqlite3", shown, False, lambda e: log.append(e.message))
    engine.run(session(engine), server_side)
    assert shown == []  # not asked: a "no" would have stopped the run
    assert any("the lease an earlier unmount left" in line for line in log)
