"""A stored session as figures (summary.py), read from a real SQLite store as the engine writes it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from nfstune.nfs.mount_options import MountOptions
from nfstune.paths import recipes_dir
from nfstune.recipes import load_recipes
from nfstune.results.compare import compare_sessions
from nfstune.results.run_options import RunOptions, negotiated_essentials, negotiated_view
from nfstune.results.summary import aa_checks, aa_summary, summarize_session
from nfstune.results.summary_text import results_text
from nfstune.store import Results, open_store

NEGOTIATED_8K = "rw,relatime,vers=4.2,rsize=8192,wsize=8192,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys"
NEGOTIATED_1M = "rw,relatime,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,sec=sys"


def plan(margin_percent: float = 5.0, *recipes: str) -> str:
    """A stored plan, as recipes.plan_text.plan_json writes it: the session ran interleaved rounds (repeat number =
    round), with this margin for each recipe."""
    rounds = {"min": 3, "max": 20, "warmup": 1, "margin_percent": margin_percent}
    return json.dumps({"seed": 1, "recipes": [{"id": r, "rounds": rounds} for r in recipes]})


PLAN = plan()
StoredRun = tuple[str, str, str, str | None, str, str, list[float]]
# (recipe, config label, workload, export options, requested, negotiated, measured values); a warm-up repeat
# (a wildly different figure) runs before each, so a summary that counted it would be visibly wrong
FIRST_SESSION = [
    ("sync-vs-async", "sync", "small-files", "sync", "", "", [9.1, 8.4, 8.9, 9.0]),
    ("sync-vs-async", "async", "small-files", "async", "", "", [2.1, 1.9, 2.2, 2.0]),
    ("sync-vs-async", "sync", "seq-write", "sync", "", "", [50.2, 48.9, 51.0, 49.6]),
    ("sync-vs-async", "async", "seq-write", "async", "", "", [50.9, 49.0, 50.8, 49.4]),
    ("block-size", "rsize=8K", "seq-read", None, "vers=4.2,rsize=8192,wsize=8192", NEGOTIATED_8K, [31.0, 30.2, 30.9]),
    (
        "block-size",
        "rsize=1M",
        "seq-read",
        None,
        "vers=4.2,rsize=1048576,wsize=1048576",
        NEGOTIATED_1M,
        [88.1, 90.4, 89.0],
    ),
    ("block-size", "rsize=32K", "seq-read", None, "vers=4.2,rsize=32768,wsize=32768", "", []),  # failed: none done
]
SECOND_SESSION = [
    ("sync-vs-async", "sync", "small-files", "sync", "", "", [9.0, 8.6, 8.8, 9.2]),
    ("sync-vs-async", "async", "small-files", "async", "", "", [1.8, 1.9, 1.7, 1.8]),
    ("sync-vs-async", "sync", "sync-4k", "sync", "", "", [4.1, 4.3, 4.0]),
]


def store_session(
    results: Results, runs: Sequence[StoredRun], status: str = "completed", plan: str | None = None
) -> int:
    """A session as the engine stores it: a run per configuration and workload, one warm-up, then the repeats."""
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=sorted({r[0] for r in runs}),
        plan=plan,
    )
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
    assert (async_.export_options, async_.status) == (("async",), "completed")
    eight_k, one_m, failed = groups[2].configs
    assert one_m.summary is not None and one_m.summary.median == 89.0
    assert eight_k.requested.render() == "vers=4.2,rsize=8192,wsize=8192"
    assert eight_k.negotiated.render() == NEGOTIATED_8K and eight_k.negotiated.get("rsize") == "8192"
    assert (failed.values, failed.summary, failed.verdict, failed.status) == ([], None, None, "failed")


def test_verdicts_against_the_first_configuration_of_an_old_session(results: Results) -> None:
    # no plan stored: the repeats were not interleaved, so the verdicts compare independent samples
    session = results.session(store_session(results, FIRST_SESSION))
    assert not session.get("plan")
    groups = summarize_session(session)
    small_files, seq_write, seq_read = groups
    assert [g.baseline_label for g in groups] == ["sync", "sync", "rsize=8K"]
    assert small_files.configs[0].verdict is None  # the baseline
    faster = small_files.configs[1].verdict  # 9 s against 2 s in every repeat
    assert faster is not None and faster.kind == "faster" and faster.ratio is not None and 4 < faster.ratio < 5
    assert faster.ci is not None and faster.ci[0] > 1 and "95 % CI" in faster.text
    same = seq_write.configs[1].verdict  # 49.9 against 49.9 MB/s, 1-2 % apart repeat to repeat
    assert same is not None and not same.effect
    rsize = seq_read.configs[1].verdict
    assert rsize is not None and rsize.kind == "faster" and rsize.key == ("block-size", "seq-read", "rsize=1M")
    # a recipe is a family: sync-vs-async's two comparisons, block-size's one (the failed rsize=32K had nothing
    # to compare); until issue 38 the whole session was one family of 3, and the stop rule judged another
    families = {g.recipe: {c.verdict.family for c in g.configs if c.verdict is not None} for g in groups}
    assert families == {"sync-vs-async": {2}, "block-size": {1}}
    assert seq_read.configs[2].verdict is None


def test_the_recipes_baseline_leads_and_the_others_compare_with_it(results: Results) -> None:
    session = results.session(store_session(results, FIRST_SESSION))
    recipes = {r.id: r for r in load_recipes([recipes_dir()])[0]}
    assert recipes["block-size"].baseline == "rsize=1M"
    seq_read = summarize_session(session, recipes)[2]
    assert [c.label for c in seq_read.configs] == ["rsize=1M", "rsize=8K", "rsize=32K"]
    verdict = seq_read.configs[1].verdict
    assert verdict is not None and verdict.kind == "slower" and verdict.text.startswith("rsize=8K is 2.9x slower")


# the baseline drifts by +-30 % from round to round (another client, a scrub, the page cache): what pairing
# by round is for. Seconds of small-files, per round 1..6.
DRIFT = [8.0, 12.0, 9.0, 14.0, 10.0, 11.5]
NEG = "rw,vers=4.2,rsize=131072,wsize=131072,hard,proto=tcp"


def drifting(factor: float, wobble: Sequence[float] = (1.0, 1.004, 0.996, 1.003, 0.997, 1.0)) -> list[float]:
    return [round(d * factor * w, 4) for d, w in zip(DRIFT, wobble, strict=True)]


def test_rounds_are_paired_when_the_session_has_a_plan(results: Results) -> None:
    """10 % faster in every round, under a drift three times that size: paired by round it is settled; the same
    figures as independent samples are not."""
    runs: list[StoredRun] = [
        ("sync-vs-async", "sync", "small-files", "sync", "", "", DRIFT),
        ("sync-vs-async", "async", "small-files", "async", "", "", drifting(1 / 1.1)),
    ]
    unpaired = summarize_session(results.session(store_session(results, runs)))[0].configs[1]
    assert unpaired.verdict is not None and unpaired.verdict.kind == "not settled" and unpaired.verdict.settle
    paired = summarize_session(results.session(store_session(results, runs, plan=PLAN)))[0].configs[1]
    assert paired.rounds == dict(enumerate(drifting(1 / 1.1), 1))  # round -> figure, the warm-up left out
    v = paired.verdict
    assert v is not None and v.kind == "faster" and v.n == 6 and v.ratio == pytest.approx(1.1, rel=0.01)
    assert v.ci is not None and 1 < v.ci[0] < 1.1 < v.ci[1] < 1.2


def test_a_paired_session_is_judged_over_the_rounds_its_plan_could_stop_at(results: Results) -> None:
    """As the engine's stop rule judged it (statistics.verdict's looks): rounds.min to rounds.max of the stored plan,
    else of the recipe as it is now (sync-vs-async: 3-8), else the default; an old session without a plan is judged
    once."""
    runs: list[StoredRun] = [
        ("sync-vs-async", "sync", "small-files", "sync", "", "", DRIFT),
        ("sync-vs-async", "async", "small-files", "async", "", "", drifting(1 / 1.1)),
    ]
    rounds = {"min": 3, "max": 6, "warmup": 1, "margin_percent": 5.0}
    short = json.dumps({"seed": 1, "recipes": [{"id": "sync-vs-async", "rounds": rounds}]})
    texts = [
        summarize_session(results.session(store_session(results, runs, plan=stored)))[0].configs[1].verdict
        for stored in (short, PLAN, None)
    ]
    assert all(v is not None for v in texts)
    assert "corrected for stopping at any of rounds 3-6)" in str(texts[0])
    assert "corrected for stopping at any of rounds 3-8)" in str(texts[1])
    assert "stopping at any" not in str(texts[2])


def test_the_same_settings_in_force_are_an_aa_check(results: Results) -> None:
    """rsize=128K where 128K is what the baseline negotiated anyway: the same configuration twice. Under the same
    drift it must never read as an effect; 30 % apart in every round it reads as unreliable, not faster."""
    asked = "vers=4.2,rsize=131072,wsize=131072"
    runs: list[StoredRun] = [
        ("quick-check", "baseline", "small-files", "sync,wdelay", "vers=4.2", NEG, DRIFT),
        ("quick-check", "rsize=128K", "small-files", "sync,wdelay", asked, NEG, drifting(1.0)),
        ("quick-check", "baseline", "sync-4k", "sync,wdelay", "vers=4.2", NEG, DRIFT),
        ("quick-check", "rsize=128K", "sync-4k", "sync,wdelay", asked, NEG, drifting(1 / 1.3)),
        ("quick-check", "vers=3", "sync-4k", "sync,wdelay", "vers=3", NEG.replace("4.2", "3"), drifting(1 / 1.3)),
        # a user recipe's mount option that the essentials do not show: /proc/mounts still tells it apart
        ("quick-check", "noatime", "sync-4k", "sync,wdelay", "noatime", NEG.replace("rw,", "rw,noatime,"), DRIFT),
    ]
    sid = store_session(results, runs, plan=PLAN)
    small_files, sync_4k = summarize_session(results.session(sid))
    drift_only = small_files.configs[1]
    assert (
        drift_only.same_as_baseline is not None and "vers=4.2,rsize=131072,wsize=131072" in drift_only.same_as_baseline
    )
    assert drift_only.verdict is not None and drift_only.verdict.kind in ("same", "not settled")
    broken = sync_4k.configs[1]
    assert broken.verdict is not None and broken.verdict.kind == "unreliable" and not broken.verdict.effect
    assert "not reliable" in broken.verdict.text
    vers3 = sync_4k.configs[2]  # another version negotiated: a real comparison, the same 30 % is an effect
    assert vers3.same_as_baseline is None and vers3.verdict is not None and vers3.verdict.kind == "faster"
    assert sync_4k.configs[3].label == "noatime" and sync_4k.configs[3].same_as_baseline is None
    checks = aa_checks([small_files, sync_4k])
    assert [(c.workload, c.label) for c in checks] == [("small-files", "rsize=128K"), ("sync-4k", "rsize=128K")]
    assert aa_summary(checks).startswith("1 of 2 A/A checks came out different")
    # nfstune report: the A/A checks replace "48.9 % apart, they differ by more than their CV"
    from nfstune.cli.run import report_text

    text = report_text(results, sid, {})
    head = "\nA/A checks (configurations expected to measure the same as their baseline)\n  1 of 2 A/A checks came out"
    assert head in text and f"  quick-check / sync-4k: {broken.verdict.text}" in text
    assert "their CV" not in text and "verdicts: paired by round; a recipe is a family" in text


def test_a_zero_figure_is_shown_but_left_out_of_the_verdict(results: Results) -> None:
    """A repeat too fast for the clock stores 0 s: no speed ratio can be formed with it (verdict.py refuses it)."""
    runs: list[StoredRun] = [
        ("sync-vs-async", "sync", "small-files", "sync", "", "", [10.0, 14.0, 11.0, 13.0, 12.0]),
        ("sync-vs-async", "async", "small-files", "async", "", "", [5.0, 0.0, 5.5, 6.5, 6.0]),
    ]
    sid = store_session(results, runs, plan=PLAN)
    (group,) = summarize_session(results.session(sid))
    config = group.configs[1]
    assert config.values == [5.0, 0.0, 5.5, 6.5, 6.0] and config.summary is not None
    assert config.verdict is not None and config.verdict.n == 4 and config.verdict.kind == "faster"
    only_zero: list[StoredRun] = [runs[0], ("sync-vs-async", "async", "small-files", "async", "", "", [0.0, 0.0])]
    a, b = results.session(sid), results.session(store_session(results, only_zero))
    row = next(r for r in compare_sessions(a, b) if r.config_label == "async")
    assert (row.verdict, row.text) == (None, "no figures above 0 to compare")


def test_the_margin_stored_with_the_plan_decides_what_matters(results: Results) -> None:
    """Within 1 % in every round, under drift: no difference that matters within +-5 %; within +-1 % it is too
    close to call."""
    runs: list[StoredRun] = [
        ("nfs-versions", "vers=4.2", "small-files", None, "", "", DRIFT),
        ("nfs-versions", "vers=3", "small-files", None, "", "", drifting(1.0, (1.0, 1.01, 0.99, 1.012, 0.99, 1.0))),
    ]
    wide = summarize_session(results.session(store_session(results, runs, plan=plan(5.0, "nfs-versions"))))
    narrow = summarize_session(results.session(store_session(results, runs, plan=plan(1.0, "nfs-versions"))))
    wide_verdict, narrow_verdict = wide[0].configs[1].verdict, narrow[0].configs[1].verdict
    assert wide_verdict is not None and wide_verdict.kind == "same" and "±5 %" in wide_verdict.text
    assert narrow_verdict is not None and narrow_verdict.kind == "not settled"


def test_a_configuration_the_recipe_expects_the_same_is_never_an_effect(results: Results) -> None:
    """quick-check's no_wdelay (expect = "same": the kernel ignores it on v3/v4), 20 % faster in every round: the
    measurement is unreliable, and the text gives the recipe's reason."""
    recipes = {r.id: r for r in load_recipes([recipes_dir()])[0]}
    assert recipes["quick-check"].config("no_wdelay").expect == "same"
    runs: list[StoredRun] = [
        ("quick-check", "baseline", "seq-write", "sync,wdelay", "vers=4.2", NEG, [10.0, 14.0, 11.0, 13.0]),
        ("quick-check", "no_wdelay", "seq-write", "sync,no_wdelay", "vers=4.2", NEG, [12.0, 16.8, 13.2, 15.6]),
    ]
    (group,) = summarize_session(results.session(store_session(results, runs, plan=PLAN)), recipes)
    config = group.configs[1]
    assert config.same_as_baseline == "current kernels apply write gathering to NFSv2 only"
    v = config.verdict
    assert v is not None and v.kind == "unreliable" and not v.effect
    assert "(current kernels apply write gathering to NFSv2 only)" in v.text and "not reliable" in v.text
    # without the recipe (other export options in force) the same figures are an effect
    (bare,) = summarize_session(results.session(store_session(results, runs, plan=PLAN)))
    assert bare.configs[1].verdict is not None and bare.configs[1].verdict.kind == "faster"


def test_text_is_what_nfstune_report_prints(results: Results) -> None:
    from nfstune.cli.run import report_text

    sid = store_session(results, FIRST_SESSION)
    recipes = {r.id: r for r in load_recipes([recipes_dir()])[0]}
    text = results_text(results.session(sid), recipes)
    report = report_text(results, sid, recipes)
    assert report.lstrip().startswith("In three lines") and text in report  # the answer first, then the results
    assert "rsize=32K      no completed repeats" in text
    lines = text.splitlines()
    async_line = lines.index(next(line for line in lines if line.lstrip().startswith("async ")))
    assert "median     2.05" in lines[async_line] and "n=4" in lines[async_line]
    assert lines[async_line + 1].strip().startswith("async is 4.") and "95 % CI" in lines[async_line + 1]
    assert "significant" not in text and "CV" not in text


def test_negotiated_view_keeps_what_a_recipe_can_change() -> None:
    negotiated = NEGOTIATED_8K.replace("hard,", "hard,nconnect=4,")
    assert negotiated_view(MountOptions.parse("rsize=8192"), MountOptions.parse(negotiated)) == (
        "requested rsize=8192 · negotiated vers=4.2,rsize=8192,wsize=8192,nconnect=4"
    )
    assert negotiated_view(MountOptions(), MountOptions()) == "requested (defaults)"


def test_a_runs_options_are_parsed_once_as_typed_values() -> None:
    """The stored text becomes MountOptions and the export's option words; what the pages read from them."""
    run = {
        "requested_options": "vers=3,rsize=32768",
        "export_options": "async,wdelay,sec=krb5:krb5i,rw",
        "negotiated_options": "rw,vers=3,rsize=32768,wsize=32768,namlen=255,hard,proto=tcp,sec=sys",
    }
    opts = RunOptions.of(run)
    assert opts.requested.get("rsize") == "32768" and opts.negotiated.get("vers") == "3"
    assert opts.negotiated.render() == run["negotiated_options"]  # nothing lost on the way
    assert opts.export == ("async", "wdelay", "sec=krb5:krb5i", "rw")
    assert negotiated_essentials(opts.negotiated) == "vers=3,rsize=32768,wsize=32768"
    # the transport only when it is not TCP, the default every report would otherwise repeat
    rdma = MountOptions.parse(run["negotiated_options"].replace("proto=tcp", "proto=rdma,port=20049"))
    assert negotiated_essentials(rdma) == "vers=3,rsize=32768,wsize=32768,proto=rdma"
    empty = RunOptions.of({"requested_options": None, "negotiated_options": None, "export_options": None})
    assert (empty.requested, empty.negotiated, empty.export) == (MountOptions(), MountOptions(), ())


def test_two_sessions_side_by_side(results: Results) -> None:
    a = results.session(store_session(results, FIRST_SESSION))
    b = results.session(store_session(results, SECOND_SESSION))
    rows = {(r.recipe, r.workload, r.config_label): r for r in compare_sessions(a, b)}
    assert len(rows) == len(FIRST_SESSION) + 1  # every configuration of A, and B's sync-4k
    faster = rows[("sync-vs-async", "small-files", "async")]
    assert (faster.unit, faster.median_a, faster.median_b) == ("s", 2.05, 1.8)
    # B's speed against A, the verdict's own estimate: the column and the sentence say one figure
    assert faster.verdict is not None and faster.verdict.ratio is not None
    assert (
        faster.change_percent == pytest.approx(100 * (faster.verdict.ratio - 1)) and 13.5 < faster.change_percent < 14.5
    )
    assert faster.verdict is not None and faster.verdict.kind == "faster" and faster.text == faster.verdict.text
    assert faster.text.startswith("B is 14 % faster than A (95 % CI")
    same = rows[("sync-vs-async", "small-files", "sync")]  # 8.85 s and 8.90 s with 3-4 % spread: no effect
    assert same.verdict is not None and not same.verdict.effect
    # both sessions' comparisons are one family, unpaired (they did not run side by side)
    assert {r.verdict.family for r in rows.values() if r.verdict is not None} == {2}
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
    assert (row.median_a, row.median_b, row.verdict) == (None, None, None)
    assert row.text == "no completed repeats in A and B"


def test_a_recipes_notes_are_filled_from_the_sessions_stored_facts() -> None:
    """block-size's notes, on the lab's probes (max_block_size 128 KiB): both hold, with the figure filled in; on a
    session stored without facts only the unconditional one is shown, saying the figure is unknown."""
    from pathlib import Path

    from nfstune import paths
    from nfstune.facts.probe_output import parse_probe_output
    from nfstune.recipes import load_recipes
    from nfstune.results.summary import recipe_notes

    probes = Path(__file__).parent.parent / "captures" / "probe"
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    block_size = next(r for r in recipes if r.id == "block-size")
    session = {
        "server_facts": parse_probe_output((probes / "lab-nas-root.txt").read_text()).to_json(),
        "client_facts": parse_probe_output((probes / "lab-client-root.txt").read_text()).to_json(),
    }
    notes = recipe_notes(session, block_size)
    assert len(notes) == 2
    assert "the server grants at most its max_block_size (128 KiB here)" in notes[0]
    assert notes[1].startswith("This server caps READ and WRITE at 128 KiB (/proc/fs/nfsd/max_block_size")
    bare = recipe_notes({"server_facts": None, "client_facts": None}, block_size)
    assert len(bare) == 1 and "(unknown here)" in bare[0]
    assert recipe_notes(session, None) == []
