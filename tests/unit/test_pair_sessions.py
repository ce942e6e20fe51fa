"""The store's trend queries on a real SQLite file: the pairs of hosts and shares sessions ran on, and one pair's
completed sessions oldest first with their runs and counted rounds (store.pair_sessions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.results.judged_figures import run_figures
from nfstune.store import Results, open_store
from tests.unit.trend_sessions import (
    CLIENT_KEY,
    DAY,
    NAS_KEY,
    START,
    Clock,
    Run,
    first_look,
    store_session,
    use_clock,
)

FIGURES = {"seq-write": [30.0, 32.0], "small-files": [4.0, 4.4]}


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return use_clock(monkeypatch)


def test_pairs_with_a_completed_session_the_one_used_last_first(results: Results, clock: Clock) -> None:
    store_session(results, first_look(FIGURES))
    clock.now += DAY
    store_session(results, first_look(FIGURES), share="/srv/media")
    clock.now += DAY
    store_session(results, first_look(FIGURES))
    clock.now += DAY
    store_session(results, first_look(FIGURES), server=("admin@backup:22", "backup"), status="failed")
    pairs = results.host_pairs()
    assert [(p.server_key, p.client_key, p.share, p.sessions) for p in pairs] == [
        (NAS_KEY, CLIENT_KEY, "/export", 2),  # its last session is the newest completed one
        (NAS_KEY, CLIENT_KEY, "/srv/media", 1),
    ]  # the failed session's pair has nothing to show
    assert pairs[0].last_started_at == START + 2 * DAY
    assert pairs[0].text == "lab nas → lab client: /export"


def test_a_sessions_pair_even_when_it_failed(results: Results, clock: Clock) -> None:
    done = store_session(results, first_look(FIGURES))
    clock.now += DAY
    failed = store_session(results, first_look(FIGURES), status="failed")
    pair = results.pair_of(failed)
    assert pair is not None and pair.key == (NAS_KEY, CLIENT_KEY, "/export") and pair.sessions == 1
    assert pair == results.pair_of(done)
    assert results.pair_of(999) is None


def test_one_pairs_completed_sessions_oldest_first_with_their_counted_rounds(results: Results, clock: Clock) -> None:
    first = store_session(results, first_look(FIGURES))
    clock.now += DAY
    store_session(results, first_look(FIGURES), share="/srv/media")  # another share
    clock.now += DAY
    store_session(results, first_look(FIGURES), status="cancelled")
    clock.now += DAY
    runs = [*first_look(FIGURES), Run("first-look", "defaults", "seq-write", [40.0, 41.0, 39.0])]  # ran twice
    third = store_session(results, runs)
    (pair,) = [p for p in results.host_pairs() if p.share == "/export"]
    sessions = results.pair_sessions(pair)
    assert [s["id"] for s in sessions] == [first, third]
    assert [s["started_at"] for s in sessions] == [START, START + 3 * DAY]
    assert sessions[1]["recipes"] == ["first-look"] and sessions[1]["scale"] == "small"
    assert sessions[1]["server_facts"] and sessions[1]["plan"]  # what the settings in force are read from
    full = results.session(third)
    assert [(r["workload"], r["config_label"]) for r in sessions[1]["runs"]] == [
        (r["workload"], r["config_label"]) for r in full["runs"]
    ]
    for run, stored in zip(sessions[1]["runs"], full["runs"], strict=True):
        # the same figures as the whole session gives, warm-ups left out, without the raw tool output
        assert run_figures(run) == run_figures(stored)
        assert all(not p["warmup"] and "raw_output" not in p for p in run["repeats"])
        assert run["config"] == stored["config"] and run["export_options"] == stored["export_options"]
    assert len(sessions[1]["runs"][-1]["repeats"]) == 3


def test_until_a_session_and_the_last_few(results: Results, clock: Clock) -> None:
    ids = []
    for _ in range(5):
        ids.append(store_session(results, first_look(FIGURES)))
        clock.now += 7 * DAY
    pair = results.pair_of(ids[0])
    assert pair is not None
    assert [s["id"] for s in results.pair_sessions(pair, until=ids[2])] == ids[:3]
    assert [s["id"] for s in results.pair_sessions(pair, last=2)] == ids[3:]
    assert [s["id"] for s in results.pair_sessions(pair, until=ids[3], last=2)] == ids[2:4]
    assert results.pair_sessions(pair, until=ids[0], last=10)[0]["id"] == ids[0]
