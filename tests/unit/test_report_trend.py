"""A session's report with its trend: the HTML report's Trend section (an SVG per workload, the changes listed, a
table of every session), `report --json`'s `trend` (valid against the schema) and `report --trend`'s text, from
sessions of one pair stored weeks apart in a real SQLite file."""

from __future__ import annotations

import json
import re
import statistics
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nfstune.recipes.loader import recipes_by_id
from nfstune.report.html import session_html
from nfstune.report.json_report import session_document
from nfstune.store import Results
from tests.unit.test_cli import nfstune
from tests.unit.test_cli_scripts import store
from tests.unit.test_report_json import VALIDATOR
from tests.unit.trend_sessions import DAY, LAB_NAS, UPGRADED_NAS, Clock, first_look, store_session, use_clock

SVG = "{http://www.w3.org/2000/svg}"
WEEKS = [
    {"seq-write": [31.0, 29.5], "sync-4k": [9.1, 8.7, 9.0, 8.8, 9.6, 9.2]},
    {"seq-write": [27.0, 28.0], "sync-4k": [9.4, 9.0, 9.5, 9.1, 9.3, 9.9]},
    {"seq-write": [36.0, 37.5], "sync-4k": [7.9, 8.1, 8.0, 8.3, 7.7, 8.2]},
]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return use_clock(monkeypatch)


def three_weeks(results: Results, clock: Clock) -> list[int]:
    """Three first looks a week apart; the NAS upgraded before the third."""
    ids = []
    for week, figures in enumerate(WEEKS):
        ids.append(store_session(results, first_look(figures), nas=UPGRADED_NAS if week == 2 else LAB_NAS))
        clock.now += 7 * DAY
    return ids


def trend_charts(text: str) -> dict[str, ET.Element]:
    section = text.partition("<h2>Trend</h2>")[2]
    charts = [ET.fromstring(svg) for svg in re.findall(r"<svg .*?</svg>", section, flags=re.S)]
    return {(c.findtext(f"{SVG}title") or "").split(" ")[0]: c for c in charts}


def test_the_html_report_draws_the_pairs_sessions_up_to_it_with_the_changes(tmp_path: Path, clock: Clock) -> None:
    results = store(tmp_path)
    first, second, third = three_weeks(results, clock)
    text = session_html(results, third, recipes_by_id())
    charts = trend_charts(text)
    assert list(charts) == ["seq-write", "sync-4k"]
    write = charts["seq-write"]
    circles = [c for c in write.iter(f"{SVG}circle") if c.get("class") != "round"]
    assert [c.get("class") for c in circles] == ["point", "point", "own"]  # the report's own session stands out
    heights = [float(c.get("cy", "0")) for c in circles]
    medians = [statistics.median(week["seq-write"]) for week in WEEKS]
    assert sorted(range(3), key=heights.__getitem__) == sorted(range(3), key=lambda i: -medians[i])  # higher: up
    xs = [float(c.get("cx", "0")) for c in circles]
    assert xs[0] < xs[1] < xs[2] and xs[2] - xs[1] == pytest.approx(xs[1] - xs[0])  # by date: a week apart each
    (mark,) = [line for line in write.iter(f"{SVG}line") if line.get("class") == "mark"]
    assert float(mark.get("x1", "0")) == pytest.approx(xs[2])
    assert "NAS kernel" in (mark.findtext(f"{SVG}title") or "")
    assert [c.get("class") for c in write.iter(f"{SVG}circle")].count("round") == 6  # 2 rounds each
    assert not [line for line in write.iter(f"{SVG}line") if line.get("class") == "ci"]  # too few for an interval
    sync = charts["sync-4k"]
    bars = [line for line in sync.iter(f"{SVG}line") if line.get("class") == "ci"]
    assert len(bars) == 3  # 6 rounds each: the median's interval, from the lowest round to the highest
    first_x = bars[0].get("x1")
    first_rounds = [float(c.get("cy", "0")) for c in sync.iter(f"{SVG}circle") if c.get("cx") == first_x]
    assert sorted(float(bars[0].get(end, "0")) for end in ("y1", "y2")) == [min(first_rounds), max(first_rounds)]
    assert f"<li value=1>session {third}, " in text and "NAS nfs-utils 2.6.2 \u2192 2.8.3" in text
    rows = re.findall(r"<tr[^>]*><td class=n>(\d+)</td>", text.partition("<h2>Trend</h2>")[2])
    assert rows == [str(first), str(second), str(third)]


def test_an_earlier_sessions_report_ends_at_it_and_one_session_has_no_trend(tmp_path: Path, clock: Clock) -> None:
    results = store(tmp_path)
    first, second, _ = three_weeks(results, clock)
    charts = trend_charts(session_html(results, second, recipes_by_id()))
    circles = [c for c in charts["seq-write"].iter(f"{SVG}circle") if c.get("class") != "round"]
    assert [c.get("class") for c in circles] == ["point", "own"]
    assert not [line for line in charts["seq-write"].iter(f"{SVG}line") if line.get("class") == "mark"]
    assert "<h2>Trend</h2>" not in session_html(results, first, recipes_by_id())


def test_the_json_reports_trend_is_valid_and_holds_the_points_and_changes(tmp_path: Path, clock: Clock) -> None:
    results = store(tmp_path)
    first, _, third = three_weeks(results, clock)
    document = session_document(results, third, recipes_by_id())
    VALIDATOR.validate(document)
    write = next(t for t in document["trend"] if t["workload"] == "seq-write")
    assert [p["median"] for p in write["points"]] == [statistics.median(w["seq-write"]) for w in WEEKS]
    assert write["points"][0]["settings"]["NAS kernel"] == "6.1.0-56-cloud-amd64"
    assert [p["values"] for p in write["points"]] == [w["seq-write"] for w in WEEKS]
    assert all(p["ci_low"] is None for p in write["points"])  # 2 rounds: too few to bound a median
    sync = next(t for t in document["trend"] if t["workload"] == "sync-4k")
    assert [(p["ci_low"], p["ci_high"]) for p in sync["points"]] == [
        (min(w["sync-4k"]), max(w["sync-4k"])) for w in WEEKS
    ]
    (change,) = write["changes"]
    assert change["session"] == third
    assert [c["setting"] for c in change["changes"]] == ["NAS system", "NAS kernel", "NAS nfs-utils"]
    single = session_document(results, first, recipes_by_id())
    VALIDATOR.validate(single)
    assert [len(t["points"]) for t in single["trend"]] == [1, 1] and not any(t["changes"] for t in single["trend"])


def test_report_trend_prints_it_after_the_text_report(tmp_path: Path, clock: Clock) -> None:
    results = store(tmp_path)
    first, _, third = three_weeks(results, clock)
    plain = nfstune(tmp_path, "report", str(third))
    assert plain.returncode == 0 and "Trend" not in plain.stdout
    result = nfstune(tmp_path, "report", str(third), "--trend")
    assert result.returncode == 0, result.stderr
    text = result.stdout.partition("\nTrend: ")[2]
    assert text.startswith("the last 3 completed sessions of the same server, client and share, oldest first")
    lines = text.splitlines()
    at = lines.index("sync-4k (ms, lower is better; each session's baseline median)")
    # these sessions' sync-4k repeats kept no percentiles: the whole line is of their mean, and says so
    assert lines[at + 1] == "  judged by the mean: stored before nfstune kept percentiles"
    at += 1
    assert [line.split()[0] for line in lines[at + 1 :] if not line.startswith("      ")][:3] == [
        str(first),
        str(first + 1),
        str(third),
    ]
    assert lines[at + 3].startswith("      changed: NAS system Debian GNU/Linux 12 (bookworm) \u2192 ")
    assert lines[at + 4].endswith("<- this session")
    alone = nfstune(tmp_path, "report", str(first), "--trend")  # its trend ends at it: no session before
    assert alone.stdout.rstrip().endswith(
        "Trend: none yet; another completed session of the same server, client and share makes one"
    )
    assert json.loads(nfstune(tmp_path, "report", str(first), "--json", "-").stdout)["trend"]
