"""What the Recipes page says beside the plan's estimate: how long a recipe's last completed run took on these
hosts at this scale, and in how many rounds (store.Results.recipe_times), from the times the store keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.store import Results, open_store
from tests.unit.test_summary import FIRST_SESSION, SECOND_SESSION, store_session

NAS, CLIENT = "root@nas:22", "root@client:22"


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def test_the_newest_completed_run_of_each_recipe_on_the_pair(results: Results) -> None:
    store_session(results, FIRST_SESSION)
    newest = store_session(results, SECOND_SESSION)
    store_session(results, SECOND_SESSION[:1], status="failed")  # a failed session says nothing about the pace
    times = results.recipe_times(NAS, CLIENT, "small")
    assert set(times) == {"sync-vs-async", "block-size"}
    seconds, rounds = times["sync-vs-async"]
    assert rounds == 4  # SECOND_SESSION's sync-vs-async: a warm-up (0), then repeats 1 to 4
    runs = [r for r in results.session(newest)["runs"] if r["recipe"] == "sync-vs-async"]
    first = min(r["started_at"] for r in runs)
    ends = [p["started_at"] + p["seconds"] for r in runs for p in r["repeats"]]
    assert seconds == pytest.approx(max(ends) - first)
    assert seconds >= 9.2  # at least its longest repeat (small-files, 9.2 s)
    assert times["block-size"][1] == 3


def test_other_hosts_and_another_scale_have_no_times(results: Results) -> None:
    store_session(results, FIRST_SESSION)
    assert results.recipe_times(NAS, "root@laptop:22", "small") == {}
    assert results.recipe_times(NAS, CLIENT, "normal") == {}
