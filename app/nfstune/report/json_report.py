"""A session as one JSON document for scripts (`nfstune report N --json`): what the text and HTML reports say, as
data. resources/schemas/report.schema.json describes it, and tests validate every document against it.

Top level: `format` (this layout's name and version), `nfstune` (the version that wrote it), `session`,
`verdicts` (per recipe, workload and configuration: the figures and the verdict with its interval), `scaling`,
`aa_checks`, `notes`, `ceilings`, `recommendation`, `caveats`, and `runs` (every run with every repeat, raw output
included, as the raw export always had them, so that nothing is lost). The diagnosis and the short answer join
them as `diagnosis` (one entry per recipe and workload) and `answer` (the three lines); `trend` holds each workload's
headline figure over the same hosts' sessions up to this one (report/trend.py), and `change_points` where a watch
finds that a figure moved to another level in those sessions, with the likely cause (results/watch.py). A check of
an applied recommendation (`nfstune check`) carries its outcome as `check` (null in any other session), and the
session it checked lists it in `checks` with its word.

The export is made to be sent on: the admin's whole exports files and fstab (which can hold credentials) stay in
the private store, as in the raw export; only the share's own lines are quoted. JSON has no NaN or infinity, so a
figure that is not finite (a spread over a mean of 0) is null.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
from collections.abc import Mapping
from typing import Any

from nfstune import __version__
from nfstune.advice.outcome import session_outcome
from nfstune.advice.recommend import AsyncAlternative, Reason, Recommendation
from nfstune.advice.session import kept_recommendation
from nfstune.recipes.model import Recipe
from nfstune.report.trend import change_points_document, session_change_points, trend_document
from nfstune.results.latencies import latency_label
from nfstune.results.load_summary import scaling_lines
from nfstune.results.summary import ConfigResult, WorkloadResults, aa_summary
from nfstune.session.ceilings import ceiling_name
from nfstune.statistics.verdict import Verdict
from nfstune.store import Results, StoredSession

FORMAT = "nfstune-report/1"  # a change that removes or renames a key is /2; a new key is not
NOTHING_MEASURED = "the session measured nothing"


def report_json(results: Results, session_id: int, recipes: Mapping[str, Recipe]) -> str:
    document = session_document(results, session_id, recipes)
    return json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def session_document(results: Results, session_id: int, recipes: Mapping[str, Recipe]) -> dict[str, Any]:
    outcome = session_outcome(results, session_id, recipes)
    stored, raw = outcome.session, results.raw_rows(session_id)  # admin_config stays out: see the module's docstring
    groups, checks, found = outcome.groups, outcome.checks, outcome.findings
    rec = (
        kept_recommendation(results, session_id, recipes, measured=outcome.measured)
        if stored.runs
        else NOTHING_MEASURED
    )
    trends, change_points = session_change_points(results, session_id, recipes)
    document = {
        "format": FORMAT,
        "nfstune": __version__,
        "session": _session(results, stored),
        "verdicts": [_config(g, c) for g in groups for c in g.configs],
        "scaling": [line.strip() for line in scaling_lines(outcome.scaling)],
        "aa_checks": {
            "summary": aa_summary(checks) if checks else None,
            "checks": [
                {"recipe": c.recipe, "workload": c.workload, "config": c.label, "why": c.why, "kind": c.verdict.kind}
                for c in checks
            ],
        },
        "notes": outcome.notes,
        "ceilings": [
            {"label": ceiling_name(c.kind, c.direction), **row}
            for c, row in zip(stored.ceilings, raw.ceilings, strict=True)
        ],
        "latencies": [
            {"label": latency_label(t), **row} for t, row in zip(stored.latencies, raw.latencies, strict=True)
        ],
        "recommendation": _recommendation(rec),
        "caveats": outcome.caveats,
        "answer": {"change": found.answer.change, "gain": found.answer.gain, "risk": found.answer.risk},
        "diagnosis": [dataclasses.asdict(d) for d in found.diagnoses],
        "trend": trend_document(trends),
        "change_points": change_points_document(change_points),
        "check": _check(stored),
        "checks": [
            {"session": check_id, "started": iso_time(started), "started_at": started, **_word(outcome)}
            for check_id, started, outcome in results.checks_of(session_id)
        ],
        "runs": raw.runs,
    }
    return finite(document)  # type: ignore[no-any-return]


def _word(outcome: Mapping[str, Any] | None) -> dict[str, Any]:
    """A check's word and headline; "not finished" while it kept no outcome (it stopped before, or runs)."""
    word = str(outcome.get("word")) if outcome else "not finished"
    return {"word": word, "headline": str(outcome.get("headline") or word) if outcome else word}


def _check(stored: StoredSession) -> dict[str, Any] | None:
    """A check session's outcome, as it kept it (session/check_run.CheckResult.to_json); None: not a check."""
    if stored.checks is None:
        return None
    kept = stored.check_outcome or {}
    return {
        "of_session": stored.checks,
        **_word(stored.check_outcome),
        "slower": bool(kept.get("slower")),
        "workloads": list(kept.get("workloads") or ()),  # each as results/held.Held: its word, interval, levels
        **{key: list(kept.get(key) or ()) for key in ("verified", "mismatches", "notes", "ceilings")},
        "stopped": kept.get("stopped"),
    }


def _session(results: Results, stored: StoredSession) -> dict[str, Any]:
    row = next((r for r in results.sessions() if r.id == stored.id), None)
    return {
        "id": stored.id,
        "started": iso_time(stored.started_at),
        "started_at": stored.started_at,
        "ended": iso_time(stored.ended_at),
        "ended_at": stored.ended_at,
        "status": stored.status,
        "message": stored.message,
        "share": stored.share,
        "scale": stored.scale,
        "recipes": list(stored.recipes),
        "server": row.server if row else None,
        "client": row.client if row else None,
        "paired": stored.paired,  # verdicts paired by round (a session with a plan), else unpaired
        "plan": stored.plan,
        "server_facts": _parsed(stored.server_facts),
        "client_facts": _parsed(stored.client_facts),
    }


def _config(group: WorkloadResults, c: ConfigResult) -> dict[str, Any]:
    s = c.summary
    return {
        "recipe": group.recipe,
        "workload": group.workload,
        "config": c.label,
        "baseline": group.baseline_label,
        "is_baseline": c.label == group.baseline_label,
        "unit": group.unit,
        "higher_is_better": group.higher_is_better,
        "status": c.status,
        "n": s.n if s else 0,
        "median": s.median if s else None,
        "min": s.min if s else None,
        "max": s.max if s else None,
        "mean": s.mean if s else None,
        "cv_percent": s.cv_percent if s else None,
        "values": c.values,
        "requested": c.requested.render(),
        "negotiated": c.negotiated.render(),
        "export_options": list(c.export_options),
        "same_as_baseline": c.same_as_baseline,
        "verdict": _verdict(c.verdict) if c.verdict is not None else None,
        # what the figures above are: "p50" (a latency workload's typical write), "mean" (one stored without
        # percentiles), "own" (a workload with one figure), and why, in words
        "judged_by": str(group.basis),
        "judged_words": group.judged_words,
        # a latency workload's mean (sync-4k from several clients: the time per write served) and its tail (p99),
        # each round's; the tail's own verdict (a family of its own per recipe, never the advice's)
        "mean_values": list(c.own_rounds.values()),
        "tail_values": list(c.tail_rounds.values()),
        "tail_verdict": _verdict(c.tail_verdict) if c.tail_verdict is not None else None,
    }


def _verdict(v: Verdict) -> dict[str, Any]:
    return {
        "kind": v.kind,
        "ratio": v.ratio,  # the configuration's speed over the baseline's: above 1 faster, whatever the unit
        "ci_low": v.ci[0] if v.ci else None,  # at the Holm-corrected level of the comparison's step
        "ci_high": v.ci[1] if v.ci else None,
        "family": v.family,
        "n": v.n,
        "p_value": v.p_value,
        "text": v.text,
        "settle": v.settle,
        "rounds_needed": v.rounds_needed,
        "set_aside_round": v.set_aside,  # counted at its nearest neighbour's ratio: far from the other rounds
        "far_visits": [{"configuration": name, "round": r, "of_usual": factor} for name, r, factor in v.far],
        "carry_over": None
        if v.carry_over is None
        else {
            "lag1_correlation": v.carry_over.correlation,
            "p_value": v.carry_over.p_value,
            "widened": v.carry_over.factor,
        },
    }


def _recommendation(rec: Recommendation | str) -> dict[str, Any]:
    if isinstance(rec, str):
        return {"why_none": rec}
    threads = rec.threads
    return {
        "why_none": None,
        "exports_file": rec.exports_file,
        "exports_line": rec.exports_line,  # "" when nfstune could not log in to the server (a note says so)
        "exports_before": rec.exports_before,
        "exports_reasons": _reasons(rec.exports_reasons),
        "fstab_line": rec.fstab_line,
        "fstab_before": rec.fstab_before,
        "fstab_reasons": _reasons(rec.fstab_reasons),
        "notes": list(rec.notes),
        "threads": None
        if threads is None
        else {"threads": threads.threads, "file": threads.file, "line": threads.line, "note": threads.note},
        "async_alternative": _async(rec.async_alternative),
    }


def _reasons(reasons: tuple[Reason, ...]) -> list[dict[str, str]]:
    return [{"option": r.option, "why": r.why} for r in reasons]


def _async(alt: AsyncAlternative | None) -> dict[str, str] | None:
    if alt is None:
        return None
    return {"line": alt.line, "gain": alt.gain, "warning": alt.warning, "risk": alt.risk, "conditions": alt.conditions}


def _parsed(text: object) -> Any:
    """A JSON column as data; null when empty, or when this version cannot read it."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def finite(value: Any) -> Any:
    """`value` with every float that is not finite as None: JSON has no NaN or infinity."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def iso_time(seconds: float | None) -> str | None:
    """Unix seconds as ISO 8601 in local time, with its offset: 2026-03-01T14:05:09+01:00."""
    if seconds is None:
        return None
    return datetime.datetime.fromtimestamp(seconds).astimezone().isoformat(timespec="seconds")
