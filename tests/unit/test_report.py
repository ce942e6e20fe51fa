"""The HTML report: self-contained, with a real PNG chart per workload (a bar at the median, every round as a
point) and the figures in a table with each configuration's verdict and its CI."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from PySide6.QtGui import QColor, QImage

from nfstune.report import write_html
from nfstune.store import Results, open_store

POINT = QColor("#e07b39")


def point_pixels(image: QImage) -> int:
    return sum(
        1 for x in range(image.width()) for y in range(image.height()) if image.pixelColor(x, y).rgb() == POINT.rgb()
    )


def test_html_report_embeds_a_png_per_workload_and_the_figures(tmp_path: Path, qapp: object) -> None:
    r = Results(open_store(tmp_path / "s.sqlite3"))
    sid = r.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    for label, seconds in (("sync", [9.1, 8.4, 8.9]), ("async", [2.1, 1.9, 2.2])):
        run = r.start_run(sid, recipe="sync-vs-async", config_label=label, config={}, workload="small-files")
        r.set_run_options(run, requested="vers=4.2", negotiated="vers=4.2,rsize=131072", export=label)
        for i, s in enumerate(seconds):
            r.add_repeat(run, i, warmup=False, values={"tool": "tar", "bytes": 122880, "seconds": s, "ops": 30})
    r.end_session(sid, "completed")
    out = tmp_path / "report.html"
    write_html(r, sid, out, "Recommended: /export *(rw,sync)", recipes={})
    text = out.read_text()
    (png,) = re.findall(r"base64,([A-Za-z0-9+/=]+)", text)
    image = QImage.fromData(base64.b64decode(png))
    assert (image.width(), image.height()) == (640, 300)
    assert point_pixels(image) >= 6 * 10  # six rounds drawn as points of a dozen pixels each (none before)
    assert "<td>8.9</td>" in text and "<td>2.1</td>" in text  # medians
    assert "vers=4.2,rsize=131072" in text and "Recommended: /export *(rw,sync)" in text
    assert "against the baseline (95 % CI)" in text
    (row,) = [line for line in re.findall(r"<tr>.*?</tr>", text) if "<td class=l>async</td>" in line]
    assert re.search(r"<td class=l>async is 4\.\d+x faster than sync \(95 % CI [^<]*\)</td>", row), row
    assert "significant" not in text
    assert "http" not in text.replace("http-equiv", "")  # self-contained: nothing fetched
