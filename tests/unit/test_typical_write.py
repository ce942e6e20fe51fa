"""sync-4k judged by its typical write (the p50 of fio's histogram), its tail (p99) a second verdict of its own
family, its mean kept in the tables; old sessions without percentiles judged by their mean, and saying so
(bench/figure.py, results/judged_figures.py). The session: tests/unit/latency_session.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from nfstune.bench.figure import Basis, client_shares, clients_record, repeat_figures
from nfstune.bench.fio_clients import parse_front_end
from nfstune.bench.workloads import WorkloadId
from nfstune.recipes.model import Recipe
from nfstune.results.compare import compare_sessions
from nfstune.results.summary import WorkloadResults, summarize_session
from nfstune.results.summary_text import results_text
from nfstune.results.verdict_rows import margins_of, verdict_rows
from nfstune.session.rounds import RecipeFigures, stop_reason
from nfstune.statistics.verdict import Question, judge
from nfstune.store import Results, open_store
from nfstune.store.db import MIGRATIONS
from tests.unit.latency_session import ROUNDS, latency_runs, store_latency_session
from tests.unit.test_histogram import LOOPBACK_JOBS, WRITES, loopback_clients
from tests.unit.test_rounds import plan_of
from tests.unit.trend_sessions import shipped_recipes

NCONNECT = "tcp, nconnect=4"
OLD_WORDS = "judged by the mean: stored before nfstune kept percentiles"


@pytest.fixture(scope="module")
def recipes() -> dict[str, Recipe]:
    return shipped_recipes()


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def sync_group(results: Results, sid: int, recipes: dict[str, Recipe]) -> WorkloadResults:
    (group,) = summarize_session(results.session(sid), recipes)
    return group


def test_a_few_slow_writes_move_the_mean_not_the_typical_write(results: Results, recipes: dict[str, Recipe]) -> None:
    """nconnect's two slow writes a visit put its mean ~7.5 % above tcp's every round: judged by the mean (as
    nfstune did) it is "slower"; judged by its typical write it is no difference that matters, and its tail (p99)
    says slower, beside it."""
    group = sync_group(results, store_latency_session(results), recipes)
    assert group.basis is Basis.TYPICAL and group.judged_words is not None and "p50" in group.judged_words
    tcp, nconnect = group.configs
    assert nconnect.verdict is not None and nconnect.verdict.kind == "same"
    assert nconnect.tail_verdict is not None and nconnect.tail_verdict.kind == "slower"
    assert nconnect.tail_verdict.ratio is not None and nconnect.tail_verdict.ratio < 0.5  # 150-175 ms against ~64
    assert tcp.verdict is None and tcp.tail_verdict is None  # the baseline
    # the mean stays in the tables: each round's, as fio measured it
    assert nconnect.own_summary is not None and tcp.own_summary is not None
    assert nconnect.own_summary.median / tcp.own_summary.median == pytest.approx(1.075, abs=0.01)
    assert nconnect.summary is not None and tcp.summary is not None
    assert nconnect.summary.median / tcp.summary.median == pytest.approx(1.0, abs=0.01)
    # the control: the same rounds judged by their mean, as before
    (by_mean,) = judge(
        [
            Question(
                ("transport", "sync-4k", NCONNECT),
                tcp.own_rounds,
                nconnect.own_rounds,
                higher_is_better=False,
                names=("tcp", NCONNECT),
                looks=(3, 8),
            )
        ]
    )
    assert by_mean.kind == "slower"


def test_the_stop_rule_judges_the_typical_write_as_the_views_do_and_never_asks_the_tail(
    results: Results, recipes: dict[str, Recipe]
) -> None:
    group = sync_group(results, store_latency_session(results), recipes)
    item = plan_of(recipes["transport"]).recipes[0]
    figures = RecipeFigures(item)
    runs = {run.label: run.records for run in latency_runs()}
    for number in range(1, ROUNDS + 1):
        for label, records in runs.items():
            assert records is not None
            figures.add("sync-4k", label, number, repeat_figures("sync-4k", records[number - 1]), 1.0)
    questions = figures.questions()
    assert [q.key for q in questions] == [("transport", "sync-4k", NCONNECT)]
    (verdict,) = figures.judge().verdicts
    stored = group.config(NCONNECT)
    assert stored is not None and stored.verdict is not None and stored.tail_verdict is not None
    assert (verdict.kind, verdict.ratio, verdict.ci) == (stored.verdict.kind, stored.verdict.ratio, stored.verdict.ci)
    # the tails are a family of their own, judged as the views judge them, and the stop rule never reads them
    (tail,) = judge(figures.tail_questions())
    assert (tail.kind, tail.ratio) == (stored.tail_verdict.kind, stored.tail_verdict.ratio)
    assert all(q not in questions for q in figures.tail_questions())
    assert stop_reason(figures, ROUNDS, 60.0, [10.0] * ROUNDS) == f"every comparison is settled after {ROUNDS} rounds"
    assert figures.figures[("sync-4k", NCONNECT)] == stored.rounds  # the figures judged: the typical write


def old_store(path: Path) -> Results:
    """A store at the schema before each client's p50 was kept, written through the store's own API."""
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:-1]:
        for statement in migration:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) - 1}")
    return Results(conn)


def test_an_old_session_without_percentiles_is_judged_by_its_mean_and_says_so(
    tmp_path: Path, recipes: dict[str, Recipe]
) -> None:
    path = tmp_path / "s.sqlite3"
    old = old_store(path)
    sid = store_latency_session(old, percentiles=False)
    old._conn.close()
    results = Results(open_store(path))  # brought up to date
    group = sync_group(results, sid, recipes)
    assert (group.basis, group.judged_words) == (Basis.MEAN, OLD_WORDS)
    nconnect = group.config(NCONNECT)
    assert nconnect is not None and nconnect.verdict is not None and nconnect.verdict.kind == "slower"
    assert nconnect.tail_verdict is None and nconnect.tail_rounds == {}
    text = results_text(results.session(sid), recipes)
    assert f"\n  {OLD_WORDS}\n" in text and "tail (p99)" not in text


def test_an_old_session_beside_a_new_one_is_compared_by_both_means(
    results: Results, recipes: dict[str, Recipe]
) -> None:
    old, new = store_latency_session(results, percentiles=False), store_latency_session(results)
    rows = {
        (r.workload, r.config_label): r for r in compare_sessions(results.session(old), results.session(new), recipes)
    }
    row = rows[("sync-4k", NCONNECT)]
    assert row.verdict is not None and row.verdict.kind == "same"  # the same writes in both
    assert row.caution == "by the mean: A was stored without percentiles"
    group = sync_group(results, old, recipes)
    config = group.config(NCONNECT)
    assert config is not None and config.summary is not None and row.median_a == config.summary.median
    both_new = compare_sessions(results.session(new), results.session(new), recipes)
    assert all(r.caution == "" for r in both_new)


def test_the_tail_is_a_row_of_its_own_after_the_typical_writes(results: Results, recipes: dict[str, Recipe]) -> None:
    sid = store_latency_session(results)
    data = results.stored_session(sid)
    rows = verdict_rows(summarize_session(results.session(sid), recipes), margins_of(data, recipes))
    assert [(r.label, r.tail, r.kind) for r in rows] == [(NCONNECT, False, "same"), (NCONNECT, True, "slower")]
    assert rows[1].title == "transport / sync-4k, tail (p99): tcp, nconnect=4 vs tcp"
    text = results_text(results.session(sid), recipes)
    assert "judged by the typical write (p50), the tail (p99) a second verdict; the mean in the tables" in text
    assert "tail (p99): tcp, nconnect=4 is 2.7x slower than tcp" in text
    assert "mean " in text and "p99 " in text


def test_several_clients_keep_the_p50_of_their_merged_histogram(results: Results) -> None:
    """A repeat from several clients stores the p50 and p99 of all their writes (merged histogram), each client's
    own p50 and p99 with its share (schema 11), and keeps the time per write served as its mean figure."""
    stdout, stderr = loopback_clients()
    together = parse_front_end(WorkloadId.SYNC_4K, LOOPBACK_JOBS, stdout, stderr, WRITES * 4096)
    record = clients_record(together)
    assert record["lat_p50_us"] == together.lat_percentile_us(50)
    assert record["lat_p99_us"] == together.lat_percentile_us(99)
    sid = results.start_session(server_host=None, client_host=None, share="/e", scale="small", recipes=["x"])
    run = results.start_run(sid, recipe="x", config_label="2 clients", config={"clients": 2}, workload="sync-4k")
    repeat_id = results.add_repeat(run, 1, warmup=False, values=record)
    results.add_repeat_clients(repeat_id, client_shares(together))
    (stored_run,) = results.stored_session(sid).runs
    (repeat,) = stored_run.repeats
    assert [(c.client, c.lat_p50_us) for c in repeat.clients] == [
        (name, r.lat_p50_us) for name, r in together.per_client.items()
    ]
    figures = repeat_figures("sync-4k", repeat.record())
    assert figures.typical == pytest.approx(together.lat_percentile_us(50) / 1000)  # type: ignore[operator]
    assert figures.served and figures.value == pytest.approx(together.seconds * 1000 / together.total_ops)


def test_every_report_says_what_sync_4k_is_judged_by_and_shows_the_tail(
    results: Results, recipes: dict[str, Recipe]
) -> None:
    import html
    import json
    import re

    import jsonschema

    from nfstune.paths import resources_dir
    from nfstune.report.html import session_html
    from nfstune.report.json_report import report_json

    sid = store_latency_session(results)
    page = html.unescape(re.sub(r"<[^>]+>", " ", session_html(results, sid, recipes)))
    assert "judged by the typical write (p50), the tail (p99) a second verdict; the mean in the tables" in page
    assert "tail (p99): tcp, nconnect=4 is 2.7x slower than tcp" in page
    assert "sync-4k : A typical write (p50) took " in page  # what limits it: of the figure judged
    document = json.loads(report_json(results, sid, recipes))
    schema = json.loads((resources_dir() / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(document, schema)
    (nconnect,) = [v for v in document["verdicts"] if v["config"] == NCONNECT]
    assert (nconnect["judged_by"], nconnect["verdict"]["kind"], nconnect["tail_verdict"]["kind"]) == (
        "p50",
        "same",
        "slower",
    )
    assert len(nconnect["mean_values"]) == len(nconnect["tail_values"]) == len(nconnect["values"]) == ROUNDS
    assert min(nconnect["tail_values"]) > 2 * max(nconnect["values"])
