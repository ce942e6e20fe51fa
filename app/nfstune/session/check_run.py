"""A check that an applied recommendation held (`nfstune check N`, the desktop's "Check it held"): first that the
last Apply's settings are in force (check_in_force.py), then the ceilings and the workloads behind the
recommendation measured again on them, in a session of its own linked to session N (History shows it), by the
engine's own pieces: the check is a one-configuration recipe whose mount is the applied fstab line's, run with
session N's sizes for the rounds its decision needs (results/held.rounds_for). Its outcome (results/held.decide,
results/ceiling_change.py) is stored with it. No Qt."""

from __future__ import annotations

import dataclasses
import json
import random
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from nfstune.advice.check_basis import check_basis
from nfstune.advice.outcome import session_outcome
from nfstune.advice.session import kept_recommendation
from nfstune.bench.workloads import WorkloadSizes
from nfstune.changes.apply_undo import AppliedApply, last_apply
from nfstune.changes.transaction import host_key
from nfstune.errors import Cancelled, ConfigError, NfstuneError
from nfstune.nfs.fstab_rewrite import parse_fstab_line
from nfstune.nfs.own_mount import new_scratch_name
from nfstune.recipes.model import Config, Recipe, Rounds, recipe_facts
from nfstune.recipes.plan import Plan, build_plan
from nfstune.results.ceiling_change import CeilingChange, ceiling_changes
from nfstune.results.ceilings import ceilings_of
from nfstune.results.held import CheckOutcome, Then, decide, rounds_for
from nfstune.results.in_force import InForce, kernel_options
from nfstune.results.summary import summarize_session
from nfstune.session.check_in_force import verify_in_force
from nfstune.session.engine import Event
from nfstune.session.workflow import Facts, Pair, make_engine, sizes_for, start_session
from nfstune.store import Journal, Results
from nfstune.words import count

CHECK_RECIPE = "check-held"
CHECK_LABEL = "applied"
DEFAULT_ROUNDS = 8  # the check's budget: the most rounds it runs
CAUSED = ("did not hold", "not settled")  # the words a moved ceiling is the likely cause of


@dataclass(frozen=True)
class CheckPlan:
    session_id: int
    applied: AppliedApply
    settings: Mapping[str, object]  # the Apply's settings (changes/apply.applied_settings)
    thens: tuple[Then, ...]  # the workloads behind the recommendation, as session N measured them
    rounds: int  # how many the check runs
    scale: str
    sizes: WorkloadSizes | None  # session N's, so that the figures compare; None: from the hosts, as a run plans
    notes: tuple[str, ...] = ()

    @property
    def workloads(self) -> tuple[str, ...]:
        return tuple(t.workload for t in self.thens if t.checkable)


@dataclass
class CheckResult:
    check_id: int | None  # the check's own session; None when it stopped before measuring
    in_force: InForce
    outcome: CheckOutcome | None = None
    ceilings: tuple[CeilingChange, ...] = ()
    stopped: str | None = None  # why it stopped before measuring
    notes: list[str] = field(default_factory=list)

    @property
    def word(self) -> str:
        if self.outcome is not None:
            return self.outcome.word
        return "settings not in force" if not self.in_force.ok else "not measured"

    def to_json(self, session_id: int) -> str:
        return json.dumps(
            {
                "session": session_id,
                "word": self.word,
                "headline": self.outcome.headline if self.outcome else self.word,
                "slower": bool(self.outcome and self.outcome.slower),
                "workloads": [dataclasses.asdict(h) for h in self.outcome.workloads] if self.outcome else [],
                "verified": list(self.in_force.verified),
                "mismatches": [m.text for m in self.in_force.mismatches],
                "notes": [*self.in_force.notes, *self.notes],
                # beside a check that held, a ceiling that moved is a change, not the cause of anything
                "ceilings": [c.text if self.word in CAUSED else c.change for c in self.ceilings],
                "stopped": self.stopped,
            }
        )


def plan_check(
    results: Results,
    journal: Journal,
    pair: Pair,
    session_id: int,
    recipes: Mapping[str, Recipe],
    budget_rounds: int = DEFAULT_ROUNDS,
) -> CheckPlan:
    """Raises ConfigError when nothing was applied on these hosts, or the last Apply came from another session."""
    keys = [pair.server_key, host_key(pair.client)]
    applied = last_apply(journal, keys)
    if applied is None:
        raise ConfigError(
            f"nothing is applied on {pair.server_label} and {pair.client.label}: apply session {session_id}'s "
            f"recommendation first (`nfstune apply {session_id}`), then check it"
        )
    settings = dict(applied.files[0].detail) if applied.files else {}
    from_session = settings.get("session")
    if from_session is not None and from_session != session_id:
        raise ConfigError(
            f"the last Apply on these hosts ({applied.when}) is session {from_session}'s recommendation, not "
            f"session {session_id}'s: check that one (`nfstune check {from_session}`)"
        )
    outcome = session_outcome(results, session_id, recipes)
    rec = kept_recommendation(results, session_id, recipes, measured=outcome.measured)
    notes: list[str] = []
    if isinstance(rec, str):
        raise ConfigError(f"session {session_id} has no recommendation to check: {rec}")
    if not settings.get("fstab_line"):  # an Apply from before the check kept its lines: the session's own
        settings = {
            **settings,
            "share": outcome.session.share,
            "fstab_line": rec.fstab_line,
            "exports_line": rec.exports_line,
        }
        notes.append("this Apply is older than `nfstune check`: its lines are taken from the session's recommendation")
    thens = tuple(check_basis(outcome, rec))
    checkable = [t for t in thens if t.checkable]
    needed = [rounds_for(t, budget_rounds, len(checkable)) for t in checkable]
    rounds = max((n for n in needed if n is not None), default=3)
    if any(n is None for n in needed):
        rounds = budget_rounds
        notes.append(
            f"a difference of the predicted size may not settle within {count(budget_rounds, 'round')} (session "
            f"{session_id}'s figures spread widely): the check runs them all and says what would settle it"
        )
    for then in thens:
        if not then.checkable:
            notes.append(f"{then.workload}: nothing to check: session {session_id} measured no gain ({then.verdict})")
    if not thens:
        notes.append(
            f"session {session_id}'s recommendation rests on no measured gain (only on defaults and what the "
            "server grants): the check verifies the settings are in force, and measures nothing"
        )
    stored = results.session(session_id)
    return CheckPlan(
        session_id, applied, settings, thens, rounds, str(stored["scale"]), _planned_sizes(stored), tuple(notes)
    )


def _planned_sizes(session: Mapping[str, object]) -> WorkloadSizes | None:
    try:
        sizes = json.loads(str(session.get("plan") or "{}")).get("sizes")
        return WorkloadSizes(**sizes) if sizes else None
    except (ValueError, TypeError, AttributeError):
        return None


def check_recipe(plan: CheckPlan) -> Recipe:
    """The check as a recipe of one configuration: the share mounted with the applied fstab line's options."""
    entry = parse_fstab_line(str(plan.settings["fstab_line"]))
    return Recipe(
        CHECK_RECIPE,
        f"Check that session {plan.session_id}'s Apply held",
        "the workloads behind the applied recommendation, measured again on the applied settings",
        "an applied recommendation is checked on the hosts as they run now",
        "client",
        (Config(CHECK_LABEL, mount=kernel_options(entry.options)),),
        plan.workloads,
        CHECK_LABEL,
        Rounds(min=plan.rounds, max=plan.rounds, warmup=1, budget_minutes={plan.scale: 24 * 60.0}),
    )


def engine_plan(plan: CheckPlan, pair: Pair, facts: Facts, seed: int | None = None) -> Plan:
    sizes = plan.sizes or sizes_for(plan.scale, facts)[0]
    return build_plan(
        [check_recipe(plan)],
        recipe_facts(facts.server, facts.client),
        scale=plan.scale,
        seed=seed if seed is not None else random.SystemRandom().randrange(1, 10**6),
        sizes=sizes,
        fio_available=facts.client.fio_version is not None,
        share=pair.share,
        server_address=pair.address,
        scratch_name=new_scratch_name(),
        appliance=facts.server.appliance,
        server_login=pair.server is not None,
    )


def run_check(
    plan: CheckPlan,
    pair: Pair,
    facts: Facts,
    *,
    results: Results,
    journal: Journal,
    emit: Callable[[Event], None],
    cancel: threading.Event,
    go_on: Callable[[InForce], bool],
    built: Plan | None = None,
) -> CheckResult:
    """`go_on`: asked when the settings in force differ from the applied ones (False: the check stops there).
    `built`: the engine's plan the admin was shown (engine_plan), so that what runs is what was shown; None: made
    here. Raises Cancelled or the engine's error once its changes are undone."""

    def log(text: str) -> None:
        emit(Event("log", text))

    emit(Event("progress", "verifying the applied settings are in force", {"fraction": 0.0}))
    in_force = verify_in_force(
        pair.server, pair.client, dict(plan.settings), address=pair.address, journal=journal, log=log
    )
    for line in in_force.verified:
        log(f"verified: {line}")
    for mismatch in in_force.mismatches:
        emit(Event("warning", f"not in force: {mismatch.text}"))
    if cancel.is_set():
        raise Cancelled("the check was cancelled")
    if not in_force.ok and not go_on(in_force):
        return CheckResult(None, in_force, stopped="the applied settings are not all in force: the check stopped there")
    if not plan.workloads:  # each workload says why it has nothing to check (or the plan's note does)
        return CheckResult(None, in_force, decide(list(plan.thens), {}), notes=list(plan.notes))
    built = built or engine_plan(plan, pair, facts)
    check_id = start_session(results, pair, facts, scale=plan.scale, recipe_ids=[CHECK_RECIPE], plan=built)
    results.link_check(check_id, plan.session_id)
    engine = make_engine(pair, facts, scale=plan.scale, results=results, journal=journal, emit=emit, cancel=cancel)
    try:
        engine.run(check_id, built)
    except NfstuneError as exc:
        results.keep_check_outcome(check_id, CheckResult(check_id, in_force, stopped=str(exc)).to_json(plan.session_id))
        raise
    result = judge_check(results, plan, check_id, in_force)
    results.keep_check_outcome(check_id, result.to_json(plan.session_id))
    return result


def judge_check(results: Results, plan: CheckPlan, check_id: int, in_force: InForce) -> CheckResult:
    """The stored check session against session N: the decision and the ceilings that moved."""
    data = results.session(check_id)
    recipe = check_recipe(plan)
    groups = summarize_session(data, {recipe.id: recipe})
    now = {}
    for group in groups:
        config = group.config(CHECK_LABEL)
        if group.recipe == CHECK_RECIPE and config is not None:
            now[group.workload] = list(config.rounds.values())
    outcome = decide(list(plan.thens), now)
    moved = ceiling_changes(ceilings_of(results.session(plan.session_id)), ceilings_of(data), plan.session_id)
    return CheckResult(check_id, in_force, outcome, moved, notes=list(plan.notes))
