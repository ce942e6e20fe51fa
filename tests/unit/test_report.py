"""The HTML report: self-contained, with an inline SVG chart per workload (a bar at the median, every round as a
point) drawn without Qt, and the figures in a table with each configuration's verdict and its CI."""

from __future__ import annotations

import html
import itertools
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nfstune.advice.session import CurrentConfig, keep_current
from nfstune.report.chart import TICKS, nice_ticks, strip_chart_svg
from nfstune.report.html import write_html
from nfstune.store import Results, open_store

SVG = "{http://www.w3.org/2000/svg}"


def session(
    path: Path, labels: tuple[str, str] = ("sync", "async"), recipe: str = "sync-vs-async"
) -> tuple[Results, int]:
    r = Results(open_store(path))
    sid = r.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    for label, seconds in zip(labels, ([9.1, 8.4, 8.9], [2.1, 1.9, 2.2]), strict=True):
        run = r.start_run(sid, recipe=recipe, config_label=label, config={}, workload="small-files")
        r.set_run_options(run, requested="vers=4.2", negotiated="vers=4.2,rsize=131072", export=label)
        for i, s in enumerate(seconds):
            r.add_repeat(run, i, warmup=False, values={"tool": "tar", "bytes": 122880, "seconds": s, "ops": 30})
        r.end_run(run, "completed")
    r.end_session(sid, "completed")
    return r, sid


def charts(text: str) -> list[ET.Element]:
    """The workloads' strip charts (the verdict plot and the limit bars open with their class)."""
    return [ET.fromstring(svg) for svg in re.findall(r"<svg xmlns.*?</svg>", text, flags=re.S)]


def test_html_report_draws_an_svg_per_workload_and_the_figures(tmp_path: Path) -> None:
    r, sid = session(tmp_path / "s.sqlite3")
    out = tmp_path / "report.html"
    write_html(r, sid, out, recipes={})
    text = out.read_text()
    (chart,) = charts(text)
    bars = {b.findtext(f"{SVG}title", "").split(":")[0]: b for b in chart.iter(f"{SVG}rect")}
    assert set(bars) == {"sync", "async"}
    heights = {label: float(b.get("height", "0")) for label, b in bars.items()}
    assert heights["sync"] / heights["async"] == pytest.approx(8.9 / 2.1, rel=0.02)  # bars at the medians
    points = [float(c.get("cy", "0")) for c in chart.iter(f"{SVG}circle")]
    assert len(points) == 6  # every round a point
    assert "<td class=n>8.90</td>" in text and "<td class=n>2.10</td>" in text  # medians
    assert "<td class=opts>vers=4.2,<wbr>rsize=131072</td>" in text  # may wrap after a comma, reads the same
    assert "against the baseline (95 % CI)" in text
    (row,) = [row for row in re.findall(r"<tr>.*?</tr>", text) if "<td>async</td>" in row]
    assert re.search(r"<td class=faster>async is 4\.\d+x faster than sync \(95 % CI [^<]*\)</td>", row), row
    assert "<td class=opts>async</td>" in row  # the server's export during the run, beside the client's mount
    assert "significant" not in text
    assert "data:image" not in text
    assert "http" not in text.replace("http-equiv", "").replace("http://www.w3.org/2000/svg", "")  # self-contained


def test_the_report_holds_the_recommendation_with_reasons_and_the_async_warning(tmp_path: Path) -> None:
    r, sid = session(tmp_path / "s.sqlite3")
    exports = "# the NAS\n/export 192.168.1.0/24(ro,fsid=7,async,no_subtree_check)\n"
    fstab = "nas:/export /srv/nas nfs vers=4.2,noatime 0 0\n"
    keep_current(r, sid, CurrentConfig({"/etc/exports": exports}, fstab), server="nas")
    out = tmp_path / "report.html"
    write_html(r, sid, out, recipes={})
    text = html.unescape(re.sub(r"<[^>]+>", " ", out.read_text()))
    # the admin's own line with only the tuned knob changed: still read-only, still fsid=7, now sync
    assert "/export 192.168.1.0/24(ro,fsid=7,sync,no_subtree_check)" in text
    assert "nas:/export /srv/nas nfs vers=4.2,noatime 0 0" in text  # the fstab entry, kept in place
    assert "NOT recommended by default: async" in text
    assert "violate the NFS protocol" in text  # exports(5) quoted
    assert re.search(r"small-files: async is 4\.\d+x faster than sync", text)


def test_a_report_without_a_kept_configuration_says_why_there_is_no_recommendation(tmp_path: Path) -> None:
    r, sid = session(tmp_path / "s.sqlite3")
    out = tmp_path / "report.html"
    write_html(r, sid, out, recipes={})
    assert "No recommendation: this session did not keep the server&#x27;s exports" in out.read_text()


def test_the_report_lists_the_ceilings_and_the_recipe_notes(tmp_path: Path) -> None:
    from nfstune.recipes.loader import recipes_by_id

    r, sid = session(tmp_path / "s.sqlite3", ("rsize=1M", "rsize=128K"), recipe="block-size")
    r.add_baseline(sid, kind="disk", direction="write", mb_per_s=123.4, seconds=8.0, size=10**9, raw="")
    out = tmp_path / "report.html"
    write_html(r, sid, out, recipes={"block-size": recipes_by_id()["block-size"]})
    text = html.unescape(re.sub(r"<[^>]+>", " ", out.read_text()))
    assert re.search(r"server disk write\s+123 MB/s", text)
    assert "The Linux client never uses more than 1 MiB" in text  # block-size's unconditional note


def test_the_axis_has_round_ticks_that_cover_every_point(tmp_path: Path) -> None:
    r, sid = session(tmp_path / "s.sqlite3")
    out = tmp_path / "report.html"
    write_html(r, sid, out, recipes={})
    (chart,) = charts(out.read_text())
    ticks = [float(t.text or "") for t in chart.iter(f"{SVG}text") if re.fullmatch(r"[\d.]+", t.text or "")]
    assert ticks[0] == 0 and ticks[-1] >= 9.1 and 3 <= len(ticks) <= 7
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    (step,) = steps  # evenly spaced
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert round(mantissa, 9) in (1, 2, 2.5, 5)


@pytest.mark.parametrize(
    ("top", "ticks"),
    [(10.4, [0, 5, 10, 15]), (9.1, [0, 2.5, 5, 7.5, 10]), (0.9, [0, 0.25, 0.5, 0.75, 1]), (4, [0, 1, 2, 3, 4])],
)
def test_nice_ticks(top: float, ticks: list[float]) -> None:
    assert nice_ticks(top, TICKS) == ticks


def test_labels_are_escaped_and_the_chart_is_well_formed() -> None:
    svg = strip_chart_svg("a <b> & c", "MB/s", [("rsize=<128K> & co", 3.0, [2.5, 3.5])])
    chart = ET.fromstring(svg)
    texts = [t.text for t in chart.iter(f"{SVG}text")]
    assert "rsize=<128K> & co" in texts and "a <b> & c (MB/s)" in texts


def test_the_report_needs_no_qt(tmp_path: Path) -> None:
    """`nfstune report` runs from a terminal: writing the HTML loads neither PySide6 nor pyqtgraph."""
    r, sid = session(tmp_path / "s.sqlite3")
    del r
    code = (
        "import sys\nfrom pathlib import Path\nfrom nfstune.report.html import write_html\n"
        "from nfstune.store import Results, open_store\n"
        f"write_html(Results(open_store(Path({str(tmp_path / 's.sqlite3')!r}))), {sid}, "
        f"Path({str(tmp_path / 'r.html')!r}), recipes={{}})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]" and (tmp_path / "r.html").read_text().count("<svg xmlns") == 1
