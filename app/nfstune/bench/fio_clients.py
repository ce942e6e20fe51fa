"""One workload from several clients at once, through fio's client/server mode (issue 13): the job of each client
as a job file, the front end's command line, and the parser of the one JSON document the front end prints.

Each client's job is exactly the one-client job of fio.py (same options, same sizes), in a directory of its own
so that the clients never share a file. The front end sends each server the job file that follows its --client:
a job file after the last --client only would run on that client alone (docs/research/many-clients.md), and
--output-format goes after every --client, or the servers would receive it as a job option and print text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from nfstune.bench.fio import OUTPUT_OPTIONS, FioStreamParser
from nfstune.bench.histogram import merged, percentile_ns
from nfstune.bench.workloads import Tool, WorkloadId, WorkloadOutputError, WorkloadResult
from nfstune.bench.writeback import WritebackWait

# the front end prints one document at the end; per-second status of several servers is not streamed as JSON.
# json+: each client's latency histogram, which sync-4k's percentiles are read from once merged (fio 3.33's "All
# clients" entry has neither the histogram nor percentiles)
FRONT_END_OUTPUT = ("--output-format=json+",)
ALL_CLIENTS = "All clients"  # the jobname of fio's sum over the clients
# options of fio's command line that are not job options: a server refuses the job ("Bad option <readonly>", fio
# 3.33 on the lab, and the front end lost that server). seq-read's --readonly guards against reading a file that is
# not there; with several clients runner.ClientsRunner refuses a seq-read before seq-write instead.
COMMAND_LINE_ONLY = ("--readonly",)


class JobFileError(ValueError):
    pass


def job_file(run: Sequence[str]) -> str:
    """fio's job file for the command line of one job (`fio --name=N --opt=v ...`): a section named N with one
    `opt=v` line per option. The output options belong to the front end, and the command line's own options
    (COMMAND_LINE_ONLY) have no job form: both are left out."""
    if not run or run[0] != "fio":
        raise JobFileError(f"not a fio command: {' '.join(run[:1])!r}")
    name = None
    lines = []
    for arg in run[1:]:
        if arg in OUTPUT_OPTIONS or arg in COMMAND_LINE_ONLY:
            continue
        if not arg.startswith("--"):
            raise JobFileError(f"fio argument {arg!r} is not an option")
        key, eq, value = arg[2:].partition("=")
        if "\n" in value or "\n" in key:
            raise JobFileError(f"fio option {key!r} holds a line break")
        if key == "name":
            name = value
            continue
        lines.append(f"{key}={value}" if eq else key)
    if not name or "]" in name:
        raise JobFileError("a fio job needs a --name without ']'")
    return f"[{name}]\n" + "".join(f"{line}\n" for line in lines)


@dataclass(frozen=True)
class ClientJob:
    name: str  # the host's name in nfstune ("client2")
    server: str  # how the front end reaches its fio server: "ADDRESS,PORT"
    job_path: str  # the job file, on the front end's host


def front_end_argv(jobs: Sequence[ClientJob]) -> list[str]:
    argv = ["fio"]
    for job in jobs:
        argv += [f"--client={job.server}", job.job_path]
    return [*argv, *FRONT_END_OUTPUT]


@dataclass(frozen=True)
class ClientsResult:
    """One workload run by every client at once: each client's own result, in the order of the jobs."""

    workload: WorkloadId
    per_client: Mapping[str, WorkloadResult]
    raw: str = field(repr=False)
    writeback: tuple[WritebackWait, ...] = ()  # each host's wait for its writeback before the run

    @property
    def total_bytes(self) -> int:
        return sum(r.bytes for r in self.per_client.values())

    @property
    def total_ops(self) -> int:
        return sum(r.ops for r in self.per_client.values())

    @property
    def seconds(self) -> float:
        """The clients start together (as far as fio's front end can make them); the slowest one ends the run."""
        return max(r.seconds for r in self.per_client.values())

    @property
    def mb_per_s(self) -> float:
        """What the NAS served to all of them together."""
        return self.total_bytes / self.seconds / 1e6

    @property
    def lat_histogram(self) -> dict[int, int] | None:
        """Every client's writes in one latency histogram (bench/histogram.py); None unless each client has one."""
        histograms = [r.lat_histogram for r in self.per_client.values()]
        if not histograms or any(h is None for h in histograms):
            return None
        return merged(h for h in histograms if h is not None)

    def lat_percentile_us(self, percent: float) -> float | None:
        """The percentile of all the clients' writes together: read from the merged histogram, never an average
        of the clients' own percentiles."""
        histogram = self.lat_histogram
        found = percentile_ns(histogram, percent) if histogram else None
        return None if found is None else found / 1000

    @property
    def fairness(self) -> float:
        """The slowest client's rate over the fastest's: 1.0 when the NAS shares evenly."""
        rates = [r.mb_per_s for r in self.per_client.values()]
        return min(rates) / max(rates)


def parse_front_end(
    workload: WorkloadId, jobs: Sequence[ClientJob], stdout: str, stderr: str, expected_bytes: int | None = None
) -> ClientsResult:
    """The front end's one JSON document: an entry per client in `client_stats` (fio names it by the address
    and port its --client gave), and an "All clients" entry that nfstune does not use (it sums each client's
    figure itself). A client with no entry is an error: fio itself exits 0 when it could not reach a server."""
    raw = stdout + (f"\n--- stderr\n{stderr}" if stderr.strip() else "")
    start = stdout.find("{")
    try:
        document = json.loads(stdout[start:]) if start != -1 else None
    except (ValueError, RecursionError):
        document = None
    if not isinstance(document, dict) or not isinstance(document.get("client_stats"), list):
        problem = "fio's front end printed no JSON result" + _first_error(stderr)
        raise WorkloadOutputError(workload, Tool.FIO, problem, raw)
    entries: dict[tuple[str, int | None], dict[str, Any]] = {}
    for entry in document["client_stats"]:
        if isinstance(entry, dict) and entry.get("jobname") != ALL_CLIENTS:
            entries[(str(entry.get("hostname")), entry.get("port"))] = entry
    per_client: dict[str, WorkloadResult] = {}
    missing = []
    for job in jobs:
        address, _, port = job.server.rpartition(",")
        entry = entries.get((address, int(port))) or entries.get((address, None))
        if entry is None:
            missing.append(f"{job.name} ({address})")
            continue
        parser = FioStreamParser(workload, expected_bytes)
        parser.feed(json.dumps({"jobs": [entry]}))
        try:
            per_client[job.name] = replace(parser.result(), raw="")
        except WorkloadOutputError as exc:
            raise WorkloadOutputError(workload, Tool.FIO, f"{job.name}: {exc}", raw) from None
    if missing:
        problem = f"fio's front end has no result from {', '.join(missing)}" + _first_error(stderr)
        raise WorkloadOutputError(workload, Tool.FIO, problem, raw)
    return ClientsResult(workload, per_client, raw)


def _first_error(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return f" ({lines[0][:200]})" if lines else ""
