"""From measured results and host facts to the recommended /etc/exports and /etc/fstab lines, each option with its
reason, and async only ever as an opt-in alternative with its warning (shared/nfs-knowledge.md section 4). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from nfstune.bench.stats import Comparison

EXPORTS_ASYNC_WARNING = (
    '"This option allows the NFS server to violate the NFS protocol and reply to requests before any changes made '
    "by that request have been committed to stable storage (e.g. disc drive). Using this option usually improves "
    "performance, but at the cost that an unclean server restart (i.e. a crash) can cause data to be lost or "
    'corrupted." (exports(5))'
)
PLAIN_RISK = (
    "With async, a crash or power cut of the server loses or corrupts writes it had already confirmed: programs "
    "on the clients were told their data was safe (even fsync returned success), and none of them sees an error."
)
NEVER = {
    "no_wdelay": "write gathering applies to NFSv2 only in current kernels, so it changes nothing for v3/v4",
    "soft": "nfs(5): a soft timeout can cause silent data corruption for read-write data",
    "udp": "nfs(5): UDP on fast links can cause silent data corruption; servers ship udp=n",
    "noac": "noac makes every write synchronous, a large penalty, and is only for special cases",
    "fsid=0": "the legacy NFSv4 pseudo-root makes v4 paths differ from v3 paths",
}


@dataclass(frozen=True)
class Reason:
    option: str
    why: str


@dataclass(frozen=True)
class AsyncAlternative:
    line: str
    gain: str  # the measured figure
    warning: str = EXPORTS_ASYNC_WARNING
    risk: str = PLAIN_RISK
    conditions: str = (
        "Only for data you can recreate, on a server with a UPS, and after fixing slow fsync first (an SSD with "
        "power-loss protection, or a ZFS SLOG), which removes most of the gap without the risk."
    )


@dataclass(frozen=True)
class Recommendation:
    exports_line: str
    exports_reasons: tuple[Reason, ...]
    fstab_line: str
    fstab_reasons: tuple[Reason, ...]
    async_alternative: AsyncAlternative | None
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Measured:
    """What the session showed, as the advice needs it (all optional: a recipe may not have run)."""

    async_vs_sync: Mapping[str, Comparison] = field(default_factory=dict)  # workload -> sync (A) vs async (B)
    no_wdelay: Mapping[str, Comparison] = field(default_factory=dict)  # workload -> wdelay (A) vs no_wdelay (B)
    negotiated_rsize: int | None = None
    server_max_block_size: int | None = None
    best_version: str | None = None  # the fastest NFS version measured, if one was significantly faster
    version_reason: str | None = None


def recommend(
    *,
    share: str,
    client_spec: str,
    server: str,
    mount_point: str,
    current_options: Sequence[str] = (),
    measured: Measured,
) -> Recommendation:
    keep = [o for o in current_options if o.split("=")[0] in ("root_squash", "no_root_squash", "all_squash", "anonuid",
            "anongid", "sec", "crossmnt", "nohide", "insecure", "ro", "rw")]  # fmt: skip
    access = "ro" if "ro" in keep else "rw"
    squash = next((o for o in keep if o in ("root_squash", "no_root_squash", "all_squash")), "root_squash")
    extra = [o for o in keep if o not in ("ro", "rw", squash) and not o.startswith("fsid")]
    options = [access, "sync", "no_subtree_check", squash, *extra]
    reasons = [
        Reason("sync", _sync_reason(measured)),
        Reason("no_subtree_check", "the default since nfs-utils 1.1.0; subtree_check can decrease reliability"),
        Reason(squash, "kept as you have it" if squash in current_options else "root on a client is not root here"),
    ]
    if squash == "no_root_squash" and client_spec in ("*", "0.0.0.0/0"):
        reasons.append(Reason(squash, "RISK: every host on the network gets root access to this export"))
    exports_line = f"{share} {client_spec}({','.join(options)})"

    mount = ["vers=" + (measured.best_version or "4.2"), "hard", "_netdev", "nofail"]
    fstab_reasons = [
        Reason(
            mount[0], measured.version_reason or "the client tries 4.2 first; leave it unless a test shows otherwise"
        ),
        Reason("hard", "the default; soft can silently corrupt read-write data (nfs(5))"),
        Reason("_netdev,nofail", "wait for the network at boot, and do not block booting when the server is away"),
        Reason("rsize/wsize unset", _block_reason(measured)),
    ]
    fstab_line = f"{server}:{share} {mount_point} nfs {','.join(mount)} 0 0"

    notes = []
    for workload, comp in measured.no_wdelay.items():
        note = f"no_wdelay, {workload}: {comp.text}. Not recommended: {NEVER['no_wdelay']}"
        if comp.significant:  # the kernel gives the option nothing to do here: the difference is the host's
            note += "; a difference this size is this host's run-to-run variation, not the option"
        notes.append(note + ".")
    return Recommendation(
        exports_line, tuple(reasons), fstab_line, tuple(fstab_reasons), _async(measured, share, client_spec, options),
        tuple(notes),
    )  # fmt: skip


def _sync_reason(m: Measured) -> str:
    gains = [f"{w}: {c.text}" for w, c in m.async_vs_sync.items() if c.significant and c.faster == "async"]
    if gains:
        return "writes are on disk before the server confirms them; async measured faster (" + "; ".join(gains) + ")"
    if m.async_vs_sync:
        return "writes are on disk before the server confirms them; async measured no faster here"
    return "writes are on disk before the server confirms them (the default)"


def _block_reason(m: Measured) -> str:
    if m.negotiated_rsize is None:
        return "client and server negotiate the largest size both support"
    capped = f", capped by the server's max_block_size {m.server_max_block_size}" if m.server_max_block_size else ""
    return f"negotiated {m.negotiated_rsize} bytes{capped}; setting them can only lower it"


def _async(m: Measured, share: str, client_spec: str, options: list[str]) -> AsyncAlternative | None:
    wins = [(w, c) for w, c in m.async_vs_sync.items() if c.significant and c.faster == "async"]
    if not wins:
        return None
    line = f"{share} {client_spec}({','.join('async' if o == 'sync' else o for o in options)})"
    return AsyncAlternative(line, "; ".join(f"{w}: {c.text}" for w, c in wins))
