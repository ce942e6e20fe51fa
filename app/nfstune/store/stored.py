"""A stored session as typed records, its JSON columns parsed here, once: what every reader outside the store reads
instead of the plain data of Results.session (which the JSON export writes as it is).

The tables and their column names are the store's (db.py); old sessions stay readable: a column an older nfstune
did not write (plan, admin_config, steady_mb_per_s, a configuration's keys, a repeat's writeback) is None or empty
here, and a JSON text this version cannot read is treated as absent, never as an error."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ClientShare:
    """One client's part of a repeat run from several clients at once."""

    client: str
    bytes: int
    seconds: float
    mb_per_s: float
    ops: int
    ops_per_s: float
    lat_mean_us: float | None
    lat_p99_us: float | None
    lat_p50_us: float | None = None  # None: stored before nfstune kept each client's p50


@dataclass(frozen=True)
class StoredHandStep:
    """One step of a guided hand change: a block and what the admin was asked before it, or how the NAS was left."""

    recipe: str
    kind: str  # block | leave
    block: int | None
    config_label: str | None
    prompt: str | None
    asked_at: float | None
    answered_at: float | None
    answer: str | None  # continue | stop | as-it-was | with-change; None: not asked (the first block)


@dataclass(frozen=True)
class StoredWriteback:
    """What one host had to write back before a repeat's run, and how the wait for it ended."""

    host: str  # server | client | client2 ...
    found_kib: int  # Dirty + Writeback before nfstune flushed
    left_kib: int  # when the wait ended
    seconds: float
    limit_s: float
    limit_hit: bool  # the run started with the host still writing back


@dataclass(frozen=True)
class StoredRepeat:
    number: int  # the round in a session with a plan; a counter in an older one
    warmup: bool
    tool: str
    bytes: int | None
    seconds: float | None
    mb_per_s: float | None
    ops: int | None
    ops_per_s: float | None
    lat_mean_us: float | None
    lat_p50_us: float | None
    lat_p99_us: float | None
    wire_bytes: int | None
    steady_mb_per_s: float | None
    clients: tuple[ClientShare, ...] = ()
    writeback: tuple[StoredWriteback, ...] = ()  # none in a session stored before nfstune waited

    def record(self) -> dict[str, Any]:
        """The repeat's figures by column name, as bench.figure reads a repeat."""
        return {
            "tool": self.tool,
            "bytes": self.bytes,
            "seconds": self.seconds,
            "mb_per_s": self.mb_per_s,
            "ops": self.ops,
            "ops_per_s": self.ops_per_s,
            "lat_mean_us": self.lat_mean_us,
            "lat_p50_us": self.lat_p50_us,
            "lat_p99_us": self.lat_p99_us,
            "wire_bytes": self.wire_bytes,
            "steady_mb_per_s": self.steady_mb_per_s,
        }


@dataclass(frozen=True)
class RunConfig:
    """What a configuration changed, as the run stored it (runs.config); None or empty where it did not say."""

    mount: str | None = None
    export_set: tuple[str, ...] = ()
    read_ahead_kb: int | None = None
    expect: str | None = None
    clients: int | None = None  # clients at once
    nfsd_threads: int | None = None


@dataclass(frozen=True)
class StoredRun:
    id: int
    recipe: str
    config_label: str
    config: RunConfig
    workload: str
    requested_options: str | None  # mount options asked for
    negotiated_options: str | None  # as /proc/mounts showed them
    export_options: str | None  # as exportfs showed them
    status: str
    repeats: tuple[StoredRepeat, ...]


@dataclass(frozen=True)
class StoredCeiling:
    """A ceiling measured before the recipes (the store's table is still called baselines)."""

    kind: str  # network | disk
    direction: str
    mb_per_s: float
    seconds: float
    bytes: int


@dataclass(frozen=True)
class StoredLatency:
    kind: str  # round-trip | sync-write
    tool: str
    mean_ms: float
    median_ms: float | None
    min_ms: float | None
    max_ms: float | None
    count: int


@dataclass(frozen=True)
class StoredSession:
    id: int
    started_at: float
    ended_at: float | None
    status: str
    share: str
    scale: str
    recipes: tuple[str, ...]
    server_facts: str | None  # HostFacts JSON (nfstune.facts reads it; the store knows no facts)
    client_facts: str | None
    message: str | None
    plan: Mapping[str, Any] | None  # the plan as recipes.plan.plan_json wrote it; None before plans were kept
    admin_config: Mapping[str, Any] | None  # the configuration advice.session.keep_current kept; None: not kept
    runs: tuple[StoredRun, ...]
    ceilings: tuple[StoredCeiling, ...]
    latencies: tuple[StoredLatency, ...]
    # whether the session ran interleaved rounds: it kept a plan, even one this version cannot read
    paired: bool = False
    hand_steps: tuple[StoredHandStep, ...] = ()  # a guided hand change's blocks and prompts (none: no hand change)
    checks: int | None = None  # a check of that session's applied recommendation (`nfstune check`); None: not one
    check_outcome: Mapping[str, Any] | None = None  # the check's outcome as it kept it; None: none kept (yet)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> StoredSession:
        """From Results.session's plain data."""
        return cls(
            id=int(data["id"]),
            started_at=float(data["started_at"]),
            ended_at=data["ended_at"],
            status=str(data["status"]),
            share=str(data["share"]),
            scale=str(data["scale"]),
            recipes=tuple(str(r) for r in data["recipes"]),
            server_facts=data.get("server_facts") or None,
            client_facts=data.get("client_facts") or None,
            message=data.get("message"),
            plan=_object(data.get("plan")),
            admin_config=_object(data.get("admin_config")),
            runs=tuple(_run(run) for run in data["runs"]),
            ceilings=tuple(
                StoredCeiling(c["kind"], c["direction"], float(c["mb_per_s"]), float(c["seconds"]), int(c["bytes"]))
                for c in data.get("baselines") or ()
            ),
            latencies=tuple(
                StoredLatency(
                    x["kind"], x["tool"], float(x["mean_ms"]), x["median_ms"], x["min_ms"], x["max_ms"], int(x["count"])
                )
                for x in data.get("latencies") or ()
            ),
            paired=bool(data.get("plan")),
            hand_steps=tuple(
                StoredHandStep(
                    str(h["recipe"]),
                    str(h["kind"]),
                    h["block"],
                    h["config_label"],
                    h["prompt"],
                    h["asked_at"],
                    h["answered_at"],
                    h["answer"],
                )
                for h in data.get("hand_steps") or ()
            ),
            checks=None if data.get("checks") is None else int(data["checks"]),
            check_outcome=_object(data.get("check_outcome")),
        )


@dataclass(frozen=True)
class RawRows:
    """A session's rows with every column, raw tool output included, as the raw export writes them: what the JSON
    report passes on unread (its `runs`, and the columns beside each ceiling's label)."""

    runs: list[dict[str, Any]]
    ceilings: list[dict[str, Any]]  # in the order of StoredSession.ceilings
    latencies: list[dict[str, Any]]  # in the order of StoredSession.latencies


def _object(text: object) -> Mapping[str, Any] | None:
    """A JSON object column; None when absent, empty or not an object this version can read."""
    if not isinstance(text, str) or not text:
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) and found else None


def _run(run: Mapping[str, Any]) -> StoredRun:
    return StoredRun(
        id=int(run["id"]),
        recipe=str(run["recipe"]),
        config_label=str(run["config_label"]),
        config=_config(run.get("config")),
        workload=str(run["workload"]),
        requested_options=run["requested_options"],
        negotiated_options=run["negotiated_options"],
        export_options=run["export_options"],
        status=str(run["status"]),
        repeats=tuple(_repeat(rep) for rep in run["repeats"]),
    )


def _config(config: object) -> RunConfig:
    if isinstance(config, str):  # a row read without Results.session's parsing
        try:
            config = json.loads(config)
        except ValueError:
            config = None
    if not isinstance(config, Mapping):
        return RunConfig()
    export = config.get("export_set")
    return RunConfig(
        mount=_text(config.get("mount")),
        export_set=tuple(str(o) for o in export) if isinstance(export, list) else (),
        read_ahead_kb=_int(config.get("read_ahead_kb")),
        expect=_text(config.get("expect")),
        clients=_int(config.get("clients")),
        nfsd_threads=_int(config.get("nfsd_threads")),
    )


def _repeat(rep: Mapping[str, Any]) -> StoredRepeat:
    return StoredRepeat(
        number=int(rep["number"]),
        warmup=bool(rep["warmup"]),
        tool=str(rep["tool"]),
        bytes=rep.get("bytes"),
        seconds=rep.get("seconds"),
        mb_per_s=rep.get("mb_per_s"),
        ops=rep.get("ops"),
        ops_per_s=rep.get("ops_per_s"),
        lat_mean_us=rep.get("lat_mean_us"),
        lat_p50_us=rep.get("lat_p50_us"),
        lat_p99_us=rep.get("lat_p99_us"),
        wire_bytes=rep.get("wire_bytes"),
        steady_mb_per_s=rep.get("steady_mb_per_s"),
        clients=tuple(
            ClientShare(
                str(c["client"]),
                int(c["bytes"]),
                float(c["seconds"]),
                float(c["mb_per_s"]),
                int(c["ops"]),
                float(c["ops_per_s"]),
                c.get("lat_mean_us"),
                c.get("lat_p99_us"),
                c.get("lat_p50_us"),
            )
            for c in rep.get("clients") or ()
        ),
        writeback=tuple(
            StoredWriteback(
                str(w["host"]),
                int(w["found_kib"]),
                int(w["left_kib"]),
                float(w["seconds"]),
                float(w["limit_s"]),
                bool(w["limit_hit"]),
            )
            for w in rep.get("writeback") or ()
        ),
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
