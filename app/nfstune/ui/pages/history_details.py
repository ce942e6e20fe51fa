"""What History's Details tab shows, as rich text: the selected session's figures and verdicts, rendered from its
outcome (advice.outcome, worked out on a worker thread), and two sessions compared (results.compare)."""

from __future__ import annotations

import html
from collections.abc import Sequence

from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import WORKLOADS
from nfstune.results.check_text import CheckShown
from nfstune.results.compare import ComparisonRow
from nfstune.results.hand_steps import TITLE as HAND_TITLE
from nfstune.results.hand_steps import hand_lines
from nfstune.results.run_options import negotiated_view
from nfstune.results.summary_text import beside_words, tail_lines
from nfstune.results.writeback import late_heading, late_starts
from nfstune.statistics.stats import format_value
from nfstune.statistics.verdict import Verdict, format_change
from nfstune.store import SessionRow
from nfstune.ui.pages.history_list import session_cells, started_text
from nfstune.ui.theme import text_colour
from nfstune.ui.verdicts import KIND_WORDS, verdict_sentence

DASH = "\u2013"  # an en dash: between the ends of a range, and in a cell with no figure
DETAILS_HEADER = (
    "Configuration",
    "Median",
    f"Min{DASH}max",
    "n",
    "CV",
    "Compared with the baseline",
    "Requested vs negotiated",
)
COMPARISON_HEADER = ("Recipe / workload", "Configuration", "A median", "B median", "B against A", "What it means")
TABLE_STYLE = "border='1' cellspacing='0' cellpadding='4'"


def _header_row(names: Sequence[str]) -> str:
    return "<tr>" + "".join(f"<th>{html.escape(n)}</th>" for n in names) + "</tr>"


def _figure(value: float | None, unit: str) -> str:
    return DASH if value is None else f"{format_value(value)} {unit}"


def details_html(row: SessionRow, outcome: SessionOutcome, check: CheckShown | None = None) -> str:
    """`row`: the session as the list shows it; `outcome`: its figures and verdicts; `check`: a check session's
    check, whose long sentences stand here (its picture leads). Built on the GUI thread: a caution's colour is the
    window's scheme's."""
    e = html.escape
    bad = text_colour("bad").name()
    groups = outcome.groups
    parts = [
        f"<h3>Session {row.id}: {e(row.status)}</h3>"
        f"<p>started {e(started_text(row.started_at))}, {e(session_cells(row)[3])}, share {e(row.share)}, "
        f"scale {e(row.scale)}, recipes {e(', '.join(row.recipes))}</p>"
    ]
    if row.message:
        parts.append(f"<p><b>{e(row.message)}</b></p>")
    if check is not None:
        parts.append(_check_html(check))
    if not groups:
        parts.append("<p>No measurements were stored for this session.</p>")
    by_hand = hand_lines(outcome.session.hand_steps)
    if by_hand:
        parts.append(f"<h4>{e(HAND_TITLE)}</h4><ul>" + "".join(f"<li>{e(line)}</li>" for line in by_hand) + "</ul>")
    late = late_starts(outcome.session.runs)
    for g in groups:
        better = "higher" if g.higher_is_better else "lower"
        parts.append(
            f"<h4>{e(g.recipe)}: {e(WORKLOADS[g.workload].title)}</h4>"
            f"<p>{e(g.unit)}, {better} is better; compared with "
            f"&ldquo;{e(g.baseline_label)}&rdquo;{f'; {e(g.judged_words)}' if g.judged_words else ''}</p>"
            f"<table {TABLE_STYLE}>{_header_row(DETAILS_HEADER)}"
        )
        for c in g.configs:
            s = c.summary
            options = negotiated_view(c.requested, c.negotiated)
            if c.export_options:
                options += f" · export {','.join(c.export_options)}"
            verdict = _verdict_html(c.verdict, baseline=c.label == g.baseline_label)
            verdict += "".join(f"<br>{e(line)}" for line in tail_lines(c))
            if s is None:
                cells = "<td colspan='4'>no completed repeats</td>"
            else:
                spread = f"{format_value(s.min)}{DASH}{format_value(s.max)}"
                figures = [_figure(s.median, g.unit), spread, str(s.n), f"{s.cv_percent:.1f} %"]
                cells = "".join(f"<td align='right'>{e(f)}</td>" for f in figures)
                beside = beside_words(g, c)
                if beside:  # a latency workload's mean and tail under its typical write
                    cells = cells.replace("</td>", f"<br><small>{e(beside)}</small></td>", 1)
            label = c.label if c.status in ("completed", None) else f"{c.label} ({c.status})"
            parts.append(f"<tr><td>{e(label)}</td>{cells}<td>{verdict}</td><td>{e(options)}</td></tr>")
        parts.append("</table>")
        started_late = late.get((g.recipe, g.workload), [])
        if started_late:  # a caution, in the colour of the comparison's "read with care"
            items = "".join(f"<li>{e(text)}</li>" for text in started_late)
            heading = f"<span style='color:{bad}'>{e(late_heading(len(started_late)))}:</span>"
            parts.append(f"<p>{heading}</p><ul>{items}</ul>")
    return "".join(parts)


def _check_html(check: CheckShown) -> str:
    e = html.escape
    parts = [f"<h4>{e(check.headline)}</h4>"]
    for title, lines in (
        ("Each workload", check.sentences),
        ("The ceilings measured again", check.moved),
        ("Verified in force first" if check.verified else "Nothing could be verified in force", check.verified),
        ("Notes", check.notes),
    ):
        if lines or title.startswith("Nothing"):
            parts.append(f"<p>{e(title)}:</p>" if lines else f"<p>{e(title)}.</p>")
        if lines:
            parts.append("<ul>" + "".join(f"<li>{e(line)}</li>" for line in lines) + "</ul>")
    return "".join(parts)


def _verdict_html(verdict: Verdict | None, *, baseline: bool) -> str:
    """The kind in words (bold for an effect), then the full sentence: a text view has room for it."""
    if baseline:
        return "baseline"
    if verdict is None:
        return DASH
    kind = html.escape(KIND_WORDS.get(verdict.kind, verdict.kind))
    return f"{f'<b>{kind}</b>' if verdict.effect else kind}: {html.escape(verdict_sentence(verdict))}"


def comparison_html(a: SessionRow, b: SessionRow, rows: Sequence[ComparisonRow]) -> str:
    """Built on the GUI thread: the caution's colour is the window's scheme's."""
    bad = text_colour("bad").name()
    e = html.escape
    parts = [
        f"<h3>Session {a.id} (A) and session {b.id} (B)</h3>"
        f"<p>A: {e(', '.join(session_cells(a)[1:5]))}<br>B: {e(', '.join(session_cells(b)[1:5]))}</p>"
        f"<table {TABLE_STYLE}>{_header_row(COMPARISON_HEADER)}"
    ]
    for r in rows:
        # the verdict's own estimate in its own words, so that this column and the sentence say one figure
        ratio = r.verdict.ratio if r.verdict is not None else None
        change = DASH if ratio is None else format_change(ratio)
        weight = " style='font-weight:bold'" if r.verdict is not None and r.verdict.effect else ""
        # a side that stopped early compares few rounds, and maybe not the same moment of the hosts
        caution = f"<br><span style='color:{bad}'>{e(r.caution)}: read with care</span>" if r.caution else ""
        parts.append(
            f"<tr><td>{e(r.recipe)} / {e(r.workload)}</td><td>{e(r.config_label)}</td>"
            f"<td align='right'>{e(_figure(r.median_a, r.unit))}</td>"
            f"<td align='right'>{e(_figure(r.median_b, r.unit))}</td><td align='right'>{change}</td>"
            f"<td{weight}>{e(r.text)}{caution}</td></tr>"
        )
    if not rows:
        parts.append("<tr><td colspan='6'>Neither session stored any measurement.</td></tr>")
    return "".join(parts) + "</table>"
