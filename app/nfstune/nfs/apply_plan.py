"""Applying a recommendation for good, the pure part: the exact new bytes of /etc/exports (or the exports.d file
that defines the share) and of /etc/fstab, and the unified diff the admin sees before anything is written.

The edit touches as little as it can: in the exports file only the text of the share's entry (every other byte
stays), in fstab only the options field of the existing entry for the share, or a new line when there is none.
Every edit is read back the way exportfs and mount read it, and refused (ConfigError, nothing planned) when it
would grant any client more access, or drop or change anything nfstune does not tune (weakens() and
fstab_weakens() list why).
"""

from __future__ import annotations

import difflib
import hashlib
import ipaddress
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.errors import ConfigError
from nfstune.nfs.export_options import ASYNC, FLAG_OPTIONS, FLAVOURS, SECINFO_FLAGS, ExportOptions
from nfstune.nfs.exportfs_view import exported
from nfstune.nfs.exports import EXPORTS_FILE, Client, ExportEntry, ExportsFile, Trivia, parse, parsed_in_order
from nfstune.nfs.exports_findings import findings, matches_everyone
from nfstune.nfs.fstab import Fstab, FstabEntry, FstabLine
from nfstune.nfs.mount_options import MountOptions
from nfstune.nfs.mounts import split_source

EXPORTS = EXPORTS_FILE
FSTAB = "/etc/fstab"
_LINES = re.compile(r"[^\n]*\n|[^\n]+")  # lines split on "\n" only: a CR, VT or FF stays inside its line


@dataclass(frozen=True)
class FileEdit:
    """One file's change as the admin sees it: `old` is None when the file does not exist yet."""

    host: str  # the host's label
    path: str
    old: bytes | None
    new: bytes
    old_sha256: str | None  # of `old`; None when the file does not exist
    diff: str  # unified diff, a/PATH -> b/PATH; "" for a no-op
    note: str = ""  # how the edit was made (which file, which line), for the preview

    @property
    def noop(self) -> bool:
        return self.old == self.new

    @property
    def summary(self) -> str:
        if self.noop:
            return f"{self.host}: {self.path} already reads as recommended: nothing to change"
        return f"{self.host}: {self.path}: {self.note}" if self.note else f"{self.host}: {self.path}"


def sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")  # bytes that are not UTF-8 come back as they were read


def unified_diff(path: str, old: bytes | None, new: bytes) -> str:
    """`diff -u` of the two versions, with git's file names and its "\\ No newline at end of file" marks."""
    if old == new:
        return ""

    def lines(data: bytes | None) -> list[str]:
        return _LINES.findall(data.decode("utf-8", "backslashreplace")) if data else []

    out = []
    fromfile = "/dev/null" if old is None else "a" + path
    for line in difflib.unified_diff(lines(old), lines(new), fromfile, "b" + path):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def file_edit(host: str, path: str, old: bytes | None, new: bytes, note: str = "") -> FileEdit:
    return FileEdit(host, path, old, new, sha256(old), unified_diff(path, old, new), note)


def _one_line(line: str, what: str) -> str:
    text = line[:-1] if line.endswith("\n") else line
    if "\n" in text or not text.strip():
        raise ConfigError(f"the new {what} line must be one line of text: {line!r}")
    return text


# --- /etc/exports -------------------------------------------------------------------------------------------------

TUNED_EXPORT_FLAGS = ASYNC  # the one export option a recommendation may change (and only ever to sync)
# flag -> (the option in force when it is set, when it is clear), for the messages of weakens()
_FLAG_NAMES: dict[tuple[int, bool], str] = {}
for _name, (_bit, _on) in FLAG_OPTIONS.items():
    _FLAG_NAMES.setdefault((_bit, _on), _name)


def defining_entry(files: Mapping[str, str], share: str) -> tuple[str, ExportsFile, ExportEntry] | None:
    """The file, its parse and the entry that exportfs reads first for `share` (an entry with an error
    included: exportfs exports its clients before the error), or None when no file exports it."""
    for file, doc in parsed_in_order(files):
        entry = doc.find(share)
        if entry is not None:
            return file, doc, entry
    return None


def weakens(before: ExportEntry, after: ExportEntry) -> list[str]:
    """Every way `after` differs from `before` other than sync where it was async: more access for a client (rw
    for ro, a new client, a wider spec, root or all squash lifted, insecure, a weaker sec=, nohide, crossmnt...),
    async where it was sync, or an option nfstune does not tune dropped or changed (fsid, mountpoint, anonuid,
    sec, reexport, xprtsec, nordirplus...). Compares the effective options, so defaults and implied ro count."""
    problems: list[str] = []
    if before.path != after.path:
        problems.append(f"the path would change from {before.path} to {after.path}")
    old = _first_by_name(before.clients)
    new = _first_by_name(after.clients)
    problems += [f"{name} would become a new client" for name in new if name not in old]
    problems += [f"{name} would no longer be a client" for name in old if name not in new]
    if not problems and [c.name for c in before.clients] != [c.name for c in after.clients]:
        problems.append("the clients would be listed in another order (the first of a repeated client counts)")
    for name in old:
        if name in new:
            problems += [f"{name}: {p}" for p in _options_weaken(old[name].options, new[name].options)]
    return problems


def _first_by_name(clients: tuple[Client, ...]) -> dict[str, Client]:
    first: dict[str, Client] = {}
    for client in clients:
        first.setdefault(client.name, client)  # exportfs takes the first of a repeated client
    return first


def _flag_changes(before: int, after: int, mask: int, scope: str = "") -> list[str]:
    out = []
    for bit in (1 << i for i in range(32)):
        if (before ^ after) & bit & mask:
            now = _FLAG_NAMES.get((bit, bool(after & bit)), f"flag {bit:#x} {'set' if after & bit else 'clear'}")
            was = _FLAG_NAMES.get((bit, bool(before & bit)), "not")
            out.append(f"{now} where it was {was}{scope}")
    return out


def _options_weaken(before: ExportOptions, after: ExportOptions) -> list[str]:
    problems = _flag_changes(before.flags, after.flags, ~TUNED_EXPORT_FLAGS)
    if after.flag(ASYNC) and not before.flag(ASYNC):
        problems.append("async where it was sync")
    old_sec = [(FLAVOURS[f.name], f.flags & SECINFO_FLAGS) for f in before.sec]
    new_sec = [(FLAVOURS[f.name], f.flags & SECINFO_FLAGS) for f in after.sec]
    if [n for n, _ in old_sec] != [n for n, _ in new_sec]:
        was = "sec=" + ":".join(f.name for f in before.sec) if before.sec else "no sec="
        now = "sec=" + ":".join(f.name for f in after.sec) if after.sec else "no sec="
        problems.append(f"{now} where it was {was}")
    else:
        for flavour, (_, old_flags), (_, new_flags) in zip(after.sec, old_sec, new_sec, strict=True):
            problems += _flag_changes(old_flags, new_flags, SECINFO_FLAGS, f" for sec={flavour.name}")
    for label in ("anonuid", "anongid", "fsid", "uuid", "mountpoint", "fsloc", "xprtsec", "reexport"):
        was, now = getattr(before, label), getattr(after, label)
        if label == "xprtsec":
            was, now = ":".join(f.name for f in was), ":".join(f.name for f in now)
        if was != now:
            problems.append(f"{label} {now!r} where it was {was!r}")
    return problems


def parse_export_text(text: str, share: str) -> ExportEntry:
    """The new export of `share` (one entry, continuation lines allowed) as exportfs reads it; ConfigError when
    it is not one valid export of `share`."""
    body = text[:-1] if text.endswith("\n") else text
    if not body.strip():
        raise ConfigError(f"the new export of {share} is empty")
    doc = parse(body + "\n")
    if len(doc.entries) != 1 or any(item.text.strip() for item in doc.items if isinstance(item, Trivia)):
        raise ConfigError(f"the new exports text is not one export (without comments): {body!r}")
    entry = doc.entries[0]
    if entry.error:
        raise ConfigError(f"the new exports line does not parse: {entry.error}: {body!r}")
    if entry.path != share:
        raise ConfigError(f"the new exports line exports {entry.path!r}, not the share {share!r}: {body!r}")
    return entry


def plan_exports_change(files: Mapping[str, str], share: str, new_text: str, *, host: str = "") -> FileEdit:
    """The edit that makes the export of `share` read as `new_text` (the whole entry: every client, "-options"
    and continuation lines) in the file that defines it (/etc/exports or /etc/exports.d/NAME.exports; `files`
    maps each existing one to its text), every other byte kept; or `new_text` appended to /etc/exports when no
    file exports the share. Raises ConfigError, with nothing planned, for a text that is not one export of the
    share, a file exportfs does not read to its end, or a change that weakens() the export."""
    new = parse_export_text(new_text, share)
    body = new_text[:-1] if new_text.endswith("\n") else new_text
    found = defining_entry(files, share)
    if found is None:
        return _new_export(files, share, body, new, host)
    file, doc, entry = found
    stop = doc.stop
    if stop is not None:
        raise ConfigError(
            f"{file} line {stop.line}: {stop.error}. exportfs does not read that file to its end, so nfstune "
            "does not write it: correct that line first"
        )
    old_text = files[file]
    note = f"the export of {share} on line {entry.line}"
    if body == entry.text:
        return file_edit(host, file, _bytes(old_text), _bytes(old_text), note)
    new_file = old_text[: entry.start] + body + old_text[entry.start + len(entry.text) :]
    after = parse(new_file, doc.version)
    index = doc.entries.index(entry)
    changed = after.entries[index] if len(after.entries) == len(doc.entries) else None
    if (
        changed is None
        or changed.text != body
        or after.find(share) is not changed
        or _others(doc, index) != _others(after, index)
    ):
        raise ConfigError(f"{file} line {entry.line}: the new export of {share} does not read back as written there")
    problems = weakens(entry, changed)
    if problems:
        raise ConfigError(
            f"{file} line {entry.line}: nfstune does not write this export of {share}, because " + "; ".join(problems)
        )
    return file_edit(host, file, _bytes(old_text), _bytes(new_file), note)


def _others(doc: ExportsFile, skip: int) -> list[object]:
    return [
        (e.path, e.error, [(c.name, c.explicit, c.defaults) for c in e.clients])
        for i, e in enumerate(doc.entries)
        if i != skip
    ]


def refuse_unread(files: Mapping[str, str], share: str) -> None:
    """ConfigError when `share` is written only after a line where exportfs stops reading: it is the admin's
    export (never a new one to add), and nothing is written to that file until the line is corrected."""
    for file, doc in parsed_in_order(files):
        for entry in doc.entries:
            if entry.path == share and doc.stop is not None:
                raise ConfigError(
                    f"{file} line {entry.line} exports {share}, but exportfs stops reading that file at line "
                    f"{doc.stop.line} ({doc.stop.error}): correct that line first"
                )


def _new_export(files: Mapping[str, str], share: str, body: str, new: ExportEntry, host: str) -> FileEdit:
    """A share exported nowhere yet: its line at the end of /etc/exports, never to everyone read-write."""
    refuse_unread(files, share)
    if any(client.start == client.end for client in new.clients):
        raise ConfigError(f"the new exports line names no client (it would export to everyone): {body!r}")
    skipped = exported(parse(body + "\n"))[1]
    if skipped:
        raise ConfigError(f"exportfs would not export {skipped[0].client.spec}: {skipped[0].reason}: {body!r}")
    for client in new.clients:
        if matches_everyone(client) and (not client.options.read_only or not client.options.root_squash):
            raise ConfigError(
                f"the new export of {share} would give every host {'root' if client.options.read_only else 'write'} "
                f"access ({client.name}): name the clients instead: {body!r}"
            )
    old_text = files.get(EXPORTS)
    text = old_text or ""
    stop = parse(text).stop
    if stop is not None:
        raise ConfigError(
            f"{EXPORTS} line {stop.line}: {stop.error}, so exportfs would never read a line added after it; "
            "correct that line first"
        )
    joined = text + ("\n" if text and not text.endswith("\n") else "") + body + "\n"
    note = f"{share} is not exported yet: the line is added at the end"
    return file_edit(host, EXPORTS, None if old_text is None else _bytes(old_text), _bytes(joined), note)


def exports_findings(files: Mapping[str, str]) -> list[str]:
    """What the admin should know about the exports files before anything is applied: each file's risks and
    no-ops (the "host (rw)" trap, no_root_squash to everyone...) and the line where exportfs stops reading."""
    out = []
    for file, doc in parsed_in_order(files):
        for found in findings(doc):
            client = f" {found.client}" if found.client else ""
            out.append(f"{file} line {found.line} ({found.path}{client}): {found.finding.message}")
        if doc.stop is not None:
            out.append(
                f"{file} line {doc.stop.line}: {doc.stop.error}; exportfs ignores the rest of the file, and "
                "nfstune does not write it"
            )
    return out


# --- /etc/fstab ---------------------------------------------------------------------------------------------------

TUNED_MOUNT_OPTIONS = frozenset(("vers", "nfsvers", "v2", "v3", "v4", "v4.0", "v4.1", "v4.2"))


def parse_fstab_line(line: str) -> FstabEntry:
    """The new fstab line as mount reads it; ConfigError unless it is one NFS entry (server:/path as mount.nfs
    splits it, an absolute mount point, type nfs or nfs4, 3 to 6 fields)."""
    text = _one_line(line, "fstab")
    fields = text.split()
    if text.lstrip().startswith("#"):
        raise ConfigError(f"the new fstab line is a comment: {text!r}")
    if not 3 <= len(fields) <= 6:
        raise ConfigError(
            f"the new fstab line has {len(fields)} fields, not 3 to 6 (server:/share, mount point, type, options, "
            f"dump, pass): {text!r}"
        )
    entry = FstabLine.parse(text).entry
    if entry is None:
        raise ConfigError(f"the new fstab line does not parse (dump and pass must be numbers): {text!r}")
    if not entry.is_nfs:
        raise ConfigError(f"the new fstab line mounts type {entry.fstype!r}, not nfs or nfs4: {text!r}")
    if split_source(entry.device) is None:
        hint = " (an IPv6 server goes in brackets: [address]:/path)" if entry.device.count(":") > 1 else ""
        raise ConfigError(f"the new fstab line's source {entry.device!r} is not server:/path{hint}: {text!r}")
    if not entry.mount_point.startswith("/"):
        raise ConfigError(f"the new fstab line's mount point {entry.mount_point!r} is not an absolute path")
    return entry


def same_source(a: str, b: str) -> bool:
    """Whether two NFS sources name the same export: brackets, case, the IPv6 spelling and a trailing slash do
    not count."""
    first, second = split_source(a), split_source(b)
    if first is None or second is None:
        return a == b
    return _server_key(first[0]) == _server_key(second[0]) and _path_key(first[1]) == _path_key(second[1])


def _server_key(server: str) -> str:
    try:
        return str(ipaddress.ip_address(server))
    except ValueError:
        return server.lower().rstrip(".")


def _path_key(path: str) -> str:
    return posixpath.normpath(path)


def fstab_weakens(before: FstabEntry, after: FstabEntry) -> list[str]:
    """Every way `after` differs from the admin's entry `before` other than the NFS version: the mount point,
    the source, the type, dump or pass, or any option nfstune does not tune (ro, sec=, noexec,
    x-systemd.automount...) dropped, added, changed or moved."""
    problems = []
    if before.mount_point != after.mount_point:
        problems.append(f"the mount point would move from {before.mount_point} to {after.mount_point}")
    if not same_source(before.device, after.device):
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


def find_nfs_entry(fstab: Fstab, device: str) -> int | None:
    """The line (from 0) of the first NFS entry that mounts this source."""
    for index, line in enumerate(fstab.lines):
        if line.entry is not None and line.entry.is_nfs and same_source(line.entry.device, device):
            return index
    return None


def plan_fstab_change(fstab_text: str | None, new_line: str, *, host: str = "") -> FileEdit:
    """The edit that puts `new_line` into fstab. When an NFS entry of the same server:/share exists, only its
    options field is rewritten (its mount point, other fields and blanks stay), and only if fstab_weakens() finds
    nothing; otherwise the line is added at the end. A mount point another entry uses is refused (ConfigError),
    as is a line that is not one NFS entry."""
    entry = parse_fstab_line(new_line)
    text = fstab_text or ""
    fstab = Fstab.parse(text)
    old = None if fstab_text is None else _bytes(fstab_text)
    index = find_nfs_entry(fstab, entry.device)
    if index is not None:
        there = fstab.lines[index].entry
        assert there is not None
        problems = fstab_weakens(there, entry)
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
        new = Fstab((*fstab.lines, FstabLine.parse(_one_line(new_line, "fstab"))), final_newline=True)
        note = f"{entry.device} on {entry.mount_point}: a new line at the end"
    rendered = new.render()
    _check_fstab(fstab, Fstab.parse(rendered), index, entry)
    return file_edit(host, FSTAB, old, _bytes(rendered), note)


def _rendered(options: MountOptions | None) -> str | None:
    return None if options is None else options.render()


def _check_fstab(before: Fstab, after: Fstab, index: int, entry: FstabEntry) -> None:
    """The written fstab read back: every other line as it was, and the line at `index` mounting `entry`."""
    lines = [line.text for line in after.lines]
    others = [line.text for i, line in enumerate(before.lines) if i != index]
    got = after.lines[index].entry if index < len(after.lines) else None
    if (
        got is None
        or [t for i, t in enumerate(lines) if i != index] != others
        or not same_source(got.device, entry.device)
        or (got.mount_point, got.fstype, _rendered(got.options))
        != (entry.mount_point, entry.fstype, _rendered(entry.options))
    ):
        raise ConfigError(f"the new {FSTAB} does not read back as planned (line {index + 1}): nothing was planned")
