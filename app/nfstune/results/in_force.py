"""Whether what an Apply wrote is what the hosts run: the fstab line's options against the mount's as the kernel
negotiated them (/proc/mounts), the exports line's against the export's as the kernel runs it (`exportfs -s`), the
nfsd thread count against /proc/fs/nfsd/threads. Pure: session/check_in_force.py reads the hosts.

Only what changes speed is compared, each as the kernel shows it: the NFS version (vers=4 is in force as any 4.x),
the transport, nconnect, hard or soft; rsize and wsize the server may grant smaller, which is said but is what
the session measured too. fstab's own options (nofail, _netdev, x-systemd.*) are not the kernel's and are left
out of a mount nfstune makes itself."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from nfstune.nfs.export_options import split_options
from nfstune.nfs.mount_options import MountOptions

FSTAB_ONLY = ("nofail", "_netdev", "auto", "noauto", "user", "users", "nouser", "owner", "group", "defaults", "comment")
FSTAB_PREFIXES = ("x-", "comment=")
MOUNT_KEYS = ("vers", "proto", "nconnect")
EXPORT_KEYS = ("sync", "async", "wdelay", "no_wdelay", "rw", "ro", "subtree_check", "no_subtree_check")


@dataclass(frozen=True)
class Mismatch:
    host: str  # the host's label
    what: str  # "the mount's NFS version", "the export's sync"
    applied: str
    in_force: str

    @property
    def text(self) -> str:
        return f"{self.host}: {self.what}: applied {self.applied}, in force {self.in_force}"


@dataclass(frozen=True)
class InForce:
    """What the check verified (each line what was compared), what differs, and what is only said."""

    verified: tuple[str, ...] = ()
    mismatches: tuple[Mismatch, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def __add__(self, other: InForce) -> InForce:
        return InForce(self.verified + other.verified, self.mismatches + other.mismatches, self.notes + other.notes)


def kernel_options(fstab_options: MountOptions | None) -> MountOptions:
    """The fstab line's options a mount of nfstune's own is made with: those fstab and systemd read left out."""
    kept = MountOptions()
    for option in (fstab_options or MountOptions()).options:
        if option.name in FSTAB_ONLY or option.name.startswith(FSTAB_PREFIXES):
            continue
        kept = kept.set(option.name, option.value)
    return kept


def _vers(options: MountOptions) -> str | None:
    return options.vers


def compare_mount(host: str, applied: MountOptions, negotiated: MountOptions, where: str) -> InForce:
    """`where`: the mount compared, in words ("/mnt/nfs", "nfstune's own mount with the applied options")."""
    mismatches = []
    shown = []
    want = _vers(applied)
    have = _vers(negotiated)
    if want is not None:
        shown.append(f"vers={have}")
        # vers=4 asks for the highest 4.x both sides offer: any 4.x is what was asked for
        if have is None or not (have == want or (have.startswith(want + ".") and "." not in want)):
            mismatches.append(Mismatch(host, f"the NFS version of {where}", f"vers={want}", f"vers={have}"))
    for key in MOUNT_KEYS[1:]:
        value = applied.get(key)
        if value is None:
            continue
        shown.append(f"{key}={negotiated.get(key)}")
        if negotiated.get(key) != value:
            mismatches.append(Mismatch(host, f"{key} of {where}", f"{key}={value}", f"{key}={negotiated.get(key)}"))
    # /proc/mounts says hard or soft; a mount without either is hard
    if applied.recovery is not None and (negotiated.recovery or "hard") != applied.recovery:
        mismatches.append(Mismatch(host, f"the recovery of {where}", applied.recovery, negotiated.recovery or "hard"))
    notes = []
    for key in ("rsize", "wsize"):
        asked, granted = applied.get(key), negotiated.get(key)
        if asked is not None and granted is not None and asked != granted:
            notes.append(f"{host}: {where}: {key}={asked} asked, {granted} granted by the server (as in the session)")
    verified = (f"{host}: {where}: {', '.join(shown) or 'mounted'} in force (/proc/mounts)",)
    return InForce(verified, tuple(mismatches), tuple(notes))


def compare_export(
    host: str, share: str, applied: Mapping[str, Iterable[str]], table: Mapping[tuple[str, str], Iterable[str]]
) -> InForce:
    """`applied`: each client of the applied exports line -> its options; `table`: (path, client) -> options as
    `exportfs -s` shows them."""
    mismatches, verified = [], []
    for client, options in applied.items():
        wanted = [o for o in split_options(",".join(options)) if o in EXPORT_KEYS]
        running = table.get((share, client))
        if running is None:
            mismatches.append(Mismatch(host, f"the export of {share} to {client}", ",".join(wanted), "not exported"))
            continue
        have = set(split_options(",".join(running)))
        missing = [o for o in wanted if o not in have]
        if missing:
            shown = ",".join(o for o in running if o in EXPORT_KEYS)
            mismatches.append(Mismatch(host, f"the export of {share} to {client}", ",".join(wanted), shown))
        else:
            verified.append(f"{host}: {share} to {client}: {','.join(wanted)} in force (exportfs -s)")
    return InForce(tuple(verified), tuple(mismatches))


def compare_threads(host: str, applied: int, running: int | None) -> InForce:
    if running == applied:
        return InForce((f"{host}: {running} nfsd threads running, as applied",))
    return InForce(
        mismatches=(Mismatch(host, "nfsd threads", str(applied), "unknown" if running is None else str(running)),),
        notes=(
            "the thread count in nfs.conf takes effect when the NFS server restarts (systemctl restart nfs-server)",
        ),
    )
