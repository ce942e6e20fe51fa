"""The check's plan in the admin's words (session/check_words.py): the decision first (what is verified, what is
measured and for how long, what it is compared with, what is touched), the exact commands after it, and each
progress event as the step it is. The plan is session N's, judged through the real store (test_check_session)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from nfstune.changes.apply_undo import AppliedApply
from nfstune.recipes.plan import Plan
from nfstune.session.check_run import CHECK_RECIPE, CheckPlan, engine_plan
from nfstune.session.check_words import check_plan_text, plan_words, step_words
from nfstune.session.workflow import Facts
from nfstune.store import Results, open_store
from tests.unit.test_check_session import plan_of, store_n
from tests.unit.trend_sessions import LAB_CLIENT, LAB_NAS

APPLIED_AT = 1_795_000_000.0  # 2026-11-18, whatever the zone


@pytest.fixture
def planned(tmp_path: Path) -> tuple[CheckPlan, Plan]:
    results = Results(open_store(tmp_path / "nfstune.sqlite3"))
    plan = dataclasses.replace(plan_of(results, store_n(results)), applied=AppliedApply("a", APPLIED_AT, (), ()))
    pair = SimpleNamespace(share="/export", address="nas", server=object())
    return plan, engine_plan(plan, pair, Facts(LAB_NAS, LAB_CLIENT), seed=1)  # type: ignore[arg-type]


def test_the_plan_leads_with_what_is_verified_measured_and_compared(planned: tuple[CheckPlan, Plan]) -> None:
    plan, built = planned
    words = plan_words(plan, built)
    assert "2026-11-1" in words.title and f"session {plan.session_id}" in words.title
    verify, measure, compare = words.steps
    assert "/proc/mounts" in verify and "exportfs" in verify
    minutes = round(built.estimate_s[1] / 60)
    assert f": {plan.rounds} rounds after a warm-up, about {minutes} min." in measure
    assert "small-files" in measure and "seq-read" in measure and "ceilings" in measure
    assert "vers=3" in compare and "60 % faster" in compare  # the session's GAIN of 1.6
    assert built.mount_point is not None and built.mount_point in words.touched
    assert "removed at the end" in words.touched
    # the exact commands come after the words, and are those of the engine's plan
    text = check_plan_text(plan, built)
    assert text.index("The exact commands:") > text.index(compare)
    assert f"{CHECK_RECIPE}: 1 configuration, {plan.rounds} rounds;" in text
    assert "mount -t nfs" in text and "1 configurations" not in text


def test_an_apply_of_unknown_time_is_the_last_apply(planned: tuple[CheckPlan, Plan]) -> None:
    plan, built = planned
    unknown = dataclasses.replace(plan, applied=AppliedApply("a", 0.0, (), ()))
    title = plan_words(unknown, built).title
    assert "1970" not in title and "1969" not in title
    assert title.startswith("Check that the last Apply")


def test_each_progress_event_is_named_as_the_step_of_the_check(planned: tuple[CheckPlan, Plan]) -> None:
    plan, _built = planned
    assert step_words("verifying the applied settings are in force", plan).startswith("Verifying")
    ceilings = step_words("ceilings: the network (iperf3 and ping) and the server's own disk", plan)
    assert ceilings.startswith("Measuring the ceilings")
    assert step_words(f"{CHECK_RECIPE} warm-up: applied", plan).startswith("Warming up")
    third = step_words(f"{CHECK_RECIPE} round 3: applied", plan)
    assert re.match(rf"Round 3 of {plan.rounds}: ", third)
    assert all(workload in third for workload in plan.workloads)


def test_a_check_that_kept_no_outcome_reads_not_finished_in_every_report() -> None:
    # the text and HTML reports pass what the session row has: only the session it checked, when the check stopped
    # before it kept an outcome
    from nfstune.results.check_text import check_lines

    head = check_lines({"session": 3}, None)[0]
    assert head == "Check of session 3's Apply: NOT FINISHED" and "NONE" not in head
