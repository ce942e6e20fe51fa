"""A session as a self-contained HTML file: per recipe and workload a chart (a bar at the median, every round as
a point beside it) drawn as an embedded PNG, the table of figures with each configuration's verdict against the
baseline and its CI, requested vs negotiated options, the A/A checks, and the recommendation."""

from __future__ import annotations

import base64
import html
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from nfstune.recipes.model import WORKLOADS, Recipe
from nfstune.store import Results
from nfstune.summary import aa_checks, aa_summary, is_paired, summarize_session, verdict_lines

HEADER = ("configuration", "median", "min", "max", "n", "against the baseline (95 % CI)", "requested",
          "negotiated (/proc/mounts)")  # fmt: skip
CSS = """body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}th{background:#eee}td.l{text-align:left}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}.warn{border:2px solid #b3261e;padding:.5em 1em}"""


def bar_chart_png(title: str, unit: str, bars: Sequence[tuple[str, float, Sequence[float]]]) -> bytes:
    """(label, median, every round's figure) as a PNG: a bar at the median and the rounds as points beside it (a
    strip plot), drawn with Qt offscreen (no display needed)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        # from the command line: draw offscreen, whether or not there is a display
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        QApplication(["nfstune-report"])
    width, height, left, bottom, top = 640, 300, 60, 50, 30
    image = QImage(width, height, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    p = QPainter(image)
    try:
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setFont(QFont("DejaVu Sans", 9))
        p.drawText(QRectF(0, 4, width, 20), Qt.AlignmentFlag.AlignCenter, f"{title} ({unit})")
        top_value = max((max(b[2], default=b[1]) for b in bars), default=1.0) * 1.1 or 1.0
        plot_h = height - bottom - top
        p.drawLine(left, height - bottom, width - 10, height - bottom)
        p.drawLine(left, top, left, height - bottom)
        for i in range(5):
            v = top_value * i / 4
            y = height - bottom - plot_h * i / 4
            p.drawText(QRectF(0, y - 8, left - 6, 16), Qt.AlignmentFlag.AlignRight, f"{v:.3g}")
        slot = (width - left - 20) / max(1, len(bars))
        for i, (label, median, points) in enumerate(bars):
            x = left + 10 + i * slot
            bar_h = plot_h * median / top_value
            p.fillRect(QRectF(x, height - bottom - bar_h, slot * 0.45, bar_h), QColor("#4a7fb5"))
            p.setPen(QPen(QColor("#222"), 1))
            p.setBrush(QColor("#e07b39"))
            for k, value in enumerate(points):  # spread sideways a little, so that equal figures stay visible
                px = x + slot * 0.55 + (k % 5) * min(7.0, slot * 0.08)
                p.drawEllipse(QPointF(px, height - bottom - plot_h * value / top_value), 3, 3)
            p.drawText(QRectF(x - slot * 0.2, height - bottom + 4, slot, 30), Qt.AlignmentFlag.AlignHCenter, label)
    finally:
        p.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    cast(Any, image).save(buffer, "PNG")  # the stubs say bytes; PySide6 6.11 accepts only str here
    return bytes(data.data())


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
                f"<td class=l>{e(c.requested or '(defaults)')}</td><td class=l>{e(c.negotiated)}</td></tr>"
            )
        png = base64.b64encode(bar_chart_png(f"{g.recipe}: {g.workload}", w.unit, bars)).decode()
        better = "higher" if w.higher_is_better else "lower"
        img = f"<img alt='{e(g.recipe)} {e(g.workload)}' src='data:image/png;base64,{png}'>"
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
