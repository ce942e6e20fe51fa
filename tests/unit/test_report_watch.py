"""The report's Trend section lists the watch's change points (HTML and `report --trend`), and `report --json`
carries them, on a real store."""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from nfstune.cli.sessions import trend_text
from nfstune.report.json_report import session_document
from nfstune.report.trend import session_change_points, trend_html
from nfstune.store import Results, open_store
from tests.unit.test_report_json import VALIDATOR
from tests.unit.trend_sessions import shipped_recipes, use_clock
from tests.unit.watch_sessions import FAST, SLOW, store_watch_series


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def test_the_trend_section_lists_the_change_point_with_its_likely_cause(
    results: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = store_watch_series(results, use_clock(monkeypatch), slower_from=4)
    trends, change_points = session_change_points(results, ids[-1], shipped_recipes())
    page = trend_html(trends, ids[-1], change_points)
    assert "Change points: A change point is the session from which a figure moved by 20 % or more" in page
    assert f"From session {ids[3]} (" in page and "likely cause: the network measured 7.1x slower" in page
    lines = trend_text(results, ids[-1], shipped_recipes())
    at = lines.index("Change points:")
    assert lines[at + 1].startswith(f"  From session {ids[3]} (") and "seq-read 47 % slower" in lines[at + 1]
    # the report of a session before the change ends there: nothing moved yet
    before_trends, before_points = session_change_points(results, ids[2])
    assert before_points == [] and "No change point" in trend_html(before_trends, ids[2], before_points)


def test_unchanged_sessions_list_no_change_point(results: Results, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = store_watch_series(results, use_clock(monkeypatch), slower_from=None)
    trends, change_points = session_change_points(results, ids[-1])
    assert change_points == []
    assert "No change point: no figure moved by 20 % or more and stayed there." in trend_html(trends, ids[-1])


def test_the_json_report_carries_the_change_point_with_its_ratios_and_likely_cause(
    results: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = store_watch_series(results, use_clock(monkeypatch), slower_from=4)
    document = session_document(results, ids[-1], shipped_recipes())
    VALIDATOR.validate(document)
    (change,) = document["change_points"]
    assert change["session"] == ids[3]
    moved = {m["name"]: m for m in change["workloads"]}
    assert sorted(moved) == ["seq-read", "seq-write"]
    for name in moved:  # higher is better (MB/s): the ratio is after over before, the link's 100mbit against its own
        expected = statistics.mean(SLOW[name]) / statistics.mean(FAST[name])
        assert moved[name]["ratio"] == pytest.approx(expected, rel=0.05) and moved[name]["unit"] == "MB/s"
    assert moved["seq-read"]["change"] == "47 % slower"
    network = {"the network (client to server)", "the network (server to client)"}
    assert {m["name"] for m in change["ceilings"]} >= network
    assert change["likely_cause"].startswith("the network measured 7.1x slower (client to server)")
    # a session before the change: its report's sessions end there, nothing moved yet
    assert session_document(results, ids[2], shipped_recipes())["change_points"] == []
