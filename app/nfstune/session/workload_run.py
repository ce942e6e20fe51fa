"""One repeat of one workload in a visit, from the client alone (bench.runner) or from several clients at once
(bench.clients_runner): measured while its samples are kept for its run, stored with its raw output, added to the
recipe's figures, and said as a "repeat" event. The two differ only in `_measure`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nfstune.bench.clients_runner import LoadClient
from nfstune.bench.figure import client_shares, clients_record, judged_by, judged_figure, repeat_figures, repeat_record
from nfstune.bench.fio_clients import ClientsResult
from nfstune.bench.runner import ClientRunner
from nfstune.bench.workloads import WorkloadId, WorkloadSizes
from nfstune.bench.writeback import WritebackWait
from nfstune.changes.host_change import Where
from nfstune.recipes.model import WORKLOADS
from nfstune.recipes.plan import Visit
from nfstune.session.admin import Admin, Event
from nfstune.session.load_clients import SessionLoad
from nfstune.session.rounds import RecipeFigures
from nfstune.session.samplers import LiveSamples
from nfstune.store import Results


@dataclass(frozen=True)
class Repeat:
    record: dict[str, Any]  # as the store keeps it (bench.figure)
    seconds: float  # the tool's timed part
    clients: ClientsResult | None = None  # from several clients: each one's part
    writeback: tuple[WritebackWait, ...] = ()  # each host's wait for its writeback before the run


class WorkloadRunner:
    """One per session: its client runner knows the files the scratch directory holds."""

    def __init__(
        self, client: ClientRunner, load: SessionLoad, samples: LiveSamples, results: Results, admin: Admin
    ) -> None:
        self.client, self.load, self.samples, self.results, self.admin = client, load, samples, results, admin

    def forget_seq_file(self) -> None:
        """A new filesystem: seq-write's file of an earlier visit is not on it."""
        self.client.seq_file_bytes = None

    def run(
        self,
        visit: Visit,
        workload: str,
        run_id: int,
        sizes: WorkloadSizes,
        recipe_figures: RecipeFigures,
        where: Where,
        loads: Sequence[LoadClient],
    ) -> None:
        """`where`: the visit's mount point and scratch directory. `loads`: the clients a configuration of several
        clients runs from; empty for the client alone."""
        self.samples.begin(run_id)
        try:
            repeat = self._measure(workload, sizes, where, loads)
            figures = repeat_figures(workload, repeat.record)
            # the figure it is judged by, on its own basis (a run's group is the same kind of run: fio or dd)
            value = judged_figure(figures, judged_by(workload, [figures]))
            repeat_id = self.results.add_repeat(run_id, visit.round, warmup=visit.warmup, values=repeat.record)
            if repeat.clients is not None:
                self.results.add_repeat_clients(repeat_id, client_shares(repeat.clients))
            self.results.add_repeat_writeback(repeat_id, [wait.record() for wait in repeat.writeback])
        finally:
            self.samples.end()
        recipe_figures.add(workload, visit.label, visit.round, figures, repeat.seconds)
        unit = WORKLOADS[workload].unit
        label = "warm-up" if visit.warmup else f"round {visit.round}"
        message = f"{visit.recipe} {visit.label} {workload} {label}: {value:.3g} {unit}"
        data: dict[str, object] = {
            "run_id": run_id,
            "value": value,
            "warmup": visit.warmup,
            "round": visit.round,
            "recipe": visit.recipe,
            "config": visit.label,
            "workload": workload,
            "unit": unit,
        }
        if repeat.clients is not None:
            per_client = repeat.clients.per_client
            shares = ", ".join(f"{name} {r.mb_per_s:.3g} MB/s" for name, r in per_client.items())
            message += f" together ({shares})"
            data["clients"] = {name: r.mb_per_s for name, r in per_client.items()}
        self.admin.emit(Event("repeat", message, data))

    def _measure(self, workload: str, sizes: WorkloadSizes, where: Where, loads: Sequence[LoadClient]) -> Repeat:
        if loads:
            assert self.load.runner is not None
            result = self.load.runner.run(WorkloadId(workload), sizes, loads, where.export_path)
            return Repeat(clients_record(result), result.seconds, result, result.writeback)
        measured = self.client.run(
            WorkloadId(workload),
            sizes,
            scratch=where.scratch,
            mount_point=where.mount_point,
            export_path=where.export_path,
        )
        record = repeat_record(measured.result, measured.wire_bytes)
        return Repeat(record, measured.result.seconds, writeback=measured.writeback)
