"""The HTML report's two pictures carry the session's verdicts and ceilings: read from the SVG's marks' data, not
its pixels."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from nfstune.advice.outcome import session_outcome
from nfstune.report.html import session_html
from nfstune.results.ceilings import ceilings_of
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import shipped_recipes
from tests.unit.verdict_session import store_verdict_session

SVG = "{http://www.w3.org/2000/svg}"


def svgs(page: str, kind: str) -> list[ET.Element]:
    return [ET.fromstring(s) for s in re.findall(rf'<svg class="{kind}".*?</svg>', page, re.S)]


def test_the_reports_verdict_plot_and_limit_bars_are_the_sessions(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "s.sqlite3"))
    sid = store_verdict_session(results)
    recipes = shipped_recipes()
    page = session_html(results, sid, recipes)
    outcome = session_outcome(results, sid, recipes)

    (plot,) = svgs(page, "verdicts")
    verdicts = [c.verdict for g in outcome.groups for c in g.configs if c.verdict is not None]
    estimates = plot.findall(f"{SVG}path[@class='estimate']")
    intervals = plot.findall(f"{SVG}rect[@class='interval']")
    assert len(estimates) == len(intervals) == len(verdicts)
    for verdict, estimate, interval in zip(verdicts, estimates, intervals, strict=True):
        assert verdict.ratio is not None and verdict.ci is not None
        assert math.isclose(float(estimate.attrib["data-ratio"]), verdict.ratio, rel_tol=1e-5)
        assert math.isclose(float(interval.attrib["data-low"]), verdict.ci[0], rel_tol=1e-5)
        assert math.isclose(float(interval.attrib["data-high"]), verdict.ci[1], rel_tol=1e-5)
        assert estimate.attrib["data-kind"] == interval.attrib["data-kind"] == verdict.kind
    expected_same = [c.same_as_baseline is not None for g in outcome.groups for c in g.configs if c.verdict]
    assert [e.attrib["data-expected-same"] == "true" for e in estimates] == expected_same
    assert "same" in [t.text for t in plot.findall(f"{SVG}text[@class='tick']")]

    ceilings = ceilings_of(results.session(sid))
    charts = {chart.findtext(f"{SVG}title", "").split(" ")[0]: chart for chart in svgs(page, "limits")}
    figures = {d.workload: d.figure for d in outcome.findings.diagnoses}
    read = charts["seq-read"]
    assert [float(r.attrib["data-value"]) for r in read.findall(f"{SVG}rect")] == [
        float(f"{v:.6g}") for v in (figures["seq-read"], ceilings.network_from_server)
    ]
    assert [m.attrib["data-name"] for m in read.findall(f"{SVG}text[@class='missing']")] == ["server disk, cold read"]
    sync = [float(r.attrib["data-value"]) for r in charts["sync-4k"].findall(f"{SVG}rect")]
    assert sync == [float(f"{v:.6g}") for v in (figures["sync-4k"], ceilings.round_trip_ms, ceilings.sync_write_ms)]
