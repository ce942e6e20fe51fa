"""The desktop's two pictures for the HTML report, as SVG: the verdict plot (a row per comparison, its ratio and
interval on a log axis against the band of its margin, coloured by its verdict) and what limits each workload (its
figure against each ceiling). Drawn from the same data as the desktop's (results.verdict_rows, results.limit_bars);
each mark carries its value in data- attributes and a <title>, so that a reader's hover and a test read the
figures, not the pixels. Pure."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape

from nfstune.advice.outcome import SessionOutcome
from nfstune.recipes.model import Recipe
from nfstune.results.limit_bars import LimitBars, file_count, limit_bars, stored_ceilings
from nfstune.results.verdict_rows import (
    SHOWN_RANGE,
    VerdictRow,
    corrected_for,
    margins_of,
    ratio_span,
    ratio_ticks,
    verdict_rows,
)

KIND_COLOURS = {  # as the desktop's verdict plot (ui/widgets/verdict_plot.py)
    "faster": "#1b7f2a",
    "slower": "#b3261e",
    "same": "#1f5fa0",
    "not settled": "#8a8a8a",
    "unreliable": "#a33c00",
}
WIDTH = 820
NAMES = 340  # px of the rows' names
RIGHT = 20
ROW = 24
TOP = 30
AXIS = 44  # px under the rows: the ticks' words and the axis' own
CHAR = 6.2  # px a character of the 11 px font takes, about: enough to keep the ticks' words apart
FIGURE, BOUND, LIMIT = "#1f5fa0", "#a0a0a0", "#d9480f"
BARS_WIDTH, BAR_NAMES, BAR_ROW = 420, 180, 22


def _g(value: float) -> str:
    return f"{value:.6g}"


def verdict_plot_svg(rows: Sequence[VerdictRow]) -> str:
    """'' without a comparison."""
    if not rows:
        return ""
    low, high = ratio_span(rows)
    reach = 1.08 * max(-math.log10(low), math.log10(high))  # "same" in the middle, as on the desktop
    plot_w = WIDTH - NAMES - RIGHT
    height = TOP + ROW * len(rows) + AXIS

    def x_of(ratio: float) -> float:
        # an interval wider than the axis runs to its end (ratio_span stops a very wide one squeezing the rest)
        position = min(max(math.log10(min(max(ratio, SHOWN_RANGE[0]), SHOWN_RANGE[1])), -reach), reach)
        return NAMES + plot_w * (position + reach) / (2 * reach)

    title = "The verdicts: each configuration against the one it is compared with"
    parts = [
        f'<svg class="verdicts" xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11" role="img">',
        f"<title>{escape(title)}</title>",
    ]
    bottom = TOP + ROW * len(rows)
    parts.append(
        f'<line x1="{x_of(1):.1f}" y1="{TOP}" x2="{x_of(1):.1f}" y2="{bottom}" stroke="#777" stroke-dasharray="4 3"/>'
    )
    for i, row in enumerate(rows):
        y = TOP + ROW * i + ROW / 2
        margin = 1 + row.margin_percent / 100
        name = row.title + ("  [A/A]" if row.expected_same else "")
        parts.append(f'<text x="{NAMES - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(name)}</text>')
        parts.append(
            f'<rect class="band" x="{x_of(1 / margin):.1f}" y="{y - ROW * 0.42:.1f}" '
            f'width="{x_of(margin) - x_of(1 / margin):.1f}" height="{ROW * 0.84:.1f}" fill="#1f5fa0" '
            f'fill-opacity="0.16" data-margin-percent="{_g(row.margin_percent)}"/>'
        )
        colour = KIND_COLOURS.get(row.kind, "#202020")
        data = f'data-kind="{escape(row.kind)}" data-expected-same="{str(row.expected_same).lower()}"'
        if row.low is not None and row.high is not None:
            parts.append(
                f'<rect class="interval" x="{x_of(row.low):.1f}" y="{y - 4:.1f}" '
                f'width="{max(1.0, x_of(row.high) - x_of(row.low)):.1f}" height="8" fill="{colour}" {data} '
                f'data-low="{_g(row.low)}" data-high="{_g(row.high)}"><title>{escape(row.text)}</title></rect>'
            )
        if row.ratio is None:
            parts.append(
                f'<text x="{x_of(1):.1f}" y="{y + 4:.1f}" text-anchor="middle" fill="#505050" {data}>'
                "too few rounds for an estimate</text>"
            )
            continue
        x = x_of(row.ratio)
        parts.append(
            f'<path class="estimate" d="M{x:.1f} {y - 6:.1f} L{x + 6:.1f} {y:.1f} L{x:.1f} {y + 6:.1f} '
            f'L{x - 6:.1f} {y:.1f} Z" fill="{colour}" stroke="#202020" {data} data-ratio="{_g(row.ratio)}">'
            f"<title>{escape(row.text)}</title></path>"
        )
    parts.append(f'<line x1="{NAMES}" y1="{bottom}" x2="{WIDTH - RIGHT}" y2="{bottom}" stroke="#222"/>')
    kept: list[tuple[float, str]] = []
    for ratio, words in sorted(ratio_ticks(10**-reach, 10**reach), key=lambda t: (t[0] != 1, -abs(math.log10(t[0])))):
        if all(abs(x_of(ratio) - x_of(r)) >= (len(words) + len(w)) * CHAR / 2 + 10 for r, w in kept):
            kept.append((ratio, words))
    for ratio, words in sorted(kept):
        parts.append(
            f'<text class="tick" x="{x_of(ratio):.1f}" y="{bottom + 16}" text-anchor="middle" '
            f'data-ratio="{_g(ratio)}">{escape(words)}</text>'
        )
    parts.append(
        f'<text x="{NAMES + plot_w / 2:.1f}" y="{bottom + 36}" text-anchor="middle">← x slower | x faster →</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def limit_bars_svg(bars: LimitBars) -> str:
    """A workload's figure against each bound, a bar each; a bound not measured says so."""
    values = [(f"{bars.label} (median)", bars.figure), *((b.name, b.value) for b in bars.bars)]
    top = max((v for _, v in values if v is not None), default=1.0)
    height = TOP + BAR_ROW * len(values) + 8
    plot_w = (BARS_WIDTH - BAR_NAMES - 10) / 1.6  # the rest for the values' words
    held = f": held by the {bars.bottleneck}" if bars.bottleneck else ""
    unit = "MB/s" if bars.ceiling else "ms each"
    title = f"{bars.workload} ({unit}){held}"
    parts = [
        f'<svg class="limits" xmlns="http://www.w3.org/2000/svg" width="{BARS_WIDTH}" height="{height}" '
        f'viewBox="0 0 {BARS_WIDTH} {height}" font-family="sans-serif" font-size="11" role="img">',
        f"<title>{escape(title)}</title>",
        f'<text x="8" y="18" font-size="12">{escape(title)}</text>',
    ]
    measured = [(v, i) for i, (_, v) in enumerate(values) if i and v is not None]
    limit = None
    if bars.bottleneck and measured:
        limit = (min(measured) if bars.ceiling else max(measured))[1]
    for i, (name, value) in enumerate(values):
        y = TOP + BAR_ROW * i
        parts.append(f'<text x="{BAR_NAMES - 6}" y="{y + 14}" text-anchor="end">{escape(name)}</text>')
        if value is None:
            parts.append(
                f'<text class="missing" x="{BAR_NAMES + 4}" y="{y + 14}" data-name="{escape(name)}">not measured</text>'
            )
            continue
        width = plot_w * value / top
        colour = FIGURE if i == 0 else (LIMIT if i == limit else BOUND)
        parts.append(
            f'<rect class="{"figure" if i == 0 else "bound"}" x="{BAR_NAMES}" y="{y + 3}" width="{width:.1f}" '
            f'height="{BAR_ROW - 6}" fill="{colour}" data-name="{escape(name)}" data-value="{_g(value)}"/>'
        )
        parts.append(f'<text x="{BAR_NAMES + width + 4:.1f}" y="{y + 14}">{value:.3g} {escape(bars.unit)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def pictures_html(outcome: SessionOutcome, recipes: Mapping[str, Recipe]) -> list[str]:
    """The two pictures under the answer, as the desktop's Results page leads with them; [] when neither has data."""
    session = outcome.session
    rows = verdict_rows(outcome.groups, margins_of(session, recipes))
    plot = verdict_plot_svg(rows)
    bars = limit_bars(outcome.findings.diagnoses, stored_ceilings(session), file_count(session))
    parts = []
    if plot:
        legend = " ".join(f'<span style="color: {c}">■</span> {escape(k)}' for k, c in KIND_COLOURS.items())
        caption = (
            f"{legend}. Shaded: within the recipe's margin, no difference that matters; ◆ the estimate, bar: its "
            f"95 % CI (corrected for {corrected_for(rows)}); [A/A]: expected to measure the same."
        )
        parts.append(f"<h2>The verdicts</h2><figure>{plot}<figcaption>{caption}</figcaption></figure>")
    if bars:
        charts = "".join(limit_bars_svg(b) for b in bars)
        parts.append(f"<h2>What limits each workload, in bars</h2><figure>{charts}</figure>")
    return parts
