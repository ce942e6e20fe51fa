"""A guided hand change on the lab (issue 41, done-when (b)): in client-only mode (no login on the NAS) a recipe of
sync against async runs in blocks, the test playing the admin: when asked, it changes the NAS's export over the
lab's own ssh (/etc/exports edited, `exportfs -ra`), and puts it back. Its verdict, from blocks, has the direction
of the same recipe run interleaved with a login, where nfstune changes the export itself. Both through the
workflow's run_session, as the CLI and the desktop run a session."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune.advice.outcome import session_outcome
from nfstune.lab import LabConfig, host
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.remote import Host
from nfstune.session.admin import AS_IT_WAS, CONTINUE, Event, HandPrompt
from nfstune.session.script import run_session, survey
from nfstune.session.workflow import Pair
from nfstune.statistics.verdict import Verdict
from nfstune.store import Journal, Results, open_store

pytestmark = pytest.mark.lab

# sync-4k on the hdd lab: each write waits for the disk under sync, not under async
RECIPE = """
id = "hand-async"
title = "sync vs async, small"
summary = "sync-4k with the export sync and async."
why = "The hand-change lab test."
changes_host = "server"
workloads = ["sync-4k"]
baseline = "sync"
warning = "async can lose acknowledged writes on a server crash (exports(5))."

[rounds]
min = 3
max = 4
warmup = 1
budget_minutes = { small = 6, normal = 6 }

[[configs]]
label = "sync"
export = { set = ["sync"] }

[[configs]]
label = "async"
export = { set = ["async"] }
warning = "async can lose acknowledged writes on a server crash (exports(5))."
"""
STATE = "sha256sum /etc/exports; exportfs -v 2>&1"


@pytest.fixture
def recipe(tmp_path: Path) -> Recipe:
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "hand-async.toml").write_text(RECIPE)
    (found,) = load_recipes([folder])[0]
    return found


class LabAdmin:
    """The admin at the NAS's console: makes the change asked for, on /etc/exports, and puts it back."""

    def __init__(self, nas: Host, original: bytes) -> None:
        self.nas, self.original = nas, original
        self.asked: list[HandPrompt] = []
        self.in_force: list[str] = []  # the export's options as the kernel ran them after each change

    def ask(self, prompt: HandPrompt) -> str:
        self.asked.append(prompt)
        if prompt.kind == "leave":
            return AS_IT_WAS
        text = self.original
        if prompt.text.startswith("Make this change"):
            assert "set async" in prompt.text
            text = re.sub(rb"\bsync\b", b"async", self.original)
        self.nas.write_file("/etc/exports", text, sudo=True)
        self.in_force.append(self.nas.run("exportfs -ra && exportfs -v", sudo=True).stdout)
        return CONTINUE


def verdict_of(results: Results, sid: int, recipe: Recipe) -> Verdict:
    outcome = session_outcome(results, sid, {recipe.id: recipe})
    (changed,) = [c for g in outcome.groups for c in g.configs if c.label == "async"]
    assert changed.verdict is not None
    return changed.verdict


@pytest.fixture
def lab_nas(lab: LabConfig) -> Iterator[tuple[Host, bytes]]:
    """The NAS, and its /etc/exports, put back afterwards whatever happened."""
    with host(lab, "nas") as nas:
        original = nas.read_file("/etc/exports", sudo=True)
        assert original is not None and re.search(rb"\bsync\b", original), original
        try:
            yield nas, original
        finally:
            nas.write_file("/etc/exports", original, sudo=True)
            nas.run("exportfs -ra", sudo=True)


def test_a_hand_change_of_async_gives_the_direction_of_the_interleaved_recipe(
    lab: LabConfig, lab_nas: tuple[Host, bytes], recipe: Recipe, tmp_path: Path
) -> None:
    nas, original = lab_nas
    before = nas.run(STATE, sudo=True).stdout
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    events: list[Event] = []
    with host(lab, "client") as client:
        # interleaved, with a login: nfstune changes the export itself
        pair = Pair(nas, client, "nas", "/export")
        run = run_session(
            pair,
            survey(pair).facts,
            [recipe],
            scale="small",
            results=results,
            journal=journal,
            emit=events.append,
            cancel=threading.Event(),
            ceilings=False,
            confirm=lambda change: True,
        )
        assert run.status == "completed", run.message
        interleaved = verdict_of(results, run.session_id, recipe)

        # client-only: the admin (this test) changes it by hand when asked
        admin = LabAdmin(nas, original)
        alone = Pair(None, client, "nas", "/export")
        by_hand = run_session(
            alone,
            survey(alone).facts,
            [recipe],
            scale="small",
            results=results,
            journal=journal,
            emit=events.append,
            cancel=threading.Event(),
            ceilings=False,
            ask=admin.ask,
        )
    assert by_hand.status == "completed", by_hand.message
    hand = verdict_of(results, by_hand.session_id, recipe)
    print(f"interleaved: {interleaved.text}\nby hand: {hand.text}")  # the two verdicts: shown with -rP
    switches = [p for p in admin.asked if p.kind == "switch"]
    assert len(switches) == 4 and admin.asked[-1].kind == "leave"
    # each change was in force when its block ran, and put back
    assert [" async" in opts or ",async" in opts or "(async" in opts for opts in admin.in_force] == [True, False] * 2
    assert hand.blocks == 5 and "from 5 blocks changed by hand" in hand.text
    # the same direction as the interleaved recipe's: async faster on the hdd lab's synchronous writes
    assert interleaved.kind == "faster", interleaved.text
    assert hand.kind == interleaved.kind, (hand.text, interleaved.text)
    steps = results.stored_session(by_hand.session_id).hand_steps
    assert [s.answer for s in steps] == [None, CONTINUE, CONTINUE, CONTINUE, CONTINUE, AS_IT_WAS]
    assert nas.run(STATE, sudo=True).stdout == before  # the admin put it back; nfstune changed nothing there
