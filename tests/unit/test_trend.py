"""Each workload's headline figure across one pair's sessions, and the marks where the settings in force changed
(results.trend, results.settings_in_force), from sessions stored in a real SQLite file as `nfstune run` stores
them."""

from __future__ import annotations

import dataclasses
import statistics
from pathlib import Path

import pytest

from nfstune.results.trend import WorkloadTrend, trend_lines, workload_trends
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import (
    DAY,
    LAB_NAS,
    MOUNT,
    UPGRADED_NAS,
    Clock,
    Run,
    first_look,
    shipped_recipes,
    store_session,
    use_clock,
)

WEEK = 7 * DAY
BEFORE = {"seq-write": [31.0, 29.5], "seq-read": [60.0, 58.0, 61.0], "sync-4k": [9.1, 8.7], "small-files": [4.2]}
AFTER = {"seq-write": [36.0, 37.5], "seq-read": [66.0, 64.0, 65.0], "sync-4k": [7.9, 8.1], "small-files": [3.6]}


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return use_clock(monkeypatch)


def trends_of(results: Results, session_id: int) -> dict[str, WorkloadTrend]:
    pair = results.pair_of(session_id)
    assert pair is not None
    return {t.workload: t for t in workload_trends(results.pair_sessions(pair), shipped_recipes())}


def test_three_sessions_a_point_each_and_a_mark_where_the_nas_was_upgraded(results: Results, clock: Clock) -> None:
    first = store_session(results, first_look(BEFORE))
    clock.now += WEEK
    second = store_session(results, first_look(BEFORE))
    clock.now += WEEK
    third = store_session(results, first_look(AFTER), nas=UPGRADED_NAS)
    trends = trends_of(results, third)
    assert list(trends) == ["seq-write", "seq-read", "small-files", "sync-4k"]  # the workloads' own order
    write = trends["seq-write"]
    assert (write.unit, write.higher_is_better) == ("MB/s", True)
    assert [p.session_id for p in write.points] == [first, second, third]
    assert [p.started_at for p in write.points] == [clock.now - 2 * WEEK, clock.now - WEEK, clock.now]
    assert [p.median for p in write.points] == [
        statistics.median(BEFORE["seq-write"]),
        statistics.median(BEFORE["seq-write"]),
        statistics.median(AFTER["seq-write"]),
    ]  # the warm-up round (three times the figure) is left out
    assert trends["sync-4k"].points[2].median == pytest.approx(statistics.median(AFTER["sync-4k"]))
    assert {(p.recipe, p.config_label, p.rounds) for p in write.points} == {("first-look", "defaults", 2)}
    for trend in trends.values():
        (mark,) = trend.marks  # nothing changed between the first two
        assert mark.session_id == third and mark.started_at == clock.now
        assert mark.names == "NAS system, NAS kernel, NAS nfs-utils"
        assert [c.text for c in mark.changes] == [
            f"NAS system {LAB_NAS.os_pretty_name} \u2192 Debian GNU/Linux 13 (trixie)",
            f"NAS kernel {LAB_NAS.kernel} \u2192 6.12.48+deb13-cloud-amd64",
            f"NAS nfs-utils {LAB_NAS.nfs_utils_version} \u2192 2.8.3",
        ]


def test_the_medians_interval_from_six_rounds_up_and_every_round_kept(results: Results, clock: Clock) -> None:
    nine = [61.0, 58.0, 64.0, 60.0, 59.5, 62.0, 57.0, 63.0, 60.5]
    six = [9.1, 8.7, 9.4, 8.9, 9.0, 9.2]
    trends = trends_of(results, store_session(results, first_look({**BEFORE, "seq-read": nine, "sync-4k": six})))
    (read,) = trends["seq-read"].points
    assert read.values == tuple(nine) and read.rounds == 9  # in round order
    assert read.median == statistics.median(nine)
    # 9 rounds: the 2nd lowest to the 2nd highest (1 - 2 P(B <= 1) = 98 % for B ~ Bin(9, 1/2); the 3rd would be 82 %)
    assert read.ci == (sorted(nine)[1], sorted(nine)[-2])
    (sync,) = trends["sync-4k"].points
    assert sync.ci == (min(six), max(six))  # 6 rounds: the lowest to the highest (97 %)
    (write,) = trends["seq-write"].points
    assert write.ci is None and write.rounds == 2  # too few rounds to bound a median at 95 %
    (small,) = trends["small-files"].points
    assert (small.ci, small.values) == (None, (4.2,))


def test_the_export_and_the_negotiated_mount_as_read_back(results: Results, clock: Clock) -> None:
    store_session(results, first_look(BEFORE))
    clock.now += DAY
    asynchronous = "async,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash"
    store_session(results, first_look(BEFORE, export=asynchronous))
    clock.now += DAY
    bigger = MOUNT.replace("rsize=131072,wsize=131072", "rsize=1048576,wsize=1048576") + ",nconnect=4"
    last = store_session(results, first_look(BEFORE, export=asynchronous, negotiated=bigger))
    write = trends_of(results, last)["seq-write"]
    assert [(m.names, m.text) for m in write.marks] == [
        ("export", "export +async \u2212sync"),
        ("mount", "mount rsize 131072 \u2192 1048576 wsize 131072 \u2192 1048576 +nconnect=4"),
    ]
    # what changes at every mount (the client's address and port) is no change of settings
    assert "clientaddr" not in dict(write.points[-1].settings)["mount"]


def test_what_is_not_known_in_one_of_two_sessions_is_no_change(results: Results, clock: Clock) -> None:
    store_session(results, first_look(BEFORE))
    clock.now += DAY
    store_session(results, first_look(BEFORE, export=None), nas=None)  # no login to the NAS: no facts, no export
    clock.now += DAY
    last = store_session(results, first_look(BEFORE))
    write = trends_of(results, last)["seq-write"]
    assert len(write.points) == 3 and write.marks == ()


def test_the_baseline_speaks_for_the_session_and_the_first_recipe_that_measured_the_workload(
    results: Results, clock: Clock
) -> None:
    quick = [
        Run("quick-check", "async", "small-files", [1.0, 1.1, 0.9], export="async,no_subtree_check,sec=sys,rw"),
        Run("quick-check", "baseline", "small-files", [5.0, 5.5, 4.5]),
        Run("quick-check", "baseline", "seq-read", [70.0, 72.0, 71.0]),
    ]
    sid = store_session(results, [*first_look({"small-files": [4.0, 4.2]}), *quick])
    trends = trends_of(results, sid)
    (small,) = trends["small-files"].points
    assert (small.recipe, small.config_label, small.median) == ("first-look", "defaults", 4.1)
    (read,) = trends["seq-read"].points
    assert (read.recipe, read.config_label, read.median) == ("quick-check", "baseline", 71.0)
    only_quick = store_session(results, quick)
    assert trends_of(results, only_quick)["small-files"].points[-1].median == 5.0  # baseline, not async


def test_a_larger_small_files_tree_is_marked_on_the_figures_it_changes(results: Results, clock: Clock) -> None:
    store_session(results, first_look(BEFORE))
    clock.now += DAY
    last = store_session(results, first_look(BEFORE), scale="normal")
    trends = trends_of(results, last)
    (mark,) = trends["small-files"].marks
    assert mark.names == "small-files tree" and "files of" in mark.text
    assert trends["seq-write"].marks == ()  # a rate: the size does not change what it means


def test_a_disk_swapped_under_the_share(results: Results, clock: Clock) -> None:
    store_session(results, first_look(BEFORE))
    clock.now += DAY
    assert LAB_NAS.filesystem is not None
    disks = tuple(dataclasses.replace(d, rotational=False, model="Samsung SSD 870") for d in LAB_NAS.filesystem.devices)
    ssd = dataclasses.replace(LAB_NAS, filesystem=dataclasses.replace(LAB_NAS.filesystem, devices=disks))
    last = store_session(results, first_look(BEFORE), nas=ssd)
    (mark,) = trends_of(results, last)["sync-4k"].marks
    assert mark.names == "NAS filesystem"
    assert mark.text.endswith("\u2192 ext4 on Samsung SSD 870 (solid state)")
    assert "(spinning)" in mark.text


def test_the_text_lists_each_session_with_what_changed_before_it(results: Results, clock: Clock) -> None:
    first = store_session(results, first_look(BEFORE))
    clock.now += WEEK
    last = store_session(results, first_look(AFTER), nas=UPGRADED_NAS)
    pair = results.pair_of(last)
    assert pair is not None
    lines = trend_lines(workload_trends(results.pair_sessions(pair)), session_id=first)
    at = lines.index("seq-write (MB/s, higher is better; each session's baseline median)")
    assert lines[at + 1].startswith(f"  {first:4}  ") and "30.2 MB/s (2 rounds, 29.5\u201331.0)" in lines[at + 1]
    assert lines[at + 1].endswith("[first-look: defaults]  <- this session")
    assert lines[at + 2].startswith("      changed: NAS system ")
    assert lines[at + 3].startswith(f"  {last:4}  ") and "36.8 MB/s" in lines[at + 3]
