"""Two sessions compared by what ran, not by what the recipes called it: quick-check's baseline and
sync-vs-async's "sync" ran with the same export and mount, so they are one row; async is not sync whatever its
label; a side that stopped early is named beside its verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.results.compare import compare_sessions
from nfstune.store import Results, open_store
from tests.unit.test_summary import NEG, StoredRun, store_session

SYNC_EXPORT = "sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash"
ASYNC_EXPORT = SYNC_EXPORT.replace("sync,", "async,", 1)
NEG_V3 = NEG.replace("vers=4.2", "vers=3")


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


QUICK_CHECK: list[StoredRun] = [
    ("quick-check", "baseline", "small-files", SYNC_EXPORT, "vers=4.2", NEG, [9.1, 8.4, 8.9, 9.0]),
    ("quick-check", "async", "small-files", ASYNC_EXPORT, "vers=4.2", NEG, [2.1, 1.9, 2.2, 2.0]),
    ("quick-check", "vers=3", "small-files", SYNC_EXPORT, "vers=3", NEG_V3, [9.3, 8.8, 9.1, 9.2]),
]
SYNC_VS_ASYNC: list[StoredRun] = [
    ("sync-vs-async", "sync", "small-files", SYNC_EXPORT, "vers=4.2", NEG, [9.0, 8.6, 8.8, 9.2]),
    ("sync-vs-async", "async", "small-files", ASYNC_EXPORT, "vers=4.2", NEG, [1.8, 1.9, 1.7, 1.8]),
]


def test_configurations_that_ran_with_the_same_settings_meet_whatever_their_labels(results: Results) -> None:
    a = results.session(store_session(results, QUICK_CHECK))
    b = results.session(store_session(results, SYNC_VS_ASYNC))
    rows = {r.config_label: r for r in compare_sessions(a, b)}
    assert set(rows) == {"baseline (A) · sync (B)", "async", "vers=3"}
    same = rows["baseline (A) · sync (B)"]
    assert same.recipe == "quick-check (A) · sync-vs-async (B)"
    assert (same.median_a, same.median_b) == (8.95, 8.9) and same.verdict is not None
    assert rows["async"].median_b == 1.8 and rows["async"].text.startswith("B is ")  # async met async, not sync
    assert rows["vers=3"].text == "only in A"  # another version ran: nothing in B matches it


def test_without_the_settings_read_back_the_labels_decide(results: Results) -> None:
    """Sessions of an older nfstune kept no export options for client-side configurations."""
    old = [(r, label, w, None, req, neg, v) for r, label, w, _e, req, neg, v in QUICK_CHECK]
    a = results.session(store_session(results, old))
    b = results.session(store_session(results, SYNC_VS_ASYNC))
    labels = [r.config_label for r in compare_sessions(a, b)]
    assert labels == ["baseline", "async", "vers=3", "sync", "async"]


def test_a_side_that_stopped_early_is_named(results: Results) -> None:
    a = results.session(store_session(results, SYNC_VS_ASYNC))
    short = [SYNC_VS_ASYNC[0], (*SYNC_VS_ASYNC[1][:6], [1.8, 1.9])]
    sid = store_session(results, short, status="failed")
    run_id = results.session(sid)["runs"][1]["id"]
    results.end_run(run_id, "failed")
    rows = {r.config_label: r for r in compare_sessions(a, results.session(sid))}
    assert rows["async"].caution == "B failed after 2 rounds"
    assert rows["sync"].caution == ""
