"""What the advice reads from a stored session (session_advice.measured_from): the report's own verdicts, so that the
recommendation never calls a difference settled that the report does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.advice.recommend import recommend
from nfstune.advice.session import measured_from
from nfstune.paths import recipes_dir
from nfstune.recipes import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.results.summary import summarize_session
from nfstune.store import Results, open_store
from tests.unit.test_summary import PLAN, StoredRun, store_session

NEG = "rw,vers={},rsize=131072,wsize=131072,hard,proto=tcp"
SYNC_S = [26.0, 25.8, 26.3, 26.1, 25.9]  # small-files seconds on a sync export, per round
FSTAB = "nas:/export /mnt/nas nfs vers=4.2,hard 0 0\n"


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


@pytest.fixture
def recipes() -> dict[str, Recipe]:
    return {r.id: r for r in load_recipes([recipes_dir()])[0]}


def run(recipe: str, label: str, workload: str, export: str | None, vers: str, values: list[float]) -> StoredRun:
    return (recipe, label, workload, export, f"vers={vers}", NEG.format(vers), values)


def test_the_advice_quotes_the_reports_verdicts(results: Results, recipes: dict[str, Recipe]) -> None:
    runs = [
        run("quick-check", "baseline", "small-files", "sync,wdelay", "4.2", SYNC_S),
        run("quick-check", "async", "small-files", "async", "4.2", [6.4, 6.1, 5.9, 6.2, 6.0]),  # 4x, every round
        run("quick-check", "baseline", "seq-write", "sync,wdelay", "4.2", [50.0, 52.0, 49.0, 51.0, 50.5]),
        run("quick-check", "async", "seq-write", "async", "4.2", [40.0, 41.5, 39.0, 41.0, 40.2]),  # a fifth less
        # the kernel ignores no_wdelay on v3/v4 (expect = "same"), yet 20 % faster in every round
        run("quick-check", "no_wdelay", "seq-write", "sync,no_wdelay", "4.2", [60.0, 62.4, 58.8, 61.2, 60.6]),
    ]
    sid = store_session(results, runs, plan=PLAN)
    measured = measured_from(results, sid, recipes)
    assert {w: v.kind for w, v in measured.async_vs_sync.items()} == {"small-files": "faster", "seq-write": "slower"}
    groups = summarize_session(results.session(sid), recipes)
    shown = {g.workload: g.configs[1].verdict for g in groups}
    assert dict(measured.async_vs_sync) == shown  # the very verdicts the report shows, one family
    assert [c.label for c in groups[1].configs] == ["baseline", "async", "no_wdelay"]
    assert measured.no_wdelay == {"seq-write": groups[1].configs[2].verdict}
    assert measured.no_wdelay["seq-write"].kind == "unreliable"
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", measured=measured)
    assert rec.async_alternative is not None
    slower = shown["seq-write"]
    assert slower is not None and f"Slower with async: seq-write: {slower.text}" in rec.async_alternative.gain
    (note,) = rec.notes
    assert note.endswith("the kernel ignores no_wdelay on NFSv3/v4, and the measurement shows no settled effect.")


def test_a_version_measured_faster_is_recommended_with_its_verdict(
    results: Results, recipes: dict[str, Recipe]
) -> None:
    runs = [
        run("nfs-versions", "vers=4.2", "small-files", None, "4.2", SYNC_S),
        run("nfs-versions", "vers=3", "small-files", None, "3", [13.1, 12.8, 13.2, 13.0, 12.9]),  # half the time
        run("nfs-versions", "vers=4.2", "seq-read", None, "4.2", [80.0, 81.0, 79.5, 80.5, 80.2]),
        run("nfs-versions", "vers=3", "seq-read", None, "3", [80.3, 80.8, 79.9, 80.2, 80.4]),  # the same
    ]
    measured = measured_from(results, store_session(results, runs), recipes)
    assert measured.best_version == "3"
    reason = measured.version_reason
    assert reason is not None and reason.startswith("measured faster: small-files: vers=3 is ")
    assert "faster than vers=4.2 (95 % CI" in reason and "seq-read" not in reason
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", fstab=FSTAB, measured=measured)
    assert rec.fstab_line == "nas:/export /mnt/nas nfs vers=3,hard 0 0"
    assert any(r.option == "vers=3" and "95 % CI" in r.why for r in rec.fstab_reasons)
    # the figure behind it, for the page's one line of why: small-files in half the time, seq-read the same
    (gain,) = rec.gains
    assert (gain.change, gain.workload) == ("vers=3", "small-files") and 1.9 < gain.ratio < 2.1


def test_a_version_faster_on_one_workload_and_slower_on_another_is_not_recommended(
    results: Results, recipes: dict[str, Recipe]
) -> None:
    runs = [
        run("nfs-versions", "vers=4.2", "small-files", None, "4.2", SYNC_S),
        run("nfs-versions", "vers=3", "small-files", None, "3", [13.1, 12.8, 13.2, 13.0, 12.9]),
        run("nfs-versions", "vers=4.2", "seq-read", None, "4.2", [80.0, 81.0, 79.5, 80.5, 80.2]),
        run("nfs-versions", "vers=3", "seq-read", None, "3", [40.3, 40.8, 39.9, 40.2, 40.4]),  # half the speed
    ]
    measured = measured_from(results, store_session(results, runs), recipes)
    assert (measured.best_version, measured.version_reason) == (None, None)
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", fstab=FSTAB, measured=measured)
    assert rec.fstab_line == FSTAB.rstrip("\n")  # the version is kept
