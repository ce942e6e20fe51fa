"""A stored session as figures (summary.py), read from a real SQLite store as the engine writes it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from nfstune.store import Results, open_store
from nfstune.summary import compare_sessions, negotiated_view, results_text, summarize_session

NEGOTIATED_8K = "rw,relatime,vers=4.2,rsize=8192,wsize=8192,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys"
NEGOTIATED_1M = "rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,sec=sys"

StoredRun = tuple[str, str, str, str | None, str, str, list[float]]
# (recipe, config label, workload, export options, requested, negotiated, measured values); a warm-up repeat
# (a wildly different figure) runs before each, so a summary that counted it would be visibly wrong
FIRST_SESSION = [
    ("sync-vs-async", "sync", "small-files", "sync", "", "", [9.1, 8.4, 8.9, 9.0]),
    ("sync-vs-async", "async", "small-files", "async", "", "", [2.1, 1.9, 2.2, 2.0]),
    ("sync-vs-async", "sync", "seq-write", "sync", "", "", [50.2, 48.9, 51.0, 49.6]),
    ("sync-vs-async", "async", "seq-write", "async", "", "", [50.9, 49.0, 50.8, 49.4]),
    ("block-size", "rsize=8K", "seq-read", None, "vers=4.2,rsize=8192,wsize=8192", NEGOTIATED_8K, [31.0, 30.2, 30.9]),
    ("block-size", "rsize=1M", "seq-read", None, "vers=4.2,rsize=1048576,wsize=1048576", NEGOTIATED_1M,
     [88.1, 90.4, 89.0]),
    ("block-size", "rsize=32K", "seq-read", None, "vers=4.2,rsize=32768,wsize=32768", "", []),  # failed: none done
]  # fmt: skip
SECOND_SESSION = [
    ("sync-vs-async", "sync", "small-files", "sync", "", "", [9.0, 8.6, 8.8, 9.2]),
    ("sync-vs-async", "async", "small-files", "async", "", "", [1.8, 1.9, 1.7, 1.8]),
    ("sync-vs-async", "sync", "sync-4k", "sync", "", "", [4.1, 4.3, 4.0]),
]


def store_session(results: Results, runs: Sequence[StoredRun], status: str = "completed") -> int:
    """A session as the engine stores it: a run per configuration and workload, one warm-up, then the repeats."""
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export", scale="small", recipes=sorted({r[0] for r in runs}),
    )  # fmt: skip
    for recipe, label, workload, export, requested, negotiated, values in runs:
        run = results.start_run(sid, recipe=recipe, config_label=label, config={}, workload=workload)
        results.set_run_options(run, requested=requested or None, negotiated=negotiated or None, export=export)
        warmup = {"seq-write": 500.0, "seq-read": 500.0}.get(workload, 0.01)
        for number, value in enumerate([warmup, *values]):
            results.add_repeat(run, number, warmup=number == 0, values=_repeat(workload, value))
        results.end_run(run, "completed" if values else "failed")
    results.end_session(sid, status)
    return sid


def _repeat(workload: str, value: float) -> dict[str, float | int | str]:
    if workload.startswith("seq"):
        return {"tool": "fio", "bytes": 8 << 20, "seconds": 8 / value, "mb_per_s": value}
    if workload == "small-files":
        return {"tool": "tar", "bytes": 122880, "seconds": value, "ops": 30}
    return {"tool": "fio", "bytes": 40 * 4096, "seconds": value * 40 / 1000, "ops": 40, "lat_mean_us": value * 1000}


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def test_medians_spread_and_options_per_configuration(results: Results) -> None:
    groups = summarize_session(results.session(store_session(results, FIRST_SESSION)))
    assert [(g.recipe, g.workload, g.unit, g.higher_is_better) for g in groups] == [
        ("sync-vs-async", "small-files", "s", False),
        ("sync-vs-async", "seq-write", "MB/s", True),
        ("block-size", "seq-read", "MB/s", True),
    ]
    sync, async_ = groups[0].configs
    assert (sync.label, sync.values, sync.summary and sync.summary.median) == ("sync", [9.1, 8.4, 8.9, 9.0], 8.95)
    assert async_.summary is not None
    assert (async_.summary.median, async_.summary.min, async_.summary.max, async_.summary.n) == (2.05, 1.9, 2.2, 4)
    assert (async_.export_options, async_.status) == ("async", "completed")
    eight_k, one_m, failed = groups[2].configs
    assert one_m.summary is not None and one_m.summary.median == 89.0
    assert eight_k.requested == "vers=4.2,rsize=8192,wsize=8192" and eight_k.negotiated == NEGOTIATED_8K
    assert (failed.values, failed.summary, failed.verdict, failed.status) == ([], None, None, "failed")


def test_verdicts_against_the_recipes_first_configuration(results: Results) -> None:
    groups = summarize_session(results.session(store_session(results, FIRST_SESSION)))
    small_files, seq_write, seq_read = groups
    assert [g.baseline_label for g in groups] == ["sync", "sync", "rsize=8K"]
    assert (small_files.configs[0].verdict, small_files.configs[0].significant) == (None, None)  # the baseline
    faster = small_files.configs[1]
    assert faster.significant is True
    assert faster.verdict is not None and faster.verdict.startswith("async is 4.3x faster than sync (significant, ")
    same = seq_write.configs[1]
    assert same.significant is False
    assert same.verdict is not None and same.verdict.startswith("no measurable difference (sync 49.9 MB/s, async ")
    verdict = seq_read.configs[1].verdict
    assert verdict is not None and verdict.startswith("rsize=1M is 2.9x faster than rsize=8K (significant, ")


def test_a_named_baseline_leads_and_the_others_compare_with_it(results: Results) -> None:
    session = results.session(store_session(results, FIRST_SESSION))
    groups = summarize_session(session, {"block-size": "rsize=1M"})
    seq_read = groups[2]
    assert [c.label for c in seq_read.configs] == ["rsize=1M", "rsize=8K", "rsize=32K"]
    verdict = seq_read.configs[1].verdict
    assert verdict is not None and verdict.startswith("rsize=1M is 2.9x faster than rsize=8K")
    unknown = summarize_session(session, {"block-size": "vers=3"})  # not run: the first leads
    assert unknown[2].baseline_label == "rsize=8K"


def test_text_is_what_nfstune_report_prints(results: Results) -> None:
    from nfstune.cli_run import report_text

    sid = store_session(results, FIRST_SESSION)
    text = results_text(results.session(sid))
    assert report_text(results, sid).startswith(text)
    assert "rsize=32K      no completed repeats" in text


def test_negotiated_view_keeps_what_a_recipe_can_change() -> None:
    negotiated = NEGOTIATED_8K.replace("hard,", "hard,nconnect=4,")
    assert negotiated_view("rsize=8192", negotiated) == (
        "requested rsize=8192 · negotiated vers=4.2,rsize=8192,wsize=8192,nconnect=4"
    )
    assert negotiated_view("", "") == "requested (defaults)"


def test_two_sessions_side_by_side(results: Results) -> None:
    a = results.session(store_session(results, FIRST_SESSION))
    b = results.session(store_session(results, SECOND_SESSION))
    rows = {(r.recipe, r.workload, r.config_label): r for r in compare_sessions(a, b)}
    assert len(rows) == len(FIRST_SESSION) + 1  # every configuration of A, and B's sync-4k
    faster = rows[("sync-vs-async", "small-files", "async")]
    assert (faster.unit, faster.median_a, faster.median_b) == ("s", 2.05, 1.8)
    assert faster.change_percent == pytest.approx(-12.195, abs=1e-3)  # fewer seconds: B is faster
    assert faster.text.startswith("B is 14 % faster than A (significant, ") and faster.significant is True
    same = rows[("sync-vs-async", "small-files", "sync")]
    assert same.text.startswith("no measurable difference (A 8.85 s, B 8.90 s; ") and same.significant is False
    only_b = rows[("sync-vs-async", "sync-4k", "sync")]
    assert (only_b.median_a, only_b.median_b, only_b.change_percent, only_b.text) == (None, 4.1, None, "only in B")
    only_a = rows[("block-size", "seq-read", "rsize=8K")]
    assert (only_a.median_a, only_a.median_b, only_a.text) == (30.9, None, "only in A")
    assert rows[("block-size", "seq-read", "rsize=32K")].text == "only in A"
    assert list(rows)[-1] == ("sync-vs-async", "sync-4k", "sync")  # B's own rows come last


def test_a_side_without_completed_repeats_is_named(results: Results) -> None:
    a = results.session(store_session(results, FIRST_SESSION))
    b = results.session(store_session(results, FIRST_SESSION[-1:]))
    (row,) = [r for r in compare_sessions(a, b) if r.config_label == "rsize=32K"]
    assert (row.median_a, row.median_b, row.significant) == (None, None, None)
    assert row.text == "no completed repeats in A and B"


def test_the_same_configuration_twice_is_checked_against_its_cv(results: Results) -> None:
    from nfstune.summary import repeat_agreement

    neg = "rw,vers=4.2,rsize=131072,wsize=131072,hard,proto=tcp"
    runs: list[StoredRun] = [
        # quick-check's baseline and rsize=128K: other labels, the same export and negotiated options
        ("quick-check", "baseline", "seq-read", "sync,wdelay", "vers=4.2", neg, [10.0, 11.0, 10.5, 9.5]),
        ("quick-check", "rsize=128K", "seq-read", "sync,wdelay", "vers=4.2,rsize=131072,wsize=131072", neg,
         [10.2, 10.9, 10.4, 9.9]),
        ("quick-check", "baseline", "seq-write", "sync,wdelay", "vers=4.2", neg, [20.0, 20.1, 19.9]),
        ("quick-check", "rsize=128K", "seq-write", "sync,wdelay", "vers=4.2,rsize=131072,wsize=131072", neg,
         [30.0, 30.1, 29.9]),  # a third faster with nothing changed: the host was doing something else
        ("quick-check", "vers=3", "seq-read", "sync,wdelay", "vers=3", neg.replace("4.2", "3"), [10.0, 10.1]),
    ]  # fmt: skip
    found = {a.workload: a for a in repeat_agreement(results.session(store_session(results, runs)))}
    assert set(found) == {"seq-read", "seq-write"}  # vers=3 is another configuration
    read, write = found["seq-read"], found["seq-write"]
    assert read.agrees and read.first == "quick-check: baseline" and read.second == "quick-check: rsize=128K"
    assert abs(read.difference_percent) <= read.cv_percent
    assert not write.agrees and write.difference_percent == pytest.approx(50.0)
    assert "differ by more than their CV" in write.text and "export sync,wdelay" in write.text
