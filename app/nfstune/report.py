"""A session as a self-contained HTML file: per recipe and workload a chart (a bar at the median, every round as
a point beside it) as inline SVG (report_chart.py), the table of figures with each configuration's verdict against the
baseline and its CI, requested vs negotiated options, the A/A checks, and the recommendation."""

from __future__ import annotations

import html
import time
from collections.abc import Mapping
from pathlib import Path

from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.report_chart import strip_chart_svg
from nfstune.store import Results
from nfstune.summary import aa_checks, aa_summary, is_paired, summarize_session, verdict_lines

HEADER = ("configuration", "median", "min", "max", "n", "against the baseline (95 % CI)", "requested",
          "negotiated (/proc/mounts)")  # fmt: skip
CSS = """body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}th{background:#eee}td.l{text-align:left}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}.warn{border:2px solid #b3261e;padding:.5em 1em}"""


def write_html(
    results: Results,
    session_id: int,
    path: Path,
    recommendation_text: str = "",
    recipes: Mapping[str, Recipe] | None = None,
) -> None:
    """`recipes` name each recipe's baseline, margin and expectations (the current recipes when None)."""
    data = results.session(session_id)
    if recipes is None:
        from nfstune.workflow import recipes_by_id

        recipes = recipes_by_id()
    e = html.escape
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(data["started_at"]))
    parts = [f"<!doctype html><meta charset=utf-8><title>nfstune session {session_id}</title><style>{CSS}</style>"]
    parts.append(f"<h1>nfstune session {session_id}</h1><p>{e(started)}, share {e(data['share'])}, "
                 f"scale {e(data['scale'])}, status <b>{e(data['status'])}</b></p>")  # fmt: skip
    groups = summarize_session(data, recipes)
    family = next((c.verdict.family for g in groups for c in g.configs if c.verdict is not None), 0)
    if family:
        how = "paired by round" if is_paired(data) else "unpaired (a session from before interleaved rounds)"
        parts.append(f"<p>Verdicts: {e(how)}; {family} comparisons corrected together (Holm).</p>")
    for g in groups:
        w = WORKLOADS[g.workload]
        rows, bars = [], []
        for c in g.configs:
            s = c.summary
            if s is None:
                continue
            bars.append((c.label, s.median, list(c.rounds.values())))
            verdict = "baseline" if c.label == g.baseline_label else " ".join(verdict_lines(c)) or "—"
            rows.append(
                f"<tr><td class=l>{e(c.label)}</td><td>{s.median:.3g}</td><td>{s.min:.3g}</td>"
                f"<td>{s.max:.3g}</td><td>{s.n}</td><td class=l>{e(verdict)}</td>"
                f"<td class=l>{e(c.requested.render() or '(defaults)')}</td>"
                f"<td class=l>{e(c.negotiated.render())}</td></tr>"
            )
        better = "higher" if w.higher_is_better else "lower"
        img = strip_chart_svg(f"{g.recipe}: {g.workload}", w.unit, bars)
        parts.append(f"<h2>{e(g.recipe)}: {e(w.title)}</h2><p>{e(w.unit)}, {better} is better; bars: median, "
                     f"points: every round; compared with {e(g.baseline_label)}</p>{img}")  # fmt: skip
        header = "".join(f"<th>{h}</th>" for h in HEADER)
        parts.append(f"<table><tr>{header}</tr>" + "".join(rows) + "</table>")
    checks = aa_checks(groups)
    if checks:
        parts.append(f"<h2>A/A checks</h2><p>{e(aa_summary(checks))}.</p><ul>")
        parts += [f"<li>{e(c.text)}</li>" for c in checks]
        parts.append("</ul>")
    if recommendation_text:
        parts.append(f"<h2>Recommendation</h2><pre>{e(recommendation_text)}</pre>")
    path.write_text("\n".join(parts) + "\n")
