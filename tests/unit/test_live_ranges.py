"""The live plot's axes move in round steps: the time axis to the next round length of a run, each top to the next
round figure above the data with room for the marker labels."""

from __future__ import annotations

import pytest

from nfstune.ui.widgets.live_ranges import round_up, time_range, y_range


def test_round_up_to_1_1_2_1_5_2_2_5_3_4_5_6_8() -> None:
    assert [round_up(v) for v in (1.0, 1.01, 0.3, 44.5, 129.6, 7.9)] == pytest.approx([1.0, 1.2, 0.3, 50.0, 150.0, 8.0])


def test_the_top_is_round_and_above_the_data() -> None:
    assert y_range(41.2) == pytest.approx((-3.5, 50.0))  # 41.2 * 1.08 = 44.5, rounded up to 50
    # a strip of 15 % kept for the labels: 80 / (1 - 1.07 * 0.15) = 95.3, so 100; 80 then sits 18.7 % below the top
    bottom, top = y_range(80.0, 0.15)
    assert (bottom, top) == pytest.approx((-7.0, 100.0))
    assert (top - 80.0) / (top - bottom) >= 0.15


def test_the_time_axis_ends_at_the_next_round_length_of_a_run() -> None:
    assert time_range(0, 9) == (0.0, 60)
    assert time_range(0, 59) == (0.0, 60)  # the newest point just inside the frame
    assert time_range(0, 60) == (0.0, 120)
    assert time_range(0, 250) == (0.0, 300)
    assert time_range(0, 3599) == (0.0, 3600)
    # past the buffers' hour: from the minute before the oldest sample kept, ten minutes at a time
    assert time_range(1000.5, 4600) == (960.0, 960.0 + 4200)
