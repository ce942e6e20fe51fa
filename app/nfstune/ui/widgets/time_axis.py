"""The live plot's time axis: seconds since the start, ticked at steps an admin counts in (30 s, 2 min, 10 min)
and each figure carrying its unit, so that the axis needs no title line of its own under the plots."""

from __future__ import annotations

import pyqtgraph as pg

STEPS_S = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200)
PX_PER_TICK = 80  # "10 min" in a small font, and room between two


def tick_step(span_s: float, pixels: float) -> float:
    """The smallest step whose ticks stand PX_PER_TICK apart or more."""
    wanted = span_s * PX_PER_TICK / max(pixels, 1.0)
    return float(next((step for step in STEPS_S if step >= wanted), STEPS_S[-1]))


def tick_words(value_s: float, step_s: float) -> str:
    if value_s < 0:
        return ""  # the view's padding left of the start
    if step_s >= 60:
        return f"{value_s / 60:g} min"
    return f"{value_s:g} s"


class TimeAxis(pg.AxisItem):
    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:  # noqa: N802, N803
        step = tick_step(abs(maxVal - minVal), size)
        minor = next((s for s in reversed(STEPS_S) if s < step and step % s == 0 and step / s <= 5), step / 2)
        return [(step, 0.0), (float(minor), 0.0)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        return [tick_words(v * scale, spacing * scale) for v in values]
