"""The change-point rule (statistics/change_points.py) on the sessions the lab measured (tests/captures/watch/:
six unchanged first looks; three, then three on a link shaped to 100mbit) and on series built to sit at each of
its limits: the least change, one odd session, a dip that came back, a change seen by one session only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nfstune.results.trend import workload_trends
from nfstune.results.watch import open_regression, session_changes
from nfstune.statistics.change_points import change_points

CAPTURES = Path(__file__).parent.parent / "captures" / "watch"


def captured(name: str) -> list[dict[str, Any]]:
    return list(json.loads((CAPTURES / f"{name}.json").read_text()))


def test_the_lab_with_its_link_slowed_has_one_change_point_at_the_fourth_naming_the_network() -> None:
    sessions = captured("slower")
    changes = session_changes(sessions, workload_trends(sessions))
    (change,) = changes
    assert change.number == 4 and change.session_id == sessions[3]["id"]
    assert {m.name for m in change.ceilings} >= {"the network (client to server)", "the network (server to client)"}
    assert all(m.worse for m in change.moves)
    assert change.cause is not None and change.cause.startswith("the network measured ")
    assert open_regression(changes) is change


def test_six_unchanged_first_looks_on_the_lab_have_none() -> None:
    sessions = captured("steady")
    assert session_changes(sessions, workload_trends(sessions)) == []


def test_a_step_is_found_where_it_starts_with_the_levels_either_side() -> None:
    series = [[10.0, 10.4], [9.8, 10.1], [10.2, 10.0], [5.1, 5.3], [4.9, 5.0], [5.2, 5.1]]
    (point,) = change_points(series)
    assert point.index == 3
    assert point.before == pytest.approx(10.1, rel=0.02) and point.after == pytest.approx(5.1, rel=0.02)
    assert point.p_value < 0.01


def test_a_change_under_the_least_size_is_not_one_however_tight_the_rounds() -> None:
    # 15 % slower with rounds 0.1 % apart: the t-test alone would call it
    series = [[10.0, 10.01], [10.0, 10.01], [10.0, 10.01], [8.5, 8.51], [8.5, 8.51], [8.5, 8.51]]
    assert change_points(series) == []
    assert [p.index for p in change_points(series, min_change=0.10)] == [3]


def test_one_odd_session_among_ordinary_ones_is_not_a_change() -> None:
    series = [[10.0], [10.3], [9.9], [5.0], [10.1], [10.2], [9.8]]
    assert change_points(series) == []


def test_a_dip_that_came_back_is_two_change_points() -> None:
    series = [[10.0, 10.2], [10.4, 10.1], [5.0, 5.1], [5.2, 5.0], [5.1, 5.2], [10.1, 10.0], [10.3, 10.2]]
    points = change_points(series)
    assert [p.index for p in points] == [2, 5]
    assert points[0].ratio < 0.6 and points[1].ratio > 1.8


def test_a_change_seen_by_one_session_only_waits_for_the_next() -> None:
    series = [[10.0], [10.2], [9.9], [10.1], [5.0]]
    assert change_points(series) == []
    assert [p.index for p in change_points([*series, [5.1]])] == [4]


def test_overlapping_noise_of_a_fifth_is_not_a_change() -> None:
    # sessions 20 % apart at random: the medians differ, the neighbours overlap
    series = [[10.0], [12.5], [9.5], [12.0], [10.5], [12.4], [9.8], [12.2]]
    assert change_points(series) == []


def test_figures_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        change_points([[1.0], [0.0], [1.0], [1.0]])
    with pytest.raises(ValueError, match="at least one figure"):
        change_points([[1.0], []])
