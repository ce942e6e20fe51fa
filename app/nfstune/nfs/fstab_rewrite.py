"""The new text of the client's /etc/fstab, as Apply writes it (a FileEdit, nfs/file_edit.py): only the options
field of the share's existing entry, or a new line when there is none; refused (ConfigError, nothing planned) when
it would drop or change a mount option nfstune does not tune (fstab_weakens() lists why)."""

from __future__ import annotations

import ipaddress
import posixpath
from collections.abc import Collection

from nfstune.errors import ConfigError
from nfstune.nfs.file_edit import FileEdit, file_edit, one_line, text_bytes
from nfstune.nfs.fstab import Fstab, FstabEntry, FstabLine, fields_of, skipped_because
from nfstune.nfs.mount_options import MountOptions
from nfstune.nfs.mounts import split_source, unescape_field

FSTAB = "/etc/fstab"
TUNED_MOUNT_OPTIONS = frozenset(("vers", "nfsvers", "v2", "v3", "v4", "v4.0", "v4.1", "v4.2"))


def parse_fstab_line(line: str) -> FstabEntry:
    """The new fstab line as mount reads it; ConfigError unless it is one NFS entry (server:/path as mount.nfs
    splits it, an absolute mount point, type nfs or nfs4). Like libmount, nothing after the pass number is read:
    the admin's comment there stays in the line."""
    text = one_line(line, "fstab")
    parsed = FstabLine.parse(text)
    if parsed.is_comment:
        raise ConfigError(f"the new fstab line is a comment: {text!r}")
    skipped = skipped_because(text)
    if skipped:
        raise ConfigError(f"mount would skip the new fstab line: it {skipped}: {text!r}")
    entry = parsed.entry
    if entry is None:
        raise ConfigError(f"nfstune cannot read the new fstab line as an entry: {text!r}")
    if not entry.is_nfs:
        raise ConfigError(f"the new fstab line mounts type {entry.fstype!r}, not nfs or nfs4: {text!r}")
    if split_source(entry.device) is None:
        hint = " (an IPv6 server goes in brackets: [address]:/path)" if entry.device.count(":") > 1 else ""
        raise ConfigError(f"the new fstab line's source {entry.device!r} is not server:/path{hint}: {text!r}")
    if not entry.mount_point.startswith("/"):
        raise ConfigError(f"the new fstab line's mount point {entry.mount_point!r} is not an absolute path")
    return entry


def same_source(a: str, b: str, aliases: Collection[str] = ()) -> bool:
    """Whether two NFS sources name the same export: brackets, case, the IPv6 spelling and a trailing slash do
    not count. `aliases`: other names and addresses of `b`'s server (as the client resolves it), so that
    10.0.0.5:/srv/x is nas:/srv/x when nas is 10.0.0.5."""
    first, second = split_source(a), split_source(b)
    if first is None or second is None:
        return a == b
    servers = {_server_key(second[0]), *(_server_key(name) for name in aliases)}
    return _server_key(first[0]) in servers and _path_key(first[1]) == _path_key(second[1])


def _server_key(server: str) -> str:
    try:
        return str(ipaddress.ip_address(server))
    except ValueError:
        return server.lower().rstrip(".")


def _path_key(path: str) -> str:
    return posixpath.normpath(path)


def fstab_weakens(before: FstabEntry, after: FstabEntry, aliases: Collection[str] = ()) -> list[str]:
    """Every way `after` differs from the admin's entry `before` other than the NFS version: the mount point,
    the source (its server named by an address among `aliases` is the same), the type, dump or pass, or any
    option nfstune does not tune (ro, sec=, noexec, x-systemd.automount...) dropped, added, changed or moved."""
    problems = []
    if before.mount_point != after.mount_point:
        problems.append(f"the mount point would move from {before.mount_point} to {after.mount_point}")
    if not same_source(before.device, after.device, aliases):
        problems.append(f"the source would change from {before.device} to {after.device}")
    if before.fstype != after.fstype:
        problems.append(f"the type would change from {before.fstype} to {after.fstype}")
    if (before.dump or 0, before.pass_number or 0) != (after.dump or 0, after.pass_number or 0):
        problems.append("dump or pass would change")
    old, new = _untuned(before), _untuned(after)
    problems += [f"{option} would be dropped" for option in old if option not in new]
    problems += [f"{option} would be added" for option in new if option not in old]
    if sorted(old) == sorted(new) and old != new:
        problems.append("the options would be reordered (the last of two conflicting options counts)")
    return problems


def _untuned(entry: FstabEntry) -> list[str]:
    options = entry.options or MountOptions()
    return [option.render() for option in options.options if option.name not in TUNED_MOUNT_OPTIONS]


def find_nfs_entry(fstab: Fstab, device: str, aliases: Collection[str] = ()) -> int | None:
    """The line (from 0) of the first NFS entry that mounts this source, its server named by `device`'s name or
    by one of its `aliases`."""
    for index, line in enumerate(fstab.lines):
        if line.entry is not None and line.entry.is_nfs and same_source(line.entry.device, device, aliases):
            return index
    return None


def skipped_lines_naming(fstab: Fstab, device: str, aliases: Collection[str] = ()) -> list[tuple[int, str]]:
    """(line from 0, why) of each line that starts with this source but that mount skips (a comment where the
    dump number goes, say): the admin may take it for the share's entry."""
    found = []
    for index, line in enumerate(fstab.lines):
        why = skipped_because(line.text)
        if why and same_source(unescape_field(fields_of(line.text)[0]), device, aliases):
            found.append((index, why))
    return found


def fstab_edit(
    fstab_text: str | None, new_line: str, *, host: str = "", server_aliases: Collection[str] = ()
) -> FileEdit:
    """The edit that puts `new_line` into fstab. When an NFS entry of the same server:/share exists (the server
    named as in `new_line` or by one of `server_aliases`, its addresses), only its options field is rewritten (its
    source as the admin wrote it, its mount point, other fields and blanks stay), and only if fstab_weakens()
    finds nothing; otherwise the line is added at the end. A mount point another entry uses is refused
    (ConfigError), as is a line that is not one NFS entry."""
    entry = parse_fstab_line(new_line)
    text = fstab_text or ""
    fstab = Fstab.parse(text)
    old = None if fstab_text is None else text_bytes(fstab_text)
    index = find_nfs_entry(fstab, entry.device, server_aliases)
    if index is not None:
        there = fstab.lines[index].entry
        assert there is not None
        problems = fstab_weakens(there, entry, server_aliases)
        if problems:
            raise ConfigError(
                f"{FSTAB} line {index + 1} already mounts {there.device} on {there.mount_point}; nfstune does not "
                "change it like this, because " + "; ".join(problems)
            )
        note = f"{there.device} on {there.mount_point}: the options of line {index + 1}"
        if _rendered(there.options) == _rendered(entry.options):
            return file_edit(host, FSTAB, old, old if old is not None else b"", note)
        assert entry.options is not None  # a changed option list is a written one
        line = fstab.lines[index].with_options(entry.options)
        new = Fstab((*fstab.lines[:index], line, *fstab.lines[index + 1 :]), fstab.final_newline)
    else:
        index = fstab.index_of(entry.mount_point)
        if index is not None:
            there = fstab.lines[index].entry
            assert there is not None
            raise ConfigError(
                f"{FSTAB} line {index + 1} already mounts {there.device} ({there.fstype}) on {entry.mount_point}: "
                "choose another mount point"
            )
        index = len(fstab.lines)
        new = Fstab((*fstab.lines, FstabLine.parse(one_line(new_line, "fstab"))), final_newline=True)
        note = f"{entry.device} on {entry.mount_point}: a new line at the end"
    rendered = new.render()
    _check_fstab(fstab, Fstab.parse(rendered), index, entry, server_aliases)
    return file_edit(host, FSTAB, old, text_bytes(rendered), note)


def _rendered(options: MountOptions | None) -> str | None:
    return None if options is None else options.render()


def _check_fstab(before: Fstab, after: Fstab, index: int, entry: FstabEntry, aliases: Collection[str] = ()) -> None:
    """The written fstab read back: every other line as it was, and the line at `index` mounting `entry`."""
    lines = [line.text for line in after.lines]
    others = [line.text for i, line in enumerate(before.lines) if i != index]
    got = after.lines[index].entry if index < len(after.lines) else None
    if (
        got is None
        or [t for i, t in enumerate(lines) if i != index] != others
        or not same_source(got.device, entry.device, aliases)
        or (got.mount_point, got.fstype, _rendered(got.options))
        != (entry.mount_point, entry.fstype, _rendered(entry.options))
    ):
        raise ConfigError(f"the new {FSTAB} does not read back as planned (line {index + 1}): nothing was planned")
