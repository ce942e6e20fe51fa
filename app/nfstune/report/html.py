"""A session as one self-contained HTML file an admin can send to a colleague: what the Results and Recommendation
pages show. First the recommendation (the /etc/exports entry and the /etc/fstab line, a reason for every option,
async only as an opt-in with its warning: report_advice.py), then the ceilings measured first, then per recipe and
workload a chart (a bar at the median, every round as a point: report_chart.py) and the table of figures with each
configuration's verdict against the baseline and its CI, the server's export and the client's mount, the recipe's
notes, the A/A checks, and the trend of the same hosts' sessions up to this one (report/trend.py).
`nfstune report --html`, `nfstune run --html` and History's export write this same file."""

from __future__ import annotations

import html
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from nfstune.advice.findings import Findings
from nfstune.advice.outcome import session_outcome
from nfstune.advice.session import kept_recommendation
from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.report.advice import recommendation_html
from nfstune.report.chart import strip_chart_svg
from nfstune.report.trend import session_change_points, trend_html
from nfstune.report.verdict_svg import pictures_html
from nfstune.results.caveats import WITHOUT_SERVER
from nfstune.results.check_text import ABOUT as CHECK_ABOUT
from nfstune.results.check_text import check_lines, checked_lines
from nfstune.results.hand_steps import ABOUT as HAND_ABOUT
from nfstune.results.hand_steps import TITLE as HAND_TITLE
from nfstune.results.hand_steps import hand_lines
from nfstune.results.latencies import LATENCY_NOTE, latency_label, latency_text
from nfstune.results.load_summary import SeriesScaling
from nfstune.results.run_options import negotiated_essentials
from nfstune.results.summary import ConfigResult, WorkloadResults, aa_summary
from nfstune.results.summary_text import beside_words, tail_lines, verdict_lines
from nfstune.results.writeback import late_heading, late_starts
from nfstune.session.ceilings import ceiling_name
from nfstune.statistics.stats import format_value
from nfstune.store import Results, StoredCeiling, StoredLatency

HEADER = (
    "configuration",
    "median",
    "min\u2013max",
    "rounds",
    "against the baseline (95 % CI)",
    "server export",
    "client mount: requested",
    "negotiated (/proc/mounts)",
)
CSS = """body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222;line-height:1.35}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;vertical-align:top}
th{background:#eee;text-align:left}td.n{text-align:right;white-space:nowrap}td.opts{font-size:90%;max-width:18em}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;overflow-wrap:anywhere}.warn{border:2px solid #b3261e;
padding:.5em 1em;margin:1em 0}.warn h3{color:#b3261e;margin-top:.3em}.faster,.slower{font-weight:bold}
.unreliable{color:#b3261e}.failed{color:#b3261e}.muted{color:#666}ol.marks{color:#555;font-size:90%}
ul.answer{list-style:none;padding:.5em 1em;border-left:4px solid #1b7f2a;background:#f3f8f3;font-size:110%}"""
AS_THE_SERVER_HAS_IT = "as the server has it"


def write_html(results: Results, session_id: int, path: Path, recipes: Mapping[str, Recipe] | None = None) -> None:
    """`recipes` name each recipe's baseline, margin, expectations and notes (the current recipes when None)."""
    path.write_text(session_html(results, session_id, recipes))


def session_html(results: Results, session_id: int, recipes: Mapping[str, Recipe] | None = None) -> str:
    if recipes is None:
        from nfstune.recipes.loader import recipes_by_id

        recipes = recipes_by_id()
    e = html.escape
    outcome = session_outcome(results, session_id, recipes)
    stored = outcome.session
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(stored.started_at))
    parts = [
        f"<!doctype html><html lang=en><meta charset=utf-8><title>nfstune session {session_id}</title>"
        f"<style>{CSS}</style>",
        f"<h1>nfstune session {session_id}</h1><p>{e(started)}, share <code>{e(stored.share)}</code>, "
        f"recipes {e(', '.join(stored.recipes))}, scale {e(stored.scale)}, status <b>{e(stored.status)}</b>"
        + (f": {e(stored.message)}" if stored.message and stored.status != "completed" else "")
        + "</p>",
    ]
    row = results.session(session_id)
    if row.get("checks") is not None:  # a check of an applied recommendation: its answer first
        kept = json.loads(row["check_outcome"]) if row.get("check_outcome") else {"session": row["checks"]}
        head, *rest = check_lines(kept, None)
        parts.append(f"<h2>{e(head)}</h2><p>{e(CHECK_ABOUT)}</p><pre>{e(chr(10).join(rest))}</pre>")
    checked = checked_lines(results.checks_of(session_id))
    if checked:
        parts.append("<p>The applied recommendation: " + "; ".join(e(line) for line in checked) + "</p>")
    parts += findings_html(outcome.findings, answer=row.get("checks") is None)  # a check's answer is its own
    parts += pictures_html(outcome, recipes)
    found = outcome.caveats
    if found:
        parts.append(f"<h2>{WITHOUT_SERVER}</h2><ul>" + "".join(f"<li>{e(text)}</li>" for text in found) + "</ul>")
    by_hand = hand_lines(stored.hand_steps)
    if by_hand:
        items = "".join(f"<li>{e(line)}</li>" for line in by_hand)
        parts.append(f"<h2>{e(HAND_TITLE)}</h2><p>{e(HAND_ABOUT)}</p><ul>{items}</ul>")
    if stored.runs:
        parts.append(recommendation_html(kept_recommendation(results, session_id, recipes, measured=outcome.measured)))
    parts.append(_ceilings(stored.ceilings, stored.latencies))
    groups, family = outcome.groups, outcome.family
    if groups:
        parts.append("<h2>Results</h2>")
    if family:
        parts.append(f"<p>Verdicts: {e(family)}.</p>")
    late = late_starts(stored.runs)
    for recipe_id in dict.fromkeys(g.recipe for g in groups):
        parts += [_workload(g, late.get((g.recipe, g.workload), [])) for g in groups if g.recipe == recipe_id]
        notes = outcome.notes.get(recipe_id)
        if notes:
            parts.append(
                f"<p><b>{e(recipe_id)}: notes</b></p><ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>"
            )
    parts.append(_scaling(outcome.scaling))
    checks = outcome.checks
    if checks:
        parts.append(
            f"<h2>A/A checks</h2><p>Configurations expected to measure the same as their baseline: "
            f"{e(aa_summary(checks))}.</p><ul>"
        )
        parts += [f"<li>{e(c.text)} <span class=muted>({e(c.why)})</span></li>" for c in checks]
        parts.append("</ul>")
    trends, change_points = session_change_points(results, session_id, recipes)
    parts.append(trend_html(trends, session_id, change_points))
    parts.append("</html>")
    return "\n".join(parts) + "\n"


def findings_html(found: Findings, *, answer: bool = True) -> list[str]:
    """The answer in three lines (unless `answer` is False: a check session's answer is the check's), then what
    limits each workload and what could move it."""
    e = html.escape
    lines = "".join(f"<li>{e(line)}</li>" for line in found.answer.lines)
    parts = [f"<h2>The answer</h2><ul class=answer>{lines}</ul>"] if answer else []
    if found.diagnoses:
        items = []
        for d in found.diagnoses:
            levers = f"<br><span class=muted>Could move it: {e('; '.join(d.levers))}</span>" if d.levers else ""
            items.append(f"<li><b>{e(d.recipe)} / {e(d.workload)}</b>: {e(d.text)}{levers}</li>")
        parts.append(f"<h2>What limits each workload</h2><ul>{''.join(items)}</ul>")
    return parts


def _ceilings(ceilings: Sequence[StoredCeiling], latencies: Sequence[StoredLatency]) -> str:
    if not ceilings and not latencies:
        return ""
    parts = ["<h2>Ceilings</h2>"]
    if ceilings:
        rows = "".join(
            f"<tr><td>{html.escape(ceiling_name(c.kind, c.direction))}</td>"
            f"<td class=n>{format_value(c.mb_per_s)} MB/s</td></tr>"
            for c in ceilings
        )
        parts.append(
            "<p>Measured before the recipes: NFS cannot move data faster than the network or the server's own "
            f"disk.</p><table><tr><th>what</th><th>rate</th></tr>{rows}</table>"
        )
    if latencies:
        rows = "".join(
            f"<tr><td>{html.escape(latency_label(t))}</td><td class=n>{html.escape(latency_text(t))}</td></tr>"
            for t in latencies
        )
        parts.append(f"<p>{html.escape(LATENCY_NOTE)}</p><table><tr><th>what</th><th>time</th></tr>{rows}</table>")
    return "".join(parts)


def _scaling(found: list[SeriesScaling]) -> str:
    """Several clients at once: the scaling verdict of each series, then every count's aggregate, each client's
    share and how evenly the NAS shared."""
    if not found:
        return ""
    e = html.escape
    parts = [
        "<h2>Several clients at once</h2><p>Where another client stops adding throughput, judged in the same "
        "family as the recipe's other comparisons; each client's median MB/s over the rounds, and the slowest client's "
        "rate over the fastest's (1.00: an even share).</p>"
    ]
    for item in found:
        kind = {"grows": "faster", "knee": "same", "not settled": "not-settled"}[item.scaling.kind]
        settle = f" {item.scaling.settle}" if item.scaling.settle else ""
        parts.append(
            f"<h3>{e(item.recipe)}: {e(item.workload)}, {e(item.series)}</h3>"
            f"<p class={kind}>{e(item.scaling.text)}{e(settle)}</p>"
        )
        rows = []
        for c in item.configs:
            shares = ", ".join(f"{name} {format_value(rate)}" for name, rate in c.per_client.items())
            even = (
                "\u2013"
                if c.fairness is None
                else (f"{c.fairness[0]:.2f} ({c.fairness[1]:.2f}\u2013{c.fairness[2]:.2f})")
            )
            ops = "\u2013" if c.ops_per_s is None else format_value(c.ops_per_s)
            rows.append(
                f"<tr><td>{e(c.label)}</td><td class=n>{c.clients}</td><td>{e(shares)}</td>"
                f"<td class=n>{ops}</td><td class=n>{even}</td></tr>"
            )
        parts.append(
            "<table><tr><th>configuration</th><th>clients</th><th>each client, MB/s</th>"
            f"<th>ops/s together</th><th>slowest/fastest</th></tr>{''.join(rows)}</table>"
        )
    return "\n".join(parts)


def _workload(g: WorkloadResults, late: Sequence[str]) -> str:
    """`late`: its runs that started with a host still writing back (results/writeback.py)."""
    e = html.escape
    w = WORKLOADS[g.workload]
    rows, bars = [], []
    for c in g.configs:
        s = c.summary
        if s is not None:
            bars.append((c.label, s.median, list(c.rounds.values())))
        rows.append(_row(g, c))
    better = "higher" if w.higher_is_better else "lower"
    img = strip_chart_svg(f"{g.recipe}: {g.workload}", w.unit, bars) if bars else ""
    header = "".join(f"<th>{h}</th>" for h in HEADER)
    started_late = ""
    if late:
        items = "".join(f"<li>{e(text)}</li>" for text in late)
        started_late = f"<p class=unreliable>{e(late_heading(len(late)))}:</p><ul>{items}</ul>"
    judged = f"; {e(g.judged_words)}" if g.judged_words else ""
    return (
        f"<h3>{e(g.recipe)}: {e(w.title)}</h3><p>{e(w.unit)}, {better} is better; bars: median, points: every "
        f"round; compared with {e(g.baseline_label)}{judged}</p>{img}"
        f"<table><tr>{header}</tr>{''.join(rows)}</table>{started_late}"
    )


def _row(g: WorkloadResults, c: ConfigResult) -> str:
    e = html.escape
    failed = c.status not in ("completed", None)
    label = f"{c.label} ({c.status})" if failed else c.label
    s = c.summary
    if s is None:
        figures = "<td class=n>no completed rounds</td><td class=n>\u2013</td><td class=n>0</td>"
    else:
        beside = beside_words(g, c)
        under = f"<br><span class=muted>{e(beside)}</span>" if beside else ""
        figures = (
            f"<td class=n>{format_value(s.median)}{under}</td><td class=n>{format_value(s.min)}\u2013"
            f"{format_value(s.max)}</td><td class=n>{s.n}</td>"
        )
    if c.label == g.baseline_label:
        verdict = "<td>baseline</td>"
    else:
        kind = c.verdict.kind.replace(" ", "-") if c.verdict is not None else ""
        tail = "".join(f"<br><span class=muted>{e(line)}</span>" for line in tail_lines(c))
        verdict = f"<td class={kind or 'muted'}>{e(' '.join(verdict_lines(c)) or '—')}{tail}</td>"
    export = ", ".join(c.export_options) if c.export_options else AS_THE_SERVER_HAS_IT
    requested, negotiated = c.requested.render() or "(defaults)", negotiated_essentials(c.negotiated) or "(not read)"
    return (
        f"<tr{' class=failed' if failed else ''}><td>{e(label)}</td>{figures}{verdict}"
        f"<td class=opts>{_options(export)}</td><td class=opts>{_options(requested)}</td>"
        f"<td class=opts>{_options(negotiated)}</td></tr>"
    )


def _options(text: str) -> str:
    """Mount options wrap after their commas (a <wbr>: the text copied stays the option string): as one unbroken
    word, "vers=4.2,rsize=131072,wsize=..." pushed the table past the right edge of the page."""
    return ",<wbr>".join(html.escape(part) for part in text.split(","))
