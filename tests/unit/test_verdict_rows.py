"""The verdict plot's rows and the limit bars' data, against the verdicts and the ceilings of a session stored
through the real store: each row is its comparison's verdict, each bar its stored ceiling."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.advice.outcome import SessionOutcome, session_outcome
from nfstune.results.ceilings import ceilings_of
from nfstune.results.comparisons import margin_of
from nfstune.results.diagnosis import ROUND_TRIPS, per_file_ms
from nfstune.results.limit_bars import file_count, limit_bars, stored_ceilings
from nfstune.results.summary import planned_margins
from nfstune.results.verdict_rows import margins_of, ratio_ticks, ratio_words, verdict_rows
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import shipped_recipes
from tests.unit.verdict_session import store_verdict_session


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Results, int, SessionOutcome]:
    results = Results(open_store(tmp_path / "results.db"))
    sid = store_verdict_session(results)
    return results, sid, session_outcome(results, sid, shipped_recipes())


def test_a_row_per_comparison_with_its_verdicts_ratio_interval_and_kind(
    stored: tuple[Results, int, SessionOutcome],
) -> None:
    results, sid, outcome = stored
    recipes = shipped_recipes()
    rows = verdict_rows(outcome.groups, margins_of(outcome.session, recipes))
    compared = [(g, c) for g in outcome.groups for c in g.configs if c.verdict is not None]
    assert len(rows) == len(compared) > 0
    planned = planned_margins(results.session(sid))
    for row, (group, config) in zip(rows, compared, strict=True):
        verdict = config.verdict
        assert verdict is not None
        assert (row.recipe, row.workload, row.label) == (group.recipe, group.workload, config.label)
        assert row.against == config.against
        assert row.title == f"{group.recipe} / {group.workload}: {config.label} vs {config.against}"
        assert row.ratio == verdict.ratio
        assert (row.low, row.high) == verdict.ci
        assert row.kind == verdict.kind
        assert row.text == verdict.text
        assert row.expected_same == (config.same_as_baseline is not None)
        assert row.margin_percent == margin_of(recipes[group.recipe], planned.get(group.recipe))
    # the session was built to show every kind the plot colours, and an A/A check
    assert {r.kind for r in rows} >= {"faster", "slower", "same", "not settled"}
    assert any(r.expected_same for r in rows)


def test_the_bars_are_the_stored_ceilings(stored: tuple[Results, int, SessionOutcome]) -> None:
    results, sid, outcome = stored
    expected = ceilings_of(results.session(sid))
    assert stored_ceilings(outcome.session) == expected
    files = file_count(outcome.session)
    assert files is not None
    found = {(b.recipe, b.workload): b for b in limit_bars(outcome.findings.diagnoses, expected, files)}
    diagnoses = {(d.recipe, d.workload): d for d in outcome.findings.diagnoses}
    assert found.keys() == diagnoses.keys() == {("quick-check", w) for w in ("seq-read", "sync-4k", "small-files")}

    read = found[("quick-check", "seq-read")]
    assert (read.figure, read.unit, read.ceiling) == (diagnoses[("quick-check", "seq-read")].figure, "MB/s", True)
    assert [b.value for b in read.bars] == [expected.network_from_server, expected.disk_read]
    assert expected.disk_read is None  # not measured: a bar without a value says so

    sync = found[("quick-check", "sync-4k")]
    assert (sync.figure, sync.unit, sync.ceiling) == (diagnoses[("quick-check", "sync-4k")].figure, "ms", False)
    assert [b.value for b in sync.bars] == [expected.round_trip_ms, expected.sync_write_ms]

    small = found[("quick-check", "small-files")]
    assert small.figure == per_file_ms("small-files", diagnoses[("quick-check", "small-files")].figure, files)
    assert expected.round_trip_ms is not None
    assert [b.value for b in small.bars] == [
        ROUND_TRIPS["small-files"] * expected.round_trip_ms,
        expected.sync_write_ms,
    ]
    assert all(b.label == "baseline" for b in found.values())


def test_the_ratio_axis_names_its_ticks_in_the_verdicts_words() -> None:
    ticks = dict(ratio_ticks(0.3, 8.0))
    assert ticks[1.0] == "same"
    assert (ticks[2.0], ticks[5.0], ticks[0.5]) == ("2x faster", "5x faster", "2x slower")
    assert (ticks[1.25], ticks[0.8]) == ("25 % faster", "20 % slower")  # slower: the share of the speed lost
    assert min(ticks) >= 0.3 and max(ticks) <= 8.0
    assert ratio_words(1 / 3) == "3x slower"
