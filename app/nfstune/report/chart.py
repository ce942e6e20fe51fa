"""The HTML report's chart of one workload as inline SVG: a bar at each configuration's median and every round as a
point beside it (a strip plot), on an axis with round tick values. Plain text, so that `nfstune report` from a
terminal needs neither Qt nor a display, and the report stays one self-contained file whose charts scale and whose
labels can be searched and copied."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

WIDTH, HEIGHT = 640, 300
LEFT, RIGHT, TOP, BOTTOM = 60, 10, 30, 50
BAR, POINT = "#4a7fb5", "#e07b39"
TICKS = 4  # about this many steps on the value axis


def escape(text: str) -> str:
    """&, < and > as entities, as xml.sax.saxutils.escape writes them; not that function itself, which imports
    urllib.request and http.client with it: 40-60 ms of the desktop's start (issue 31)."""
    return html.escape(text, quote=False)


def nice_ticks(top: float, target: int) -> list[float]:
    """Ticks from 0 to at least `top` at a round step (1, 2, 2.5 or 5 times a power of ten), about `target` of
    them: 0, 2, 4, 6, 8 rather than 2.61, 5.22, 7.83. The desktop's chart (ui/widgets/result_chart.py) uses the
    same rule."""
    if not math.isfinite(top) or top <= 0:
        return [0.0, 1.0]
    raw = top / target
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * power >= raw)
    count = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(count + 1)]


def tick_text(value: float, step: float) -> str:
    """As few decimals as the value needs at the step's precision: 0, 0.5, 1, 1.5 (not 0.0, 1.0); 0, 2.5, 5."""
    decimals = 0
    while decimals < 9 and abs(round(step, decimals) - step) > 1e-9 * step:
        decimals += 1
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def svg_with_value_axis(
    title: str,
    size: tuple[int, int],
    plot: tuple[int, int, int, float],
    ticks: Sequence[float],
    y_of: Callable[[float], float],
) -> list[str]:
    """The start of a chart: the <svg> element's opening, its title (also written above the plot), and the value
    axis: a grid line and its figure at each of `ticks` (nice_ticks), and the axis line. `plot`: its left and right
    margins, its top and its baseline's y. The caller draws the rest, the baseline where it wants it in the order
    of painting, and closes the element."""
    width, height = size
    left, right, top, base_y = plot
    step = ticks[1] - ticks[0]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img">',
        f"<title>{escape(title)}</title>",
        f'<text x="{width / 2:g}" y="18" text-anchor="middle" font-size="12">{escape(title)}</text>',
    ]
    for value in ticks:
        y = y_of(value)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick_text(value, step)}</text>')
    parts.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base_y}" stroke="#222"/>')
    return parts


def strip_chart_svg(title: str, unit: str, bars: Sequence[tuple[str, float, Sequence[float]]]) -> str:
    """(label, median, every round's figure) as an <svg> element."""
    highest = max((max([median, *points]) for _, median, points in bars), default=1.0)
    ticks = nice_ticks(highest, TICKS)
    top_value = ticks[-1]
    plot_h = HEIGHT - BOTTOM - TOP
    base_y = HEIGHT - BOTTOM

    def y_of(value: float) -> float:
        return base_y - plot_h * max(0.0, value) / top_value

    parts = svg_with_value_axis(f"{title} ({unit})", (WIDTH, HEIGHT), (LEFT, RIGHT, TOP, base_y), ticks, y_of)
    slot = (WIDTH - LEFT - RIGHT - 10) / max(1, len(bars))
    for i, (label, median, points) in enumerate(bars):
        x = LEFT + 10 + i * slot
        parts.append(
            f'<rect class="median" x="{x:.1f}" y="{y_of(median):.1f}" width="{slot * 0.45:.1f}" '
            f'height="{base_y - y_of(median):.1f}" fill="{BAR}"><title>{escape(label)}: median '
            f"{median:.3g} {escape(unit)}</title></rect>"
        )
        for k, value in enumerate(points):  # spread sideways a little, so that equal figures stay visible
            px = x + slot * 0.55 + (k % 5) * min(7.0, slot * 0.08)
            parts.append(
                f'<circle class="round" cx="{px:.1f}" cy="{y_of(value):.1f}" r="3" fill="{POINT}" stroke="#222">'
                f"<title>{value:.3g}</title></circle>"
            )
        parts.append(f'<text x="{x + slot * 0.35:.1f}" y="{base_y + 16}" text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{base_y}" x2="{WIDTH - RIGHT}" y2="{base_y}" stroke="#222"/>')
    parts.append("</svg>")
    return "\n".join(parts)
