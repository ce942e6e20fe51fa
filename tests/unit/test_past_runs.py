"""What the Recipes page's estimates are made from: every completed run of a recipe at this scale, how long it took
and in how many rounds, on these hosts or others (store.Results.past_runs), from the times the store keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.store import Results, open_store
from tests.unit.test_summary import FIRST_SESSION, SECOND_SESSION, store_session

NAS, CLIENT = "root@nas:22", "root@client:22"


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def test_every_completed_run_newest_first_with_whether_it_ran_on_the_pair(results: Results) -> None:
    first = store_session(results, FIRST_SESSION)
    newest = store_session(results, SECOND_SESSION)
    store_session(results, SECOND_SESSION[:1], status="failed")  # a failed session says nothing about the pace
    runs = results.past_runs(NAS, CLIENT, "small")
    recipes_of = {sid: {r["recipe"] for r in results.session(sid)["runs"]} for sid in (first, newest)}
    assert {r[0] for r in runs[: len(recipes_of[newest])]} == recipes_of[newest]  # the newest session first
    assert len(runs) == len(recipes_of[first]) + len(recipes_of[newest])
    assert all(here for *_, here in runs)
    _, seconds, rounds, _ = next(r for r in runs if r[0] == "sync-vs-async")
    assert rounds == 4  # SECOND_SESSION's sync-vs-async: a warm-up (0), then repeats 1 to 4
    own = [r for r in results.session(newest)["runs"] if r["recipe"] == "sync-vs-async"]
    start = min(r["started_at"] for r in own)
    ends = [p["started_at"] + p["seconds"] for r in own for p in r["repeats"]]
    assert seconds == pytest.approx(max(ends) - start)
    assert seconds >= 9.2  # at least its longest repeat (small-files, 9.2 s)
    assert next(r for r in runs if r[0] == "block-size")[2] == 3


def test_runs_on_other_hosts_are_marked_so_and_another_scale_has_none(results: Results) -> None:
    store_session(results, FIRST_SESSION)
    elsewhere = results.past_runs(NAS, "root@laptop:22", "small")
    assert elsewhere and not any(here for *_, here in elsewhere)
    assert [r[:3] for r in elsewhere] == [r[:3] for r in results.past_runs(NAS, CLIENT, "small")]
    assert results.past_runs(NAS, CLIENT, "normal") == []
