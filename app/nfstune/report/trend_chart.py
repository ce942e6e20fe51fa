"""The HTML report's trend of one workload as inline SVG: each session's headline figure at its date, joined by a
line, every round of it as a small dot (their spread), its 95 % interval as a bar where the rounds give one, and a
dashed line where the settings in force changed, numbered as the list under the chart says. Plain text, as
report/chart.py's charts: no Qt, no display."""

from __future__ import annotations

from collections.abc import Mapping

from nfstune.report.chart import escape, nice_ticks, svg_with_value_axis
from nfstune.results.trend import WorkloadTrend, day_text
from nfstune.statistics.stats import format_value

WIDTH, HEIGHT = 640, 210
LEFT, RIGHT, TOP, BOTTOM = 60, 24, 30, 34
LINE, POINT, OWN, MARK, ROUND = "#4a7fb5", "#4a7fb5", "#d9480f", "#7a7a7a", "#9bb7d4"
TICKS = 4


def trend_chart_svg(
    trend: WorkloadTrend, own_session: int | None = None, numbers: Mapping[int, int] | None = None
) -> str:
    """`own_session`: the report's session, drawn larger and in another colour; `numbers`: each marked session's
    number (results.trend.mark_numbers), the same on every chart (else the marks are numbered on this one)."""
    numbers = numbers or {m.session_id: n for n, m in enumerate(trend.marks, 1)}
    points = trend.points
    ticks = nice_ticks(max((v for p in points for v in p.values), default=1.0), TICKS)
    top_value = ticks[-1]
    base_y, plot_h = HEIGHT - BOTTOM, HEIGHT - BOTTOM - TOP
    first, last = (points[0].started_at, points[-1].started_at) if points else (0.0, 0.0)
    inner = WIDTH - LEFT - RIGHT - 20  # 10 px inside each end, so that the first and last points show whole

    def x_of(t: float) -> float:
        return LEFT + 10 + (inner * (t - first) / (last - first) if last > first else inner / 2)

    def y_of(value: float) -> float:
        return base_y - plot_h * min(max(0.0, value), top_value) / top_value

    better = "higher" if trend.higher_is_better else "lower"
    title = f"{trend.workload} ({trend.unit}, {better} is better)"
    parts = svg_with_value_axis(title, (WIDTH, HEIGHT), (LEFT, RIGHT, TOP, base_y), ticks, y_of)
    parts.append(f'<line x1="{LEFT}" y1="{base_y}" x2="{WIDTH - RIGHT}" y2="{base_y}" stroke="#222"/>')
    for mark in trend.marks:
        x, number = x_of(mark.started_at), numbers[mark.session_id]
        parts.append(
            f'<line class="mark" x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{base_y}" stroke="{MARK}" '
            f'stroke-dasharray="4 3"><title>{escape(mark.text)}</title></line>'
            f'<text x="{x + 3:.1f}" y="{TOP + 10}" fill="{MARK}">{number}</text>'
        )
    if len(points) > 1:
        line = " ".join(f"{x_of(p.started_at):.1f},{y_of(p.median):.1f}" for p in points)
        parts.append(f'<polyline class="trend" points="{line}" fill="none" stroke="{LINE}" stroke-width="1.5"/>')
    for p in points:
        x = x_of(p.started_at)
        parts += [f'<circle class="round" cx="{x:.1f}" cy="{y_of(v):.1f}" r="2" fill="{ROUND}"/>' for v in p.values]
        if p.ci is not None:
            parts.append(
                f'<line class="ci" x1="{x:.1f}" y1="{y_of(p.ci[0]):.1f}" x2="{x:.1f}" y2="{y_of(p.ci[1]):.1f}" '
                f'stroke="{LINE}" stroke-opacity="0.5" stroke-width="3"/>'
            )
        own = p.session_id == own_session
        parts.append(
            f'<circle class="{"own" if own else "point"}" cx="{x:.1f}" cy="{y_of(p.median):.1f}" '
            f'r="{5 if own else 3.5}" fill="{OWN if own else POINT}" stroke="#222">'
            f"<title>session {p.session_id}, {escape(day_text(p.started_at))}: {format_value(p.median)} "
            f"{escape(trend.unit)}</title></circle>"
        )
    if points:
        parts.append(f'<text x="{x_of(first):.1f}" y="{base_y + 16}" text-anchor="start">{_day(first)}</text>')
        if last > first:
            parts.append(f'<text x="{x_of(last):.1f}" y="{base_y + 16}" text-anchor="end">{_day(last)}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def _day(seconds: float) -> str:
    return escape(day_text(seconds))
