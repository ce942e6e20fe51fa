"""The verdicts the Run page shows after each round are the stop rule's judgement of that round, and after the last
round the Results page's: a stored session's figures fed round by round to RecipeFigures, as the engine feeds them,
against the rows results.verdict_rows makes from the same session read back (issue 39)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nfstune.advice.outcome import session_outcome
from nfstune.bench.figure import figure
from nfstune.recipes.plan import RecipePlan
from nfstune.results.verdict_rows import VerdictRow, margins_of, verdict_rows
from nfstune.session.rounds import RecipeFigures, stop_reason
from nfstune.session.workflow import Facts, plan_for
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import LAB_CLIENT, LAB_NAS, shipped_recipes
from tests.unit.verdict_session import RUNS, store_verdict_session

RECIPE = "quick-check"
COMPARED = len([r for r in RUNS if r.label != "baseline"])  # a comparison per run of a configuration


def the_plan() -> RecipePlan:
    """The plan the stored session ran (trend_sessions.store_session plans it so)."""
    recipes = shipped_recipes()
    plan = plan_for(None, Facts(LAB_NAS, LAB_CLIENT), [recipes[RECIPE]], "small", seed=1, server_login=True)
    return plan.recipes[0]


def key(row: VerdictRow) -> tuple[str, str, str]:
    return row.recipe, row.workload, row.label


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Results, int]:
    results = Results(open_store(tmp_path / "results.db"))
    return results, store_verdict_session(results)


def rounds_of(results: Results, sid: int) -> dict[int, list[tuple[str, str, float]]]:
    """round -> (workload, label, figure) of every counted repeat, as the engine measured them."""
    found: dict[int, list[tuple[str, str, float]]] = {}
    for run in results.session(sid)["runs"]:
        for r in run["repeats"]:
            if not r["warmup"]:
                found.setdefault(int(r["number"]), []).append(
                    (run["workload"], run["config_label"], figure(run["workload"], r))
                )
    return found


def test_the_last_rounds_rows_are_the_results_pages(stored: tuple[Results, int]) -> None:
    results, sid = stored
    item = the_plan()
    assert {c.label for c in item.configs} >= {"baseline", "async", "vers=3", "rsize=128K", "no_wdelay"}
    figures = RecipeFigures(item)
    stored_runs = results.stored_session(sid).runs
    figures.runs = {(r.workload, r.config_label): r for r in stored_runs if r.recipe == RECIPE}
    by_round = rounds_of(results, sid)
    for number in sorted(by_round):
        for workload, label, value in by_round[number]:
            figures.add(workload, label, number, value)
    live = figures.judge().rows

    outcome = session_outcome(results, sid, shipped_recipes())
    shown = verdict_rows(outcome.groups, margins_of(outcome.session, shipped_recipes()))
    assert len(shown) == COMPARED and {r.kind for r in shown} >= {"faster", "slower", "same", "not settled"}
    # the same comparisons (the live rows go in the plan's order, the Results' in the order the runs were stored)
    mine_by_key, theirs_by_key = {key(r): r for r in live}, {key(r): r for r in shown}
    assert len(mine_by_key) == len(live) and set(mine_by_key) == set(theirs_by_key)
    for k, mine in mine_by_key.items():
        theirs = theirs_by_key[k]
        assert (mine.against, mine.kind, mine.ratio, mine.low, mine.high) == (
            theirs.against,
            theirs.kind,
            theirs.ratio,
            theirs.low,
            theirs.high,
        ), k
        assert (mine.margin_percent, mine.expected_same, mine.text) == (
            theirs.margin_percent,
            theirs.expected_same,
            theirs.text,
        ), k


def test_a_row_is_not_settled_exactly_when_the_stop_rule_counts_it_so(stored: tuple[Results, int]) -> None:
    results, sid = stored
    item = the_plan()
    figures = RecipeFigures(item)
    figures.runs = {(r.workload, r.config_label): r for r in results.stored_session(sid).runs}
    by_round = rounds_of(results, sid)
    seen_unsettled = set()
    for number in sorted(by_round):
        for workload, label, value in by_round[number]:
            figures.add(workload, label, number, value)
        judged = figures.judge()
        assert len(judged.rows) == COMPARED  # every comparison has a row from round 1 on (no estimate yet: ratio None)
        if number == 1:
            assert all(r.ratio is None for r in judged.rows)
        if number < item.rounds.min:
            continue
        not_settled = [r.text for r in judged.rows if r.kind == "not settled"]
        # the budget spent: the stop rule says how many it leaves unsettled
        why = stop_reason(figures, number, item.budget_s, [60.0] * number, judged)
        assert why is not None
        if not not_settled:
            assert why.startswith("every comparison is settled")
        elif number < item.rounds.max:
            found = re.search(r"(\d+) comparison\(s\) not settled", why)
            assert found is not None and int(found.group(1)) == len(not_settled), why
        assert sorted(not_settled) == sorted(judged.unsettled)
        seen_unsettled.add(bool(not_settled))
        # the stop rule judging by itself says the same
        assert stop_reason(figures, number, item.budget_s, [60.0] * number) == why
    assert True in seen_unsettled  # the session has a comparison noise never settles
