"""A session as a self-contained HTML file: per recipe and workload a bar chart (median, with min-max as error
bars) drawn as an embedded PNG, the table of figures, requested vs negotiated options, and the recommendation."""

from __future__ import annotations

import base64
import html
import os
import time
from pathlib import Path
from typing import Any, cast

from nfstune.bench.stats import summarize
from nfstune.engine import stored_value
from nfstune.recipes.model import WORKLOADS
from nfstune.store import Results

HEADER = ("configuration", "median", "min", "max", "n", "CV", "requested", "negotiated (/proc/mounts)")
CSS = """body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}th{background:#eee}td.l{text-align:left}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}.warn{border:2px solid #b3261e;padding:.5em 1em}"""


def bar_chart_png(title: str, unit: str, bars: list[tuple[str, float, float, float]]) -> bytes:
    """(label, median, min, max) bars as a PNG, drawn with Qt offscreen (no display needed)."""
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
        top_value = max((b[3] for b in bars), default=1.0) * 1.1 or 1.0
        plot_h = height - bottom - top
        p.drawLine(left, height - bottom, width - 10, height - bottom)
        p.drawLine(left, top, left, height - bottom)
        for i in range(5):
            v = top_value * i / 4
            y = height - bottom - plot_h * i / 4
            p.drawText(QRectF(0, y - 8, left - 6, 16), Qt.AlignmentFlag.AlignRight, f"{v:.3g}")
        slot = (width - left - 20) / max(1, len(bars))
        for i, (label, median, low, high) in enumerate(bars):
            x = left + 10 + i * slot
            bar_h = plot_h * median / top_value
            p.fillRect(QRectF(x, height - bottom - bar_h, slot * 0.6, bar_h), QColor("#4a7fb5"))
            cx = x + slot * 0.3
            p.setPen(QPen(QColor("#222"), 1.5))
            y_low, y_high = height - bottom - plot_h * low / top_value, height - bottom - plot_h * high / top_value
            p.drawLine(QPointF(cx, y_low), QPointF(cx, y_high))
            p.drawLine(QPointF(cx - 5, y_low), QPointF(cx + 5, y_low))
            p.drawLine(QPointF(cx - 5, y_high), QPointF(cx + 5, y_high))
            p.drawText(QRectF(x - slot * 0.2, height - bottom + 4, slot, 30), Qt.AlignmentFlag.AlignHCenter, label)
    finally:
        p.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    cast(Any, image).save(buffer, "PNG")  # the stubs say bytes; PySide6 6.11 accepts only str here
    return bytes(data.data())


def write_html(results: Results, session_id: int, path: Path, recommendation_text: str = "") -> None:
    data = results.session(session_id)
    e = html.escape
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(data["started_at"]))
    parts = [f"<!doctype html><meta charset=utf-8><title>nfstune session {session_id}</title><style>{CSS}</style>"]
    parts.append(f"<h1>nfstune session {session_id}</h1><p>{e(started)}, share {e(data['share'])}, "
                 f"scale {e(data['scale'])}, status <b>{e(data['status'])}</b></p>")  # fmt: skip
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in data["runs"]:
        groups.setdefault((run["recipe"], run["workload"]), []).append(run)
    for (recipe, workload), runs in groups.items():
        w = WORKLOADS[workload]
        rows, bars = [], []
        for run in runs:
            vals = [stored_value(workload, r) for r in run["repeats"] if not r["warmup"]]
            if not vals:
                continue
            s = summarize(vals)
            bars.append((run["config_label"], s.median, s.min, s.max))
            rows.append(
                f"<tr><td class=l>{e(run['config_label'])}</td><td>{s.median:.3g}</td><td>{s.min:.3g}</td>"
                f"<td>{s.max:.3g}</td><td>{s.n}</td><td>{s.cv_percent:.1f} %</td>"
                f"<td class=l>{e(run['requested_options'] or '(defaults)')}</td>"
                f"<td class=l>{e(run['negotiated_options'] or '')}</td></tr>"
            )
        png = base64.b64encode(bar_chart_png(f"{recipe}: {workload}", w.unit, bars)).decode()
        better = "higher" if w.higher_is_better else "lower"
        img = f"<img alt='{e(recipe)} {e(workload)}' src='data:image/png;base64,{png}'>"
        parts.append(f"<h2>{e(recipe)}: {e(w.title)}</h2><p>{e(w.unit)}, {better} is better; bars: median, "
                     f"whiskers: min and max</p>{img}")  # fmt: skip
        header = "".join(f"<th>{h}</th>" for h in HEADER)
        parts.append(f"<table><tr>{header}</tr>" + "".join(rows) + "</table>")
    if recommendation_text:
        parts.append(f"<h2>Recommendation</h2><pre>{e(recommendation_text)}</pre>")
    path.write_text("\n".join(parts) + "\n")
