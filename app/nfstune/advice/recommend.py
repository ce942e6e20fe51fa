"""From measured results and the admin's own configuration to the recommended /etc/exports entry and /etc/fstab
line, each option with its reason, and async only ever as an opt-in alternative with its warning
(docs/nfs-knowledge.md section 4). Pure.

A recommendation is the admin's own entry with only the tuned knobs changed: today the one tuned export option is
sync (an async client becomes sync; a sync one is left as written), and the one tuned mount option is the NFS
version, changed only when a version's verdict was "faster" (and "slower" on no workload). Every other client,
option, byte and the fstab entry's mount point stay as they are (docs/DESIGN.md, "Safety model")."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from nfstune.advice.gains import ASYNC as ASYNC_GAIN
from nfstune.advice.gains import Gain, faster
from nfstune.advice.threads import ThreadsAdvice, ThreadsFinding, threads_advice
from nfstune.errors import ConfigError
from nfstune.nfs.export_edit import with_options
from nfstune.nfs.export_options import ASYNC, split_options
from nfstune.nfs.exports import Client, ExportEntry, ExportsFile, encode_word, same_export
from nfstune.nfs.exports_findings import findings, matches_everyone
from nfstune.nfs.exports_rewrite import (
    EXPORTS,
    defining_entry,
    other_entries_notes,
    parse_export_text,
    refuse_unread,
    weakens,
)
from nfstune.nfs.fstab import Fstab, FstabEntry
from nfstune.nfs.fstab_rewrite import TUNED_MOUNT_OPTIONS, find_nfs_entry, skipped_lines_naming
from nfstune.nfs.mount_options import MountOption, MountOptions
from nfstune.nfs.mounts import mount_source
from nfstune.statistics.verdict import Verdict

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
    line: str  # the whole entry with async, as the admin would write it by hand (never applied by nfstune)
    gain: str  # the measured figure
    warning: str = EXPORTS_ASYNC_WARNING
    risk: str = PLAIN_RISK
    conditions: str = (
        "Only for data you can recreate, on a server with a UPS, and after fixing slow fsync first (an SSD with "
        "power-loss protection, or a ZFS SLOG), which removes most of the gap without the risk."
    )


@dataclass(frozen=True)
class Recommendation:
    exports_line: str  # the share's whole entry as recommended (continuation lines included), without a newline
    exports_reasons: tuple[Reason, ...]
    fstab_line: str  # the client's entry for the share as recommended, or a new line
    fstab_reasons: tuple[Reason, ...]
    async_alternative: AsyncAlternative | None
    notes: tuple[str, ...] = field(default=())
    exports_file: str = EXPORTS  # the file that defines the export, or that gets the new line
    exports_before: str | None = None  # the entry as it is now; None when the share is not exported yet
    fstab_before: str | None = None  # the fstab line as it is now; None when the client has none for the share
    threads: ThreadsAdvice | None = None  # what a many-clients session says of the nfsd thread count
    gains: tuple[Gain, ...] = ()  # the measured gains of what changes, and of async when it is offered


@dataclass(frozen=True)
class Measured:
    """What the session showed, as the advice needs it (all optional: a recipe may not have run)."""

    async_vs_sync: Mapping[str, Verdict] = field(default_factory=dict)  # workload -> async against sync
    no_wdelay: Mapping[str, Verdict] = field(default_factory=dict)  # workload -> no_wdelay against wdelay
    negotiated_rsize: int | None = None
    server_max_block_size: int | None = None
    best_version: str | None = None  # an NFS version whose verdict was "faster" (never "slower"); None: keep it
    version_reason: str | None = None  # the verdicts that say so, with their CIs
    version_verdicts: Mapping[str, Verdict] = field(default_factory=dict)  # workload -> best_version's verdict
    threads: ThreadsFinding | None = None  # more nfsd threads against the server's own, with several clients
    own_threads: int | None = None  # the server's nfsd thread count otherwise (its probe)


NEW_EXPORT_OPTIONS = ("rw", "sync", "no_subtree_check", "root_squash")
DEFAULT_MOUNT_POINT = "/mnt/nfs"
NOT_READ = (
    "nfstune could not log in to the server, so its exports were not read and nothing is recommended there; "
    "what the server decides (sync or async, its threads) was not measured either"
)
KEPT = "kept as you have it"
# said wherever a line keeps no_root_squash: nfstune never changes access, but it does not stay silent about it
NO_ROOT_SQUASH_NOTE = (
    "no_root_squash: root on that client is root on these files too (exports(5)); nfstune leaves access as is"
)
RISKY_MOUNT = {"soft": NEVER["soft"], "udp": NEVER["udp"], "noac": NEVER["noac"]}


def recommend(
    *,
    share: str,
    server: str,
    measured: Measured,
    exports: Mapping[str, str] | str | None = None,
    fstab: str | None = None,
    client_spec: str | None = None,
    mount_point: str = DEFAULT_MOUNT_POINT,
    nfs_conf: Mapping[str, str] | None = None,
    server_aliases: Collection[str] = (),
    server_login: bool = True,
) -> Recommendation:
    """The recommendation for `share` from the server's exports files (`exports`: path -> text, or the text of
    /etc/exports) and the client's /etc/fstab text (None when it has none). `client_spec` is used only when no
    file exports the share yet; a new read-write export to everyone is refused (ConfigError). `nfs_conf`: the
    server's nfs.conf files (path -> text), where a thread count measured faster is set. `server_aliases`: the
    addresses the client resolves `server` to (an fstab entry naming it by address is the share's entry).
    `server_login` False: nfstune could not read the server's files, so the recommendation is the fstab line
    alone (Recommendation.exports_line is "")."""
    files = {EXPORTS: exports} if isinstance(exports, str) else dict(exports or {})
    notes: list[str] = []
    found = defining_entry(files, share)
    reasons: list[Reason]
    if not server_login:
        file, before, exports_line, reasons, alternative = EXPORTS, None, "", [], None
        notes.append(NOT_READ)
    elif found is None:
        refuse_unread(files, share)
        file, before = EXPORTS, None
        exports_line, reasons, async_line = _new_export(share, client_spec, measured)
        alternative = _async(measured, async_line)
    else:
        file, doc, entry = found
        before = entry.text
        exports_line, reasons, notes = _edit_export(file, doc, entry, share, measured)
        alternative = _async(measured, _async_text(doc, entry, share)) if doc.stop is None else None
    notes += other_entries_notes(files, share) if server_login else []
    fstab_line, fstab_reasons, fstab_before, fstab_notes = _fstab(
        fstab, server, share, mount_point, measured, server_aliases
    )
    notes += fstab_notes
    notes += [_no_wdelay_note(workload, verdict) for workload, verdict in measured.no_wdelay.items()]
    threads = None
    if measured.threads is not None:
        threads = threads_advice(measured.threads, measured.own_threads, nfs_conf)
    gains = faster(ASYNC_GAIN, measured.async_vs_sync) if alternative is not None else []
    if any(r.option == f"vers={measured.best_version}" for r in fstab_reasons):  # the version the line now sets
        gains += faster(f"vers={measured.best_version}", measured.version_verdicts)
    if threads is not None and threads.threads is not None and measured.threads is not None:
        gains += faster(f"{threads.threads} nfsd threads", measured.threads.verdicts)
    return Recommendation(
        exports_line,
        tuple(reasons),
        fstab_line,
        tuple(fstab_reasons),
        alternative,
        tuple(notes),
        exports_file=file,
        exports_before=before,
        fstab_before=fstab_before,
        threads=threads,
        gains=tuple(gains),
    )


# --- /etc/exports -------------------------------------------------------------------------------------------------


def _new_export(share: str, client_spec: str | None, measured: Measured) -> tuple[str, list[Reason], str]:
    """A line for a share no file exports yet: to the client the admin named, never to everyone read-write."""
    if not client_spec or client_spec in ("*", "0.0.0.0/0", "::/0"):
        raise ConfigError(
            f"{share} is not exported yet, and a new read-write export to every host would widen access: "
            "name the clients to export it to (a host, a subnet such as 192.168.1.0/24, or @netgroup)"
        )
    if set(client_spec) & set('() \t\n"\\') or client_spec.startswith(("-", "#")):
        raise ConfigError(f"{client_spec!r} is not a client of an exports line (a host, a subnet or @netgroup)")
    try:
        words = f"{encode_word(share)} {encode_word(client_spec)}"
    except ValueError as exc:
        raise ConfigError(f"the share {share!r} cannot be written in an exports file: {exc}") from None
    line = f"{words}({','.join(NEW_EXPORT_OPTIONS)})"
    entry = parse_export_text(line, share)
    client = entry.clients[0]
    if len(entry.clients) != 1 or client.spec != client_spec or matches_everyone(client):
        raise ConfigError(f"{client_spec!r} is not one client that names some hosts, not all of them")
    reasons = [
        Reason("rw", "clients read and write the share (a new export: choose ro if they only read)"),
        Reason("sync", _sync_reason(measured)),
        Reason("no_subtree_check", "the default since nfs-utils 1.1.0; subtree_check can decrease reliability"),
        Reason("root_squash", "root on a client is not root here"),
    ]
    return line, reasons, f"{words}({','.join('async' if o == 'sync' else o for o in NEW_EXPORT_OPTIONS)})"


def _edit_export(
    file: str, doc: ExportsFile, entry: ExportEntry, share: str, measured: Measured
) -> tuple[str, list[Reason], list[str]]:
    """The admin's entry with every async client made sync, and nothing else changed."""
    notes = [
        f"{file} line {f.line}{f' ({f.client})' if f.client else ''}: {f.finding.message}"
        for f in findings(doc)
        if same_export(f.path, share) and f.finding.kind == "risk" and f.finding.option != "async"
    ]
    if doc.stop is not None:
        notes.append(
            f"{file} line {doc.stop.line}: {doc.stop.error}. nfstune does not apply anything to this file until "
            "that line is corrected."
        )
    changed: list[str] = []
    new_doc = doc
    if doc.stop is None:
        for client in _firsts(entry):
            if not client.options.flag(ASYNC):
                continue  # already sync: its word stays as written
            try:
                current = new_doc.client(share, client.name)
                new_doc = new_doc.with_client_options(
                    share, client.name, with_options(current.explicit_options, ["sync"])
                )
                changed.append(client.name)
            except (KeyError, ValueError):
                notes.append(f"{client.name}: its options cannot be rewritten cleanly; set sync there by hand.")
    new_entry = new_doc.find(share)
    if new_entry is None or weakens(entry, new_entry):  # cannot happen; never recommend what apply would refuse
        new_entry, changed = entry, []
    sync_why = _sync_reason(measured)
    if changed:
        sync_why += f" (changed from async for {', '.join(changed)})"
    reasons = [Reason("sync", sync_why)]
    for client in _firsts(new_entry):
        written = [o for d in client.defaults for o in split_options(d)] + list(client.explicit_options)
        kept = [o for o in dict.fromkeys(written) if o not in ("sync", "async")]
        why = KEPT
        if client.options.read_only and "ro" not in kept:
            why += " (read-only: no rw is written, and ro is the default)"
        if not client.options.root_squash:
            why += f"; {NO_ROOT_SQUASH_NOTE}"
        reasons.append(Reason(f"{client.name}: {','.join(kept) or 'no options written'}", why))
        if matches_everyone(client) and not client.options.read_only:
            reasons.append(
                Reason(client.name, "RISK: every host may write to this export; nfstune leaves access as is")
            )
        if matches_everyone(client) and not client.options.root_squash:
            reasons.append(
                Reason("no_root_squash", f"RISK: root on every host gets root access to this export ({client.name})")
            )
    return new_entry.text, reasons, notes


def _firsts(entry: ExportEntry) -> list[Client]:
    """The clients exportfs uses: the first of each name."""
    seen: set[str] = set()
    out = []
    for client in entry.clients:
        if client.name not in seen:
            seen.add(client.name)
            out.append(client)
    return out


def _async_text(doc: ExportsFile, entry: ExportEntry, share: str) -> str:
    """The admin's entry with every client async: what the opt-in alternative shows."""
    new_doc = doc
    for client in _firsts(entry):
        if client.options.flag(ASYNC):
            continue
        try:
            current = new_doc.client(share, client.name)
            new_doc = new_doc.with_client_options(share, client.name, with_options(current.explicit_options, ["async"]))
        except (KeyError, ValueError):
            continue
    found = new_doc.find(share)
    return found.text if found is not None else entry.text


def _async(m: Measured, text: str) -> AsyncAlternative | None:
    """Offered only where async's verdict is "faster"; a workload it made slower is said plainly."""
    wins = [f"{w}: {v.text}" for w, v in m.async_vs_sync.items() if v.kind == "faster"]
    if not wins:
        return None
    losses = [f"{w}: {v.text}" for w, v in m.async_vs_sync.items() if v.kind == "slower"]
    gain = "; ".join(wins)
    if losses:
        gain += ". Slower with async: " + "; ".join(losses)
    return AsyncAlternative(text, gain)


def _no_wdelay_note(workload: str, verdict: Verdict) -> str:
    """no_wdelay is never recommended; the note says what was measured without contradicting that."""
    head = f"no_wdelay, {workload}: {verdict.text}. Not recommended"
    if verdict.kind in ("unreliable", "not settled"):
        return f"{head}: the kernel ignores no_wdelay on NFSv3/v4, and the measurement shows no settled effect."
    if verdict.effect:  # the kernel has no code for it on v3/v4: the difference came from the hosts
        return (
            f"{head}: the kernel ignores no_wdelay on NFSv3/v4, so this difference is not the option's but the "
            "hosts' drift during the measurement."
        )
    return f"{head}: {NEVER['no_wdelay']}."


# --- /etc/fstab ---------------------------------------------------------------------------------------------------


def _fstab(
    text: str | None, server: str, share: str, mount_point: str, measured: Measured, aliases: Collection[str] = ()
) -> tuple[str, list[Reason], str | None, list[str]]:
    """The client's entry for the share with only a measured version changed, or a new line."""
    source = mount_source(server, share)
    fstab = Fstab.parse(text or "")
    index = find_nfs_entry(fstab, source, aliases)
    version = measured.best_version
    notes: list[str] = []
    if index is None:
        notes += [
            f"/etc/fstab line {at + 1} names {source}, but mount skips that line: it {why}. nfstune adds an "
            "entry of its own; correct or remove that line."
            for at, why in skipped_lines_naming(fstab, source, aliases)
        ]
        taken = {entry.mount_point for entry in fstab.entries()}
        point = next(p for p in (mount_point, *(f"{mount_point}-{n}" for n in range(2, 100))) if p not in taken)
        mount = ["vers=" + (version or "4.2"), "hard", "_netdev", "nofail"]
        added = FstabEntry(source, point, "nfs", MountOptions.parse(",".join(mount)), 0, 0)
        new_reasons = [
            Reason(
                mount[0],
                measured.version_reason
                or "the newest version; nothing measured here says another "
                "is faster, and written out a server's upgrade cannot change it behind your back",
            ),
            Reason("hard", "the default; soft can silently corrupt read-write data (nfs(5))"),
            Reason("_netdev,nofail", "wait for the network at boot, and do not block booting when the server is away"),
            Reason("rsize/wsize unset", _block_reason(measured)),
        ]
        return added.render((" ",)), new_reasons, None, notes
    line = fstab.lines[index]
    entry = line.entry
    assert entry is not None
    options = entry.options or MountOptions()
    reasons: list[Reason] = []
    if version and options.vers != version:
        if entry.fstype == "nfs4" and not version.startswith("4"):
            notes.append(f"NFS {version} measured faster, but your entry has type nfs4, which mounts NFSv4 only.")
        else:
            options = _set_version(options, version)
            reasons.append(Reason(f"vers={version}", measured.version_reason or "measured faster"))
    new = line if options == (entry.options or MountOptions()) else line.with_options(options)
    reasons.append(
        Reason(
            f"{entry.device} on {entry.mount_point}",
            f"{KEPT}: your entry, its mount point and every option ({(entry.options or 'defaults')})",
        )
    )
    reasons.append(Reason("rsize/wsize", _block_reason(measured)))
    notes += [
        f"Your fstab entry has {name}, which nfstune leaves as it is: {why}."
        for name, why in RISKY_MOUNT.items()
        if name in options.names()
    ]
    return new.text, reasons, line.text, notes


def _set_version(options: MountOptions, version: str) -> MountOptions:
    """vers=VERSION where the entry first names a version (vers=, nfsvers=, v3...), its other version options
    gone; at the end when it names none."""
    items = list(options.options)
    places = [i for i, option in enumerate(items) if option.name in TUNED_MOUNT_OPTIONS]
    if not places:
        return MountOptions((*items, MountOption("vers", version)))
    items[places[0]] = MountOption("vers", version)
    for i in reversed(places[1:]):
        del items[i]
    return MountOptions(tuple(items))


def _sync_reason(m: Measured) -> str:
    why = "writes are on disk before the server confirms them"
    if not m.async_vs_sync:
        return why + " (the default)"
    measured = "; ".join(f"{w}: {v.text}" for w, v in m.async_vs_sync.items())
    if any(v.kind == "faster" for v in m.async_vs_sync.values()):
        return f"{why}; async measured faster ({measured})"
    return f"{why}; async was not measured faster here ({measured})"


def _block_reason(m: Measured) -> str:
    if m.negotiated_rsize is None:
        return "client and server negotiate the largest size both support"
    capped = f", capped by the server's max_block_size {m.server_max_block_size}" if m.server_max_block_size else ""
    return f"negotiated {m.negotiated_rsize} bytes{capped}; setting them can only lower it"
