"""A session of many-clients as figures: each configuration compared with the one of its client count in the
baseline's series, the baseline's series step by step, every question in the session's one family, and each
client's share; read from a real SQLite store as the engine writes it (repeats with their clients' parts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nfstune.advice.session import CurrentConfig, keep_current, kept_recommendation
from nfstune.advice.threads import ThreadsFinding, threads_advice
from nfstune.cli.run import advice_text
from nfstune.paths import recipes_dir
from nfstune.recipes import load_recipes
from nfstune.report.advice import recommendation_html
from nfstune.report.html import session_html
from nfstune.results.compare import compare_sessions
from nfstune.results.run_options import effective_settings
from nfstune.results.summary import session_scaling, summarize_session
from nfstune.results.summary_text import results_text
from nfstune.statistics.verdict import Verdict
from nfstune.store import Results, open_store

ROUNDS = 6
DRIFT = [1.00, 0.93, 1.06, 0.97, 1.04, 0.95]  # a round's wobble, shared by every configuration of the round
OWN = [1.01, 0.99, 1.00, 1.02, 0.98, 1.00]  # each configuration's own small noise (shifted per configuration)
# label -> (clients, export set, nfsd threads, aggregate seq-write MB/s, each client's share of it)
CONFIGS = {
    "1 client, sync": (1, "sync", None, 10.0, [1.0]),
    "2 clients, sync": (2, "sync", None, 19.0, [0.6, 0.4]),
    "3 clients, sync": (3, "sync", None, 19.1, [0.34, 0.33, 0.33]),
    "1 client, async": (1, "async", None, 10.5, [1.0]),
    "2 clients, async": (2, "async", None, 20.0, [0.5, 0.5]),
    "3 clients, async": (3, "async", None, 29.0, [0.34, 0.33, 0.33]),
    "2 clients, 1 thread": (2, "sync", 1, 9.0, [0.5, 0.5]),
    "3 clients, 64 threads": (3, "sync", 64, 26.0, [0.34, 0.33, 0.33]),
}
NAMES = ["client", "client2", "client3"]


def store_many_clients(results: Results, workload: str = "seq-write") -> int:
    recipes = ["many-clients"]
    plan = {"seed": 1, "recipes": [{"id": "many-clients", "rounds": {"min": 3, "max": 10, "margin_percent": 5.0}}]}
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=recipes,
        plan=json.dumps(plan),
    )
    for index, (label, (clients, export, threads, level, shares)) in enumerate(CONFIGS.items()):
        config = {
            "mount": "",
            "export_set": [export],
            "read_ahead_kb": None,
            "expect": None,
            "clients": clients,
            "nfsd_threads": threads,
        }
        run = results.start_run(sid, recipe="many-clients", config_label=label, config=config, workload=workload)
        negotiated = "rw,vers=4.2,rsize=1048576,wsize=1048576,proto=tcp"
        results.set_run_options(run, requested=None, negotiated=negotiated, export=f"rw,{export},root_squash")
        for number in range(ROUNDS + 1):
            value = 500.0 if number == 0 else level * DRIFT[number - 1] * OWN[(number + index) % ROUNDS]
            seconds = 8.0
            record = {
                "tool": "fio",
                "bytes": int(value * 1e6 * seconds),
                "seconds": seconds,
                "mb_per_s": value,
                "ops": int(value * seconds),
                "ops_per_s": value,
            }
            repeat = results.add_repeat(run, number, warmup=number == 0, values=record)
            results.add_repeat_clients(
                repeat,
                [
                    {
                        "client": name,
                        "bytes": int(value * share * 1e6 * seconds),
                        "seconds": seconds,
                        "mb_per_s": value * share,
                        "ops": int(value * share * seconds),
                        "ops_per_s": value * share,
                        "lat_mean_us": None,
                        "lat_p99_us": None,
                    }
                    for name, share in zip(NAMES, shares, strict=False)
                ],
            )
        results.end_run(run, "completed")
    results.end_session(sid, "completed")
    return sid


@pytest.fixture
def session(tmp_path: Path) -> tuple[Results, int]:
    results = Results(open_store(tmp_path / "results.db"))
    return results, store_many_clients(results)


def recipes() -> dict[str, object]:
    loaded, errors = load_recipes([recipes_dir()])
    assert errors == []
    return {r.id: r for r in loaded}


def test_each_configuration_is_compared_with_its_own_client_count(session: tuple[Results, int]) -> None:
    results, sid = session
    (group,) = summarize_session(results.session(sid), recipes())  # type: ignore[arg-type]
    by_label = {c.label: c for c in group.configs}
    verdicts = {label: c.verdict for label, c in by_label.items() if c.verdict is not None}
    # every configuration but the baseline has a verdict, all from one family: 5 against their own count's sync,
    # 4 steps (1->2 and 2->3, under sync and under async)
    assert set(verdicts) == set(CONFIGS) - {"1 client, sync"}
    assert {v.family for v in verdicts.values()} == {9}
    three_async = verdicts["3 clients, async"]
    assert three_async.kind == "faster" and three_async.ratio == pytest.approx(29.0 / 19.1, rel=0.05)
    assert "3 clients, sync" in three_async.text
    assert verdicts["2 clients, 1 thread"].kind == "slower"
    assert "2 clients, sync" in verdicts["2 clients, 1 thread"].text
    # the baseline's series: the step that added the client
    assert verdicts["2 clients, sync"].kind == "faster" and "1 client" in verdicts["2 clients, sync"].text
    assert verdicts["3 clients, sync"].kind == "same"
    # two client counts are not "the same settings": no A/A check among them
    assert all(c.same_as_baseline is None for c in group.configs)


def test_the_scaling_names_the_knee_and_each_clients_share(session: tuple[Results, int]) -> None:
    results, sid = session
    found = {item.series: item for item in session_scaling(results.session(sid), recipes())}  # type: ignore[arg-type]
    assert set(found) == {"sync", "async"}  # a thread count run at one client count only has no steps
    assert (found["sync"].scaling.kind, found["sync"].scaling.clients) == ("knee", 2)
    assert (found["async"].scaling.kind, found["async"].scaling.clients) == ("grows", 3)
    two = next(c for c in found["sync"].configs if c.clients == 2)
    assert list(two.per_client) == ["client", "client2"]
    assert two.fairness is not None and two.fairness[0] == pytest.approx(0.4 / 0.6)
    assert two.per_client["client"] == pytest.approx(19.0 * 0.6, rel=0.06)


def test_the_reports_show_the_scaling_and_the_shares(session: tuple[Results, int]) -> None:
    results, sid = session
    known = recipes()
    text = results_text(results.session(sid), known)  # type: ignore[arg-type]
    assert "several clients at once" in text
    assert "seq-write, sync: the NAS served" in text and "a third client added nothing that matters" in text
    assert "client2" in text and "slowest/fastest 0.67" in text
    page = session_html(results, sid, known)  # type: ignore[arg-type]
    assert "<h2>Several clients at once</h2>" in page and "client3" in page


def test_the_client_count_is_part_of_the_settings_two_sessions_are_matched_by(session: tuple[Results, int]) -> None:
    results, sid = session
    runs = {r["config_label"]: r for r in results.session(sid)["runs"]}
    one, two = effective_settings(runs["1 client, sync"]), effective_settings(runs["2 clients, sync"])
    assert one is not None and two is not None and one != two
    assert one[:4] == two[:4]  # the same export and mount: only the load differs


NFS_CONF = """\
# /etc/nfs.conf as Debian ships it (its [nfsd] part)
[nfsd]
# debug=0
# threads=8
# host=
"""


def test_more_threads_measured_faster_become_one_line_of_nfs_conf(session: tuple[Results, int]) -> None:
    results, sid = session
    keep_current(
        results,
        sid,
        CurrentConfig({"/etc/exports": "/export *(rw,sync,no_subtree_check)\n"}, None, {"/etc/nfs.conf": NFS_CONF}),
        server="nas",
    )
    rec = kept_recommendation(results, sid, recipes())  # type: ignore[arg-type]
    assert not isinstance(rec, str) and rec.threads is not None
    advice = rec.threads
    assert (advice.file, advice.line) == ("/etc/nfs.conf", "threads=64")
    # the admin's file, one line added in its [nfsd] section and nothing else changed
    assert advice.after == NFS_CONF.replace("[nfsd]\n", "[nfsd]\nthreads=64\n")
    assert advice.changed_lines == ([], ["threads=64"])
    assert "with 3 clients at once, 64 threads were faster" in advice.note and "95 % CI" in advice.note
    text = advice_text(rec, "/export")
    assert "Recommended in /etc/nfs.conf (on the server; your file, one value changed):\n  threads=64" in text
    assert "threads=64" in recommendation_html(rec)


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        ("[nfsd]\n threads = 8   # ours\n", "[nfsd]\n threads = 64   # ours\n"),
        (
            "[general]\npipefs-directory=/run/rpc_pipefs\n",
            "[general]\npipefs-directory=/run/rpc_pipefs\n\n[nfsd]\nthreads=64\n",
        ),
    ],
)
def test_the_count_is_written_where_nfs_utils_reads_it(own: str, expected: str) -> None:
    finding = ThreadsFinding(64, 3, "3 clients, 64 threads", {"seq-write": faster()})
    advice = threads_advice(finding, 8, {"/etc/nfs.conf": own})
    assert advice.after == expected


def test_threads_that_made_no_difference_are_said_and_nothing_is_recommended() -> None:
    same = ThreadsFinding(64, 3, "3 clients, 64 threads", {"seq-write": verdict("same", 1.01)})
    advice = threads_advice(same, 8, {"/etc/nfs.conf": NFS_CONF})
    assert advice.file is None and "made no difference that matters against the server's own 8" in advice.note
    unsettled = ThreadsFinding(64, 3, "3 clients, 64 threads", {"seq-write": verdict("not settled", 1.2)})
    assert threads_advice(unsettled, 8, {"/etc/nfs.conf": NFS_CONF}).file is None


def verdict(kind: str, ratio: float) -> Verdict:
    return Verdict(
        ("many-clients", "seq-write", "3 clients, 64 threads"),
        kind,
        ratio,
        (ratio * 0.9, ratio * 1.1),
        9,
        6,
        0.001,
        f"{kind} text",
        "more rounds" if kind == "not settled" else None,
        None,
    )  # type: ignore[arg-type]


def faster() -> Verdict:
    return verdict("faster", 1.3)


def test_two_sessions_from_several_clients_are_matched_by_client_count(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "results.db"))
    first, second = store_many_clients(results), store_many_clients(results)
    rows = compare_sessions(results.session(first), results.session(second), recipes())  # type: ignore[arg-type]
    # each configuration meets its own in the other session: the same export, mount, client count and threads
    assert sorted(row.config_label for row in rows) == sorted(CONFIGS)
    assert all(row.median_a is not None and row.median_b is not None for row in rows)


def test_a_count_with_no_measured_round_ends_its_series_there(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "results.db"))
    sid = store_many_clients(results)
    data = results.session(sid)
    for run in data["runs"]:
        if run["config_label"] == "3 clients, async":
            run["repeats"] = [r for r in run["repeats"] if r["warmup"]]  # cancelled before its first round
    found = {item.series: item for item in session_scaling(data, recipes())}  # type: ignore[arg-type]
    assert [c.clients for c in found["async"].configs] == [1, 2]  # read up to the last count measured
    assert [c.clients for c in found["sync"].configs] == [1, 2, 3]
    (group,) = summarize_session(data, recipes())  # type: ignore[arg-type]
    assert next(c for c in group.configs if c.label == "3 clients, async").verdict is None


def test_sync_4k_scaling_is_said_in_writes_a_second(tmp_path: Path) -> None:
    results = Results(open_store(tmp_path / "results.db"))
    sid = store_many_clients(results, "sync-4k")  # the levels are then writes a second (8 s of them each)
    found = {item.series: item for item in session_scaling(results.session(sid), recipes())}  # type: ignore[arg-type]
    text = found["sync"].scaling.text
    assert text.startswith("sync-4k: the NAS served 18.7 writes/s with 2 clients at once"), text
