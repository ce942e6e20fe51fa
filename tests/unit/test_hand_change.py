"""A guided hand change (issue 41, item 2): where nfstune cannot change the server, a configuration of the export's
options runs in blocks the admin switches between by hand. The block judgement simulated through the real verdict
code; the plan (shown, or skipped with why when nobody can be asked); and the prompts through the engine's own
HandRounds and VisitExecutor on recording hosts and a real store, the admin played by the test: the figures each
round measures follow what the admin last did to the NAS, not the label."""

from __future__ import annotations

import math
import random
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from nfstune import paths
from nfstune.advice.outcome import session_outcome
from nfstune.cli.run import report_text
from nfstune.recipes import Recipe, load_recipes
from nfstune.recipes.plan import Plan, build_plan
from nfstune.recipes.plan_text import plan_json, plan_text
from nfstune.session.admin import AS_IT_WAS, CONTINUE, STOP, WITH_CHANGE, Admin, HandPrompt
from nfstune.session.hand_rounds import HandRounds
from nfstune.session.load_clients import LoadHost, SessionLoad
from nfstune.session.progress import SessionProgress
from nfstune.session.visit import VisitExecutor
from nfstune.statistics.blocks import Block, block_question
from nfstune.statistics.verdict import judge
from tests.unit.test_plan_is_what_runs import ADDRESS, ADDRESSES, SHARE, SIZES, Hosts
from tests.unit.test_run_events import GivenFigures
from tests.unit.test_run_events import MeasuredRunner as EventsRunner

ABABA = [Block(label, (3 * i + 1, 3 * i + 2, 3 * i + 3)) for i, label in enumerate("ABABA")]


def simulated(rng: random.Random, effect: float) -> dict[str, dict[int, float]]:
    """Rounds of sync-4k-like times (lower is better) in blocks A B A B A: B takes `effect` times as long; each
    block shifted by the switch itself (5 %), each round by its own noise (10 %), and a slow drift over the whole
    session (2 % a block) that the A blocks bracket."""
    figures: dict[str, dict[int, float]] = {"A": {}, "B": {}}
    for index, block in enumerate(ABABA):
        shift = rng.gauss(0, 0.05) + 0.02 * index
        for number in block.rounds:
            base = math.log(4.0) + shift + rng.gauss(0, 0.10)
            figures[block.label][number] = math.exp(base) * (effect if block.label == "B" else 1.0)
    return figures


def verdict_of(figures: dict[str, dict[int, float]], blocks: list[Block] = ABABA) -> Any:
    question = block_question(
        ("r", "sync-4k", "B"), ("A", "B"), figures, blocks, higher_is_better=False, margin_percent=5.0
    )
    return judge([question])[0]


def test_a_real_2x_difference_over_two_switches_each_way_is_found() -> None:
    rng = random.Random(41)
    kinds = [verdict_of(simulated(rng, 0.5)).kind for _ in range(200)]
    assert kinds.count("faster") >= 190, kinds  # B's writes take half as long: B is faster


def test_no_difference_is_not_called_an_effect() -> None:
    rng = random.Random(42)
    kinds = [verdict_of(simulated(rng, 1.0)).kind for _ in range(400)]
    assert kinds.count("faster") + kinds.count("slower") <= 0.07 * 400, kinds  # alpha 5 %, a few in 400 allowed


def test_the_verdict_says_it_came_from_blocks_changed_by_hand() -> None:
    verdict = verdict_of(simulated(random.Random(1), 0.5))
    assert verdict.blocks == 5 and verdict.n == 2  # 3 A blocks, 2 B blocks: the smaller sample
    assert "from 5 blocks changed by hand, not interleaved visits" in verdict.text
    # stopped after A B: one block each is not a comparison
    early = verdict_of(simulated(random.Random(1), 0.5), ABABA[:2])
    assert early.kind == "not settled" and "from 2 blocks changed by hand" in early.text
    assert early.settle == "at least 2 blocks of each"


def test_a_block_is_one_unit_however_many_rounds_it_has() -> None:
    # six rounds of A agreeing with each other and B 3 % apart: rounds as units would settle it; two blocks do not
    figures = {"A": {n: 4.0 + 0.001 * n for n in range(1, 4)}, "B": {n: 4.12 + 0.001 * n for n in range(4, 7)}}
    figures["A"].update({n: 4.0 + 0.001 * n for n in range(7, 10)})
    blocks = ABABA[:3]
    assert verdict_of(figures, blocks).kind == "not settled"


# --- the plan ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def plan_of(recipe: Recipe, *, ask: bool, appliance: str | None = None, login: bool = False) -> Plan:
    return build_plan(
        [recipe],
        {},
        scale="small",
        seed=3,
        sizes=SIZES,
        fio_available=True,
        share=SHARE,
        server_address=ADDRESS,
        scratch_name=".nfstune-00aa",
        appliance=appliance,
        server_login=login,
        ask_admin=ask,
    )


def test_without_a_login_async_runs_as_a_hand_change_shown_in_the_plan(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"], ask=True)
    (item,) = plan.recipes
    hand = item.hand
    assert hand is not None and (hand.as_is, hand.changed) == ("sync", "async")
    labels = hand.labels()
    switches = list(pairwise(labels))
    assert switches.count(("sync", "async")) >= 2 and switches.count(("async", "sync")) >= 2
    # the visits are the blocks' rounds; none of them changes the server (the admin does)
    assert [v.label for v in item.visits if not v.warmup] == [
        label for label in labels for _ in range(hand.rounds_per_block)
    ]
    assert all(step.host != "server" for v in item.visits for step in (*v.setup, *v.undo))
    text = plan_text(plan)
    assert "guided hand change: 5 blocks of 3 rounds, A B A B A" in text
    assert text.count("you are asked: Make this change: on the share's NFS export, set async.") == 2
    assert text.count("you are asked: Put it back: undo that change, so that the export is as it was (sync).") == 2
    assert "Control Panel > Shared Folder" in text  # where: the place the skip named before
    # the NAS's make unknown: a line a vendor, the commonest first, under "where" in the plan too
    head, *vendors = hand.place.splitlines()
    assert head == "in the NAS's own interface, depending on its make:"
    assert [line.split(":")[0] for line in vendors][:2] == ["• Synology DSM", "• QNAP"]
    assert len(vendors) >= 3 and all(line.count("• ") == 1 for line in vendors)
    assert f"      {vendors[0]}\n      {vendors[1]}" in text
    assert not any("sync-vs-async" in s for s in plan.skipped)
    low, high = plan.estimate_s
    assert low == high > 15 * 60  # 15 rounds of six workloads and four changes by hand


def test_a_run_that_cannot_ask_skips_the_hand_change_and_says_why(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"], ask=False)
    assert plan.recipes == ()
    (why, alone) = plan.skipped
    assert why.startswith("sync-vs-async async: skipped (nfstune cannot log in to the server")
    assert why.endswith("no one can be asked to make the change by hand here (no terminal, no desktop)")
    assert "only sync can run here" in alone


def test_on_an_appliance_the_vendors_own_place_is_named(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"], ask=True, appliance="Synology DSM", login=True)
    (item,) = plan.recipes
    assert item.hand is not None
    assert item.hand.place.startswith("in the Synology DSM's own interface (Control Panel > Shared Folder")
    assert "QNAP" not in item.hand.place


def test_with_a_login_nothing_is_changed_by_hand(shipped: dict[str, Recipe]) -> None:
    plan = plan_of(shipped["sync-vs-async"], ask=True, login=True)
    assert [item.hand for item in plan.recipes] == [None]


# --- through the engine ---------------------------------------------------------------------------------------

RECIPE = """id = "hand"
title = "sync vs async, by hand"
summary = "s"
why = "w"
changes_host = "server"
workloads = ["sync-4k"]
baseline = "sync"
[rounds]
min = 2
max = 4
warmup = 1
[[configs]]
label = "sync"
export = { set = ["sync"] }
[[configs]]
label = "async"
export = { set = ["async"] }
"""


class Clock:
    """The session's clock: a run of a workload takes RUN_S, the admin's turn ADMIN_S (a slow admin)."""

    RUN_S, ADMIN_S = 30.0, 3600.0

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Nas:
    """The NAS as the admin leaves it: async or not. The figures follow it, whatever the engine thinks."""

    def __init__(self, answers: dict[int, str] | None = None, leave: str = AS_IT_WAS) -> None:
        self.is_async = False
        self.prompts: list[HandPrompt] = []
        self.answers, self.leave = answers or {}, leave
        self.clock = Clock()

    def ask(self, prompt: HandPrompt) -> str:
        self.prompts.append(prompt)
        self.clock.now += Clock.ADMIN_S
        if prompt.kind == "leave":
            return self.leave
        answer = self.answers.get(prompt.block, CONTINUE)
        if answer == CONTINUE:  # the admin does as asked
            self.is_async = prompt.text.startswith("Make this change")
        return answer


class NasRunner(EventsRunner):
    nas: Nas
    rng = random.Random(5)

    def figure(self, workload: str) -> float:
        self.nas.clock.now += Clock.RUN_S
        return (1.0 if self.nas.is_async else 4.0) * math.exp(self.rng.gauss(0, 0.05))  # ms a write


def run_by_hand(tmp_path: Path, nas: Nas) -> tuple[Plan, Hosts, int]:
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / "hand.toml").write_text(RECIPE)
    (recipe,) = load_recipes([folder])[0]
    plan = plan_of(recipe, ask=True)
    hosts = Hosts(tmp_path, login=False)
    results = hosts.store.results
    admin = Admin(hosts.events.append, ask=nas.ask)
    sid = results.start_session(
        server_host=None, client_host=None, share=SHARE, scale="small", recipes=["hand"], plan=plan_json(plan)
    )
    load = SessionLoad(
        None,
        [LoadHost(hosts.client, ADDRESSES["client"], True)],  # type: ignore[arg-type]
        server_address=ADDRESS,
        share=SHARE,
        cancel=admin.cancel,
        log=admin.log,
    )
    samples = GivenFigures()
    progress = SessionProgress(admin, nas.clock)  # as the engine: the time left from the plan, shared with the rounds
    eta = progress.start(plan, {})
    runner = NasRunner(None, load, samples, results, admin)  # type: ignore[arg-type]
    runner.nas = nas
    visits = VisitExecutor(
        plan,
        hosts.session,
        hosts.store,
        admin,
        appliance=None,
        progress=progress,
        load=load,
        samples=samples,  # type: ignore[arg-type]
        runner=runner,
    )
    HandRounds(visits, results, admin, eta, progress).run(sid, plan.recipes[0], SIZES)
    results.end_session(sid, "completed")
    return plan, hosts, sid


def test_the_admin_is_asked_at_each_switch_and_the_blocks_give_the_verdict(tmp_path: Path) -> None:
    nas = Nas()
    plan, hosts, sid = run_by_hand(tmp_path, nas)
    switches = [p for p in nas.prompts if p.kind == "switch"]
    assert [p.text.split(":")[0] for p in switches] == ["Make this change", "Put it back"] * 2
    assert [p.block for p in switches] == [1, 2, 3, 4]
    assert all("in the NAS's own interface" in p.where for p in switches)
    assert nas.prompts[-1].kind == "leave" and not nas.prompts[-1].changed  # ABABA ends as it was
    assert nas.prompts[-1].text == (
        "The NAS now runs as it was (sync). Choose how to leave it: as it was, or with the change (async) — "
        "nfstune does not change it either way; you do, in the NAS's interface."
    )
    # every planned round measured, each visit after its block's switch
    visits = [(e.data["round"], e.data["config"]) for e in hosts.events if e.kind == "visit"]
    assert visits == [(v.round, v.label) for v in plan.recipes[0].visits]
    verdicts = [e for e in hosts.events if e.kind == "verdicts"]
    assert len(verdicts) == 5 and verdicts[-1].data["stops"]
    (row,) = verdicts[-1].data["rows"]  # type: ignore[misc]
    assert row.kind == "faster" and "from 5 blocks changed by hand" in row.text
    # the stored session judges it the same, by blocks, and the report says what was changed by hand and when
    outcome = session_outcome(hosts.store.results, sid, {"hand": plan.recipes[0].recipe})
    (group,) = outcome.groups
    (changed,) = [c for c in group.configs if c.label == "async"]
    assert changed.verdict is not None and changed.verdict.kind == "faster" and changed.verdict.blocks == 5
    steps = hosts.store.results.stored_session(sid).hand_steps
    assert [(s.kind, s.block, s.config_label, s.answer) for s in steps] == [
        ("block", 0, "sync", None),
        ("block", 1, "async", CONTINUE),
        ("block", 2, "sync", CONTINUE),
        ("block", 3, "async", CONTINUE),
        ("block", 4, "sync", CONTINUE),
        ("leave", None, "sync", AS_IT_WAS),
    ]
    assert all(s.asked_at is not None and s.answered_at >= s.asked_at for s in steps[1:])  # type: ignore[operator]
    report = report_text(hosts.store.results, sid, {"hand": plan.recipes[0].recipe})
    assert "changed by hand (a guided hand change)" in report
    assert "before block 2 (async), asked at " in report and "Make this change: on the share's NFS export" in report
    assert "at the end" in report and "left as it was (sync)" in report
    from nfstune.report.html import session_html

    page = session_html(hosts.store.results, sid, {"hand": plan.recipes[0].recipe})
    # the HTML report says once what a hand change is, above the steps
    assert "you made the change in the NAS&#x27;s own interface" in page and "(A B A B A)" in page


def test_the_admin_may_stop_after_any_block_and_leave_the_change(tmp_path: Path) -> None:
    nas = Nas({2: STOP}, leave=WITH_CHANGE)  # asked to put it back before block 3: stops instead
    plan, hosts, sid = run_by_hand(tmp_path, nas)
    assert [p.kind for p in nas.prompts] == ["switch", "switch", "leave"]
    assert nas.prompts[-1].changed  # the NAS has the change when the admin stops after a B block
    assert nas.prompts[-1].text.startswith("The NAS now runs with your change (async). Choose how to leave it: ")
    measured = {e.data["round"] for e in hosts.events if e.kind == "visit"}
    assert measured == {0, *plan.recipes[0].hand.rounds_of(0), *plan.recipes[0].hand.rounds_of(1)}  # type: ignore[union-attr]
    logs = [e.message for e in hosts.events if e.kind == "log"]
    assert "hand: stopped by you after block 2 of 5" in logs
    outcome = session_outcome(hosts.store.results, sid, {"hand": plan.recipes[0].recipe})
    (changed,) = [c for g in outcome.groups for c in g.configs if c.label == "async"]
    assert changed.verdict is not None and changed.verdict.kind == "not settled"  # one block each
    steps = hosts.store.results.stored_session(sid).hand_steps
    assert [(s.kind, s.answer) for s in steps][-2:] == [("block", STOP), ("leave", WITH_CHANGE)]
    assert steps[-1].config_label == "async"


def test_the_terminal_prompt_says_what_to_do_and_where_and_reads_enter_or_s(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from nfstune.cli.run import ask_at_terminal

    typed = iter(["", "s", "", "a"])
    asked: list[str] = []
    monkeypatch.setattr("builtins.input", lambda text: asked.append(text) or next(typed))
    where = "in the NAS's own interface, depending on its make:\n• Synology DSM: Control Panel\n• QNAP: Privilege"
    switch = HandPrompt("switch", "sync-vs-async", "Make this change: set async.", 1, 5, False, where)
    assert [ask_at_terminal(switch), ask_at_terminal(switch)] == [CONTINUE, STOP]
    shown = capsys.readouterr().out
    assert "before block 2 of 5: Make this change: set async." in shown
    # a vendor a line, indented under "Where:"
    assert (
        "Where: in the NAS's own interface, depending on its make:\n  • Synology DSM: Control Panel\n  • QNAP" in shown
    )
    assert asked[0] == "Then press Enter to continue, or type s to stop: "
    leave = HandPrompt("leave", "sync-vs-async", "The NAS has your change.", 5, 5, True, "Services > NFS")
    assert [ask_at_terminal(leave), ask_at_terminal(leave)] == [WITH_CHANGE, AS_IT_WAS]  # Enter: as it is now
    assert asked[-1].endswith("[c]: ")


def test_a_hand_change_is_no_aa_check_though_nfstune_read_the_same_settings() -> None:
    # client-only: nfstune reads the mount alone, the same for both; the export the admin changed it cannot read
    from nfstune.results.comparisons import workload_questions

    run = {
        "config": {"mount": {}, "export_set": [], "read_ahead_kb": None, "expect": None},
        "requested_options": "vers=4.2",
        "negotiated_options": "rw,relatime,vers=4.2,rsize=131072,wsize=131072,proto=tcp",
        "export_options": None,
    }
    runs = {"sync": run, "async": run}
    figures = simulated(random.Random(3), 0.5)
    rounds = {"sync": figures["A"], "async": figures["B"]}
    asked = {
        blocks is None: workload_questions(
            "r", "sync-4k", runs, rounds, None, margin_percent=5.0, looks=None, paired=True, blocks=blocks
        )
        for blocks in (None, [Block("sync" if b.label == "A" else "async", b.rounds) for b in ABABA])
    }
    interleaved, by_hand = asked[True], asked[False]
    assert interleaved[1]["async"] is not None  # round by round, the same settings read back: an A/A check
    assert by_hand[1]["async"] is None and not by_hand[0][0].expect_same
    assert judge(by_hand[0])[0].kind == "faster"


def test_the_blocks_move_the_progress_and_the_admins_turn_is_not_measuring_time(tmp_path: Path) -> None:
    nas = Nas()  # an hour at each switch, 30 s a run
    _, hosts, _ = run_by_hand(tmp_path, nas)
    progress = [e for e in hosts.events if e.kind == "progress"]
    waiting = [e for e in progress if e.data.get("waiting")]
    assert [e.message for e in waiting] == ["waiting for your change"] * 4 + ["waiting for your answer"]
    assert all("eta_s" not in e.data for e in waiting)  # no time left while the admin has the turn
    fractions = [float(e.data["fraction"]) for e in waiting]  # type: ignore[arg-type]
    assert fractions == sorted(fractions) and len(set(fractions)) == len(fractions)  # every block moves the bar
    # the admin's hours are not work done: after one block of five the bar is not near the end
    assert fractions[0] < 0.5 and fractions[1] < 0.7 and fractions[-2] > 0.7
    measured = [e for e in progress if not e.data.get("waiting")]
    assert all(e.data["eta_s"] is not None for e in measured)


def test_putting_it_back_is_said_to_undo_it_where_it_was_made(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # the vendors' paths say how to make the change ("tick 'Enable asynchronous'"): the put-back step must not read
    # as another instruction to make it
    from nfstune.cli.run import ask_at_terminal

    where = "Synology DSM: Control Panel > Shared Folder > Edit > NFS Permissions > tick 'Enable asynchronous'"
    make = HandPrompt("switch", "sync-vs-async", "Make this change: set async.", 1, 5, False, where)
    back = HandPrompt("switch", "sync-vs-async", "Put it back: set sync.", 2, 5, True, where)
    monkeypatch.setattr("builtins.input", lambda text: "")
    ask_at_terminal(make)
    ask_at_terminal(back)
    shown = capsys.readouterr().out
    assert f"Where: {where}" in shown
    assert f"Where you made it (undo it there): {where}" in shown
