"""A check of an applied recommendation through the real store: session N measured NFSv3 faster on small files and
seq-read, so its recommendation sets vers=3; a check session stored as the engine stores it, linked to N, is
decided against N's figures (session/check_run.judge_check), its outcome kept and found from N."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nfstune.advice.check_basis import check_basis
from nfstune.advice.outcome import session_outcome
from nfstune.advice.session import CurrentConfig, keep_current, kept_recommendation
from nfstune.changes.apply_undo import AppliedApply
from nfstune.results.ceilings import Ceilings
from nfstune.results.check_text import check_lines
from nfstune.results.in_force import InForce
from nfstune.session.check_run import CHECK_LABEL, CHECK_RECIPE, CheckPlan, judge_check
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import EXPORT, MOUNT, Run, repeat, shipped_recipes, store_session

FILES = (2.0, 2.05, 1.98, 2.02, 2.0, 2.01)  # seconds for the tree, vers=4.2
READ = (100.0, 101.0, 99.0, 100.5, 99.5, 100.0)  # MB/s, vers=4.2
GAIN = 1.6
V3 = MOUNT.replace("vers=4.2", "vers=3")
EXPORTS = "/export 10.99.0.0/24(rw,sync,no_subtree_check,no_root_squash)\n"


def _wobble(values: tuple[float, ...], factor: float) -> tuple[float, ...]:
    return tuple(v * factor * (1 + w) for v, w in zip(values, (0.01, -0.012, 0.008, -0.01, 0.011, -0.007), strict=True))


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "nfstune.sqlite3"))


def store_n(results: Results) -> int:
    runs = [
        Run("nfs-versions", "vers=4.2", "small-files", FILES),
        Run("nfs-versions", "vers=4.2", "seq-read", READ),
        Run(
            "nfs-versions", "vers=3", "small-files", _wobble(FILES, 1 / GAIN), negotiated=V3, config={"mount": "vers=3"}
        ),
        Run("nfs-versions", "vers=3", "seq-read", _wobble(READ, GAIN), negotiated=V3, config={"mount": "vers=3"}),
    ]
    sid = store_session(results, runs)
    for run in results.session(sid)["runs"]:  # the versions asked for, as the recipe's mount options ask them
        label = run["config_label"]
        results.set_run_options(run["id"], requested=label, negotiated=run["negotiated_options"], export=EXPORT)
    results.add_baseline(sid, kind="network", direction="to-server", mb_per_s=110.0, seconds=5, size=1, raw="")
    keep_current(results, sid, CurrentConfig({"/etc/exports": EXPORTS}, ""), server="nas")
    return sid


def store_check(results: Results, n: int, figures: dict[str, tuple[float, ...]], network: float) -> int:
    """The check's session as the engine stores it: one configuration, a warm-up then its rounds."""
    check = results.start_session(
        server_host=None, client_host=None, share="/export", scale="small", recipes=[CHECK_RECIPE]
    )
    results.link_check(check, n)
    results.add_baseline(check, kind="network", direction="to-server", mb_per_s=network, seconds=5, size=1, raw="")
    for workload, values in figures.items():
        run = results.start_run(check, recipe=CHECK_RECIPE, config_label=CHECK_LABEL, config={}, workload=workload)
        results.set_run_options(run, requested="vers=3", negotiated=V3, export=None)
        for number, value in enumerate([values[0], *values]):
            results.add_repeat(run, number, warmup=number == 0, values=repeat(workload, value))
        results.end_run(run, "completed")
    results.end_session(check, "completed")
    return check


def plan_of(results: Results, n: int) -> CheckPlan:
    recipes = shipped_recipes()
    outcome = session_outcome(results, n, recipes)
    rec = kept_recommendation(results, n, recipes, measured=outcome.measured)
    assert not isinstance(rec, str)
    assert "vers=3" in rec.fstab_line
    thens = tuple(check_basis(outcome, rec))
    settings = {"session": n, "share": "/export", "fstab_line": rec.fstab_line, "exports_line": rec.exports_line}
    return CheckPlan(n, AppliedApply("x", 0.0, (), ()), settings, thens, 6, "small", None)


def test_the_check_measures_the_workloads_the_recommendation_rests_on(results: Results) -> None:
    plan = plan_of(results, store_n(results))
    assert sorted(plan.workloads) == ["seq-read", "small-files"]
    then = {t.workload: t for t in plan.thens}
    assert then["seq-read"].gain == pytest.approx(GAIN, rel=0.05)
    assert then["seq-read"].label == "vers=3" and then["seq-read"].baseline_label == "vers=4.2"


def test_figures_as_the_session_measured_them_held(results: Results) -> None:
    n = store_n(results)
    plan = plan_of(results, n)
    check = store_check(results, n, {"small-files": _wobble(FILES, 1 / GAIN), "seq-read": _wobble(READ, GAIN)}, 108.0)
    result = judge_check(results, plan, check, InForce())
    assert result.outcome is not None and result.outcome.word == "held"
    assert result.ceilings == ()
    results.keep_check_outcome(check, result.to_json(n))
    ((found, _at, kept),) = results.checks_of(n)
    assert found == check and kept is not None and kept["word"] == "held"


def test_figures_back_at_the_baseline_did_not_hold_on_a_slower_network(results: Results) -> None:
    n = store_n(results)
    plan = plan_of(results, n)
    check = store_check(results, n, {"small-files": _wobble(FILES, 1.0), "seq-read": _wobble(READ, 1.0)}, 66.0)
    result = judge_check(results, plan, check, InForce())
    assert result.outcome is not None and result.outcome.word == "did not hold"
    assert result.outcome.slower
    (moved,) = result.ceilings
    assert f"40 % slower than in session {n}" in moved.text


def test_ceilings_of_the_check_are_its_own(results: Results) -> None:
    n = store_n(results)
    check = store_check(results, n, {"seq-read": READ}, 50.0)
    from nfstune.results.ceilings import ceilings_of

    assert ceilings_of(results.session(check)) == Ceilings(network_to_server=50.0)


def test_the_reports_say_the_check_and_its_outcome(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    results = Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))
    n = store_n(results)
    plan = plan_of(results, n)
    check = store_check(results, n, {"small-files": _wobble(FILES, 1 / GAIN), "seq-read": _wobble(READ, GAIN)}, 150.0)
    results.keep_check_outcome(
        check, judge_check(results, plan, check, InForce(("client: vers=3 in force",))).to_json(n)
    )
    env = os.environ | {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")}

    def report(session: int) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "nfstune", "report", str(session)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert f"(session {check}): held" in report(n)
    own_words = report(check)  # a ceiling that moved beside a check that held is only a change, not its cause
    assert "likely cause" not in own_words and "changed since, the check held all the same: the network" in own_words
    own = report(check)
    assert f"Check of session {n}'s Apply: HELD" in own
    assert "client: vers=3 in force" in own and "unpaired" in own
    assert "No recommendation" not in own

    from nfstune.report.html import session_html

    assert f"(session {check}): held" in session_html(results, n, shipped_recipes())
    assert f"Check of session {n}&#x27;s Apply: HELD" in session_html(results, check, shipped_recipes())


def test_the_check_is_planned_from_the_last_apply_of_the_same_session(results: Results, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from nfstune.errors import ConfigError
    from nfstune.session.check_run import plan_check
    from nfstune.store import Journal

    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    client = SimpleNamespace(target=SimpleNamespace(user="root", hostname="client", port=22), label="client")
    pair = SimpleNamespace(server_key="root@nas:22", server_label="nas", client=client)
    n, other = store_n(results), store_n(results)
    with pytest.raises(ConfigError, match=f"nothing is applied.*nfstune apply {n}"):
        plan_check(results, journal, pair, n, shipped_recipes())  # type: ignore[arg-type]
    line = "nas:/export /mnt/nfs nfs vers=3,hard,_netdev,nofail 0 0"
    entry = journal.record(
        "root@client:22", "file", "/etc/fstab", detail={"apply": True, "session": other, "fstab_line": line}
    )
    journal.mark_committed([entry])
    with pytest.raises(ConfigError, match=f"session {other}'s recommendation, not session {n}'s"):
        plan_check(results, journal, pair, n, shipped_recipes())  # type: ignore[arg-type]
    plan = plan_check(results, journal, pair, other, shipped_recipes(), budget_rounds=8)  # type: ignore[arg-type]
    assert sorted(plan.workloads) == ["seq-read", "small-files"]
    assert 3 <= plan.rounds <= 8
    assert plan.settings["fstab_line"] == line
    from nfstune.session.check_words import plan_words

    assert plan_words(plan, None).steps[0].startswith("Verify that the applied settings are in force")


def test_the_json_report_carries_the_check_and_the_checks_of_a_checked_session(results: Results) -> None:
    import jsonschema

    from nfstune.report.html import session_html
    from nfstune.report.json_report import session_document
    from tests.unit.test_report_json import VALIDATOR

    n = store_n(results)
    plan = plan_of(results, n)
    check = store_check(results, n, {"small-files": _wobble(FILES, 1.0), "seq-read": _wobble(READ, 1.0)}, 66.0)
    unfinished = store_check(results, n, {"seq-read": READ}, 110.0)  # it kept no outcome
    results.keep_check_outcome(
        check, judge_check(results, plan, check, InForce(("client: vers=3 in force",))).to_json(n)
    )
    recipes = shipped_recipes()

    own = session_document(results, check, recipes)
    VALIDATOR.validate(own)
    assert own["check"]["of_session"] == n and own["check"]["word"] == "did not hold" and own["check"]["slower"]
    assert {w["workload"]: w["word"] for w in own["check"]["workloads"]} == {
        "small-files": "did not hold",
        "seq-read": "did not hold",
    }
    assert own["check"]["verified"] == ["client: vers=3 in force"]
    assert "40 % slower" in own["check"]["ceilings"][0]
    assert own["checks"] == []

    checked = session_document(results, n, recipes)
    VALIDATOR.validate(checked)
    assert checked["check"] is None
    assert [(c["session"], c["word"]) for c in checked["checks"]] == [
        (check, "did not hold"),
        (unfinished, "not finished"),
    ]
    with pytest.raises(jsonschema.ValidationError):  # the schema holds the words to what a check can say
        VALIDATOR.validate({**checked, "checks": [{**checked["checks"][0], "word": "maybe"}]})

    # the HTML report of a check session answers with the check, not with a first look's three lines
    page = session_html(results, check, recipes)
    assert "DID NOT HOLD" in page and "The answer</h2>" not in page
    # said once, what the words mean: the halfway line and that then and now are two times
    assert "halfway line between the session&#x27;s baseline level" in page and "two times" in page
    assert "The answer</h2>" in session_html(results, n, recipes)


def test_beside_a_check_that_held_a_moved_ceiling_is_a_change_not_the_likely_cause(results: Results) -> None:
    # seen on the lab: the disk's cold read 55 % faster beside a held check read "the comparison says more about the
    # disk than about the settings", which contradicts "held"
    n = store_n(results)
    plan = plan_of(results, n)
    check = store_check(results, n, {"small-files": _wobble(FILES, 1 / GAIN), "seq-read": _wobble(READ, GAIN)}, 66.0)
    result = judge_check(results, plan, check, InForce())
    assert result.outcome is not None and result.outcome.word == "held" and result.ceilings
    kept = json.loads(result.to_json(n))
    assert kept["ceilings"] and all("measured 40 % slower" in c for c in kept["ceilings"])
    assert not any("says more about" in c for c in kept["ceilings"])
    assert "changed since, the check held all the same" in "\n".join(check_lines(kept, check))
