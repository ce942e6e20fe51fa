"""Several clients through fio's client/server mode: each client's job file, and the front end's command line."""

from __future__ import annotations

import configparser
import json
from pathlib import Path

import pytest

from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, JobFileError, front_end_argv, job_file, parse_front_end
from nfstune.bench.workloads import MIB, WorkloadId, WorkloadOutputError, WorkloadSizes
from nfstune.changes.fio_server import start_server
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.store import Journal, open_store

SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)


def read_job(text: str) -> configparser.ConfigParser:
    ini = configparser.ConfigParser(allow_no_value=True, interpolation=None, delimiters=("=",))
    ini.optionxform = str  # type: ignore[assignment,method-assign]
    ini.read_string(text)
    return ini


@pytest.mark.parametrize("workload", [WorkloadId.SEQ_WRITE, WorkloadId.SEQ_READ, WorkloadId.SYNC_4K])
def test_a_job_file_holds_every_option_of_the_one_client_job_but_the_output(workload: WorkloadId) -> None:
    run = fio_commands(workload, "/mnt/nfstune/x:y/client2", SIZES).run
    ini = read_job(job_file(run))
    (name,) = ini.sections()
    assert f"--name={name}" in run
    written = {f"--{key}={value}" if value is not None else f"--{key}" for key, value in ini[name].items()}
    options = {a for a in run[1:] if a != f"--name={name}"}
    assert written <= options
    left_out = options - written
    assert left_out and all(
        a.startswith(("--output-format", "--status-interval", "--eta"))
        for a in left_out
        - {
            "--readonly"  # a command-line option only: fio's server refuses it in a job file
        }
    )
    assert ("--readonly" in left_out) == (workload is WorkloadId.SEQ_READ)
    # the colon escape of the one-client job survives: fio reads job files' filename= the same way
    assert ini[name]["filename"].startswith("/mnt/nfstune/x\\:y/client2/")


@pytest.mark.parametrize(
    "run",
    [
        ["dd", "if=/dev/zero"],
        ["fio", "--rw=write"],  # no name
        ["fio", "--name=a]b"],
        ["fio", "--name=a", "/etc/passwd"],  # a bare argument would be read as another job file
        ["fio", "--name=a", "--filename=/mnt/x\n[evil]\nexec_prerun=rm -rf /"],
    ],
)
def test_what_cannot_be_one_job_is_refused(run: list[str]) -> None:
    with pytest.raises(JobFileError):
        job_file(run)


def test_each_server_gets_its_own_job_and_the_output_format_comes_last() -> None:
    jobs = [ClientJob("client", "10.99.0.2,8765", "/var/tmp/a.fio"), ClientJob("client2", "10.99.0.3,8765", "/b.fio")]
    argv = front_end_argv(jobs)
    assert argv[0] == "fio" and argv[-1] == "--output-format=json+"
    clients = [i for i, a in enumerate(argv) if a.startswith("--client=")]
    assert [argv[i] for i in clients] == ["--client=10.99.0.2,8765", "--client=10.99.0.3,8765"]
    assert [argv[i + 1] for i in clients] == ["/var/tmp/a.fio", "/b.fio"]
    assert argv.index("--output-format=json+") > clients[-1] + 1


@pytest.mark.parametrize(
    ("address", "port", "message"),
    [
        ("0.0.0.0", 8765, "every address"),
        ("::1", 8765, "one IPv4 address"),
        ("client2", 8765, "one IPv4 address"),
        ("10.99.0.3", 80, "out of range"),
    ],
)
def test_a_fio_server_that_would_listen_too_widely_is_refused_before_anything_is_journaled(
    tmp_path: Path, address: str, port: int, message: str
) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    never = Host("127.0.0.1", port=9, known_hosts=tmp_path / "known_hosts", label="never connected")
    with pytest.raises(NfstuneError, match=message):
        start_server(never, Transaction(journal, lambda _m: None), address, port)
    assert journal.pending() == []


# --- the front end's output, captured on the lab (tests/captures/bench/make_fio_clients_captures.py) -------------

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
CAPTURE_SIZES = WorkloadSizes(seq_file_bytes=24 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=100)
LAB_JOBS = [
    ClientJob("client", "10.99.0.2,8765", "/var/tmp/nfstune-capture-client.fio"),
    ClientJob("client2", "10.99.0.3,8765", "/var/tmp/nfstune-capture-client2.fio"),
]


def front_end_capture(name: str) -> tuple[str, str, int]:
    text = (CAPTURES / name).read_text()
    stdout, _, rest = text.partition("--- stderr\n")
    stderr, _, status = rest.rpartition("--- exit ")
    return stdout, stderr, int(status)


@pytest.mark.parametrize(
    ("workload", "expected"),
    [
        (WorkloadId.SEQ_WRITE, CAPTURE_SIZES.seq_file_bytes),
        (WorkloadId.SEQ_READ, CAPTURE_SIZES.seq_file_bytes),
        (WorkloadId.SYNC_4K, CAPTURE_SIZES.sync_4k_count * 4096),
    ],
)
def test_each_clients_result_is_read_from_the_front_ends_document(workload: WorkloadId, expected: int) -> None:
    stdout, stderr, status = front_end_capture(f"fio-clients-{workload}.out")
    assert status == 0
    result = parse_front_end(workload, LAB_JOBS, stdout, stderr, expected)
    assert list(result.per_client) == ["client", "client2"]
    assert all(r.bytes == expected and r.seconds > 0 for r in result.per_client.values())
    assert result.total_bytes == 2 * expected
    assert result.seconds == max(r.seconds for r in result.per_client.values())
    assert result.mb_per_s == pytest.approx(2 * expected / result.seconds / 1e6)
    assert 0 < result.fairness <= 1
    if workload is WorkloadId.SYNC_4K:
        assert all(r.lat_p99_us and r.lat_p50_us and r.lat_p99_us >= r.lat_p50_us for r in result.per_client.values())
    # fio's own sum over the clients agrees with ours on the bytes
    document = json.loads(stdout[stdout.index("{") :])
    (everyone,) = [e for e in document["client_stats"] if e["jobname"] == "All clients"]
    direction = "read" if workload is WorkloadId.SEQ_READ else "write"
    assert everyone[direction]["io_bytes"] == result.total_bytes


def test_a_client_without_a_result_is_named() -> None:
    stdout, stderr, _ = front_end_capture("fio-clients-seq-write.out")
    three = [*LAB_JOBS, ClientJob("client3", "10.99.0.4,8765", "/var/tmp/c3.fio")]
    with pytest.raises(WorkloadOutputError, match=r"no result from client3 \(10\.99\.0\.4\)"):
        parse_front_end(WorkloadId.SEQ_WRITE, three, stdout, stderr)


def test_a_server_gone_before_the_start_is_an_error_naming_that_client() -> None:
    stdout, stderr, _ = front_end_capture("fio-clients-one-server-gone.out")
    with pytest.raises(WorkloadOutputError, match=r"client2 \(10\.99\.0\.3\)") as info:
        parse_front_end(WorkloadId.SYNC_4K, LAB_JOBS, stdout, stderr)
    first_error = next(line.strip() for line in stderr.splitlines() if line.strip())
    assert first_error[:60] in str(info.value)


def test_a_cut_document_is_no_result() -> None:
    stdout, stderr, _ = front_end_capture("fio-clients-seq-write.out")
    with pytest.raises(WorkloadOutputError, match="printed no JSON result"):
        parse_front_end(WorkloadId.SEQ_WRITE, LAB_JOBS, stdout[: len(stdout) // 2], stderr)
