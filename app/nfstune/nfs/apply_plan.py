"""Applying a recommendation for good, the pure part: the exact new bytes of /etc/exports (or the exports.d file
that defines the share) and of /etc/fstab, and the unified diff the admin sees before anything is written.

The edit touches as little as it can: in the exports file only the words of the clients the new line names
(other clients of the share, comments, other lines and a continuation style stay as they are), in fstab only the
one line for the mount. Every edit is checked by reading the result back the way exportfs and mount read it.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.errors import ConfigError, NfstuneError
from nfstune.nfs.export_edit import locate
from nfstune.nfs.export_options import ExportOptions
from nfstune.nfs.exports import Client, ExportEntry, ExportsFile, Trivia, exported, parse
from nfstune.nfs.fstab import Fstab, FstabEntry, FstabLine

EXPORTS = "/etc/exports"
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


def parse_export_line(line: str, share: str) -> ExportEntry:
    """The new exports line as exportfs reads it; ConfigError when it is not one valid export of `share`."""
    text = _one_line(line, "exports")
    doc = parse(text + "\n")
    entries = doc.entries
    if len(entries) != 1 or any(item.text.strip() for item in doc.items if isinstance(item, Trivia)):
        raise ConfigError(f"the new exports line is not one export (without comments): {text!r}")
    entry = entries[0]
    if entry.error:
        raise ConfigError(f"the new exports line does not parse: {entry.error}: {text!r}")
    if entry.path != share:
        raise ConfigError(f"the new exports line exports {entry.path!r}, not the share {share!r}: {text!r}")
    if any(client.start == client.end for client in entry.clients):
        raise ConfigError(f"the new exports line names no client (it would export to everyone): {text!r}")
    skipped = exported(doc)[1]
    if skipped:
        raise ConfigError(f"exportfs would not export {skipped[0].client.spec}: {skipped[0].reason}: {text!r}")
    return entry


def plan_exports_change(files: Mapping[str, str], share: str, new_line: str, *, host: str = "") -> FileEdit:
    """The edit that makes the export of `share` read as `new_line`, in the file that defines it (/etc/exports or
    /etc/exports.d/NAME.exports; `files` maps each existing one to its text), or appended to /etc/exports when no
    file exports it. The new line's clients replace the same clients of the export in place; its other clients
    are kept. Raises ConfigError (nothing planned) for a bad line or an edit that cannot be made cleanly."""
    new = parse_export_line(new_line, share)
    line = _one_line(new_line, "exports")
    try:
        file = locate(files, share).file
    except NfstuneError:
        file = ""
    if not file:
        old_text = files.get(EXPORTS)
        text = old_text or ""
        stop = parse(text).stop
        if stop is not None:
            raise ConfigError(
                f"{EXPORTS} line {stop.line}: {stop.error}, so exportfs would never read a line added after it; "
                "correct that line first"
            )
        joined = text + ("\n" if text and not text.endswith("\n") else "") + line + "\n"
        note = f"{share} is not exported yet: the line is added at the end"
        return file_edit(host, EXPORTS, None if old_text is None else _bytes(old_text), _bytes(joined), note)
    old_text = files[file]
    doc = parse(old_text)
    entry = doc.find(share)
    assert entry is not None  # locate() found it there
    new_text = _edit_in_place(old_text, entry, new.clients, line)
    if new_text is None or not _reads_as(doc, parse(new_text), share, new.clients):
        names = {client.name for client in new.clients}
        dropped = [client.name for client in entry.clients if client.name not in names]
        if dropped:
            raise ConfigError(
                f"{file} line {entry.line}: the export of {share} there has clients the new line does not name "
                f"({', '.join(dropped)}), and the new line's options cannot be written in place without changing "
                'theirs ("-options" defaults): edit it by hand'
            )
        end = entry.start + len(entry.text)
        new_text = old_text[: entry.start] + line + old_text[end:]
        if not _reads_as(doc, parse(new_text), share, new.clients):
            raise ConfigError(
                f"{file} line {entry.line}: cannot replace the export of {share} cleanly: edit it by hand"
            )
    note = f"the export of {share} on line {entry.line}"
    return file_edit(host, file, _bytes(old_text), _bytes(new_text), note)


def _edit_in_place(text: str, entry: ExportEntry, clients: tuple[Client, ...], line: str) -> str | None:
    """The text with each named client's word replaced (or added after the entry's last client, on a
    continuation line of its own when the entry is written that way); None when the new line has "-options"."""
    if any(client.defaults for client in clients):
        return None
    edits: list[tuple[int, int, str]] = []
    added: list[str] = []
    for client in clients:
        word = line[client.start : client.end]
        old = next((c for c in entry.clients if c.name == client.name), None)
        if old is None:
            added.append(word)
        elif old.start == old.end:  # the "everyone" a bare path implies gets a word of its own
            edits.append((old.start, old.end, " " + word))
        else:
            edits.append((old.start, old.end, word))
    if added:
        end = entry.start + len(entry.text)
        if "\\\n" in entry.text:
            indent = re.match(r"[ \t]*", entry.text.rsplit("\\\n", 1)[1])
            separator = " \\\n" + (indent.group(0) if indent else "")
        else:
            separator = " "
        edits.append((end, end, "".join(separator + word for word in added)))
    for start, end, word in sorted(edits, reverse=True):
        text = text[:start] + word + text[end:]
    return text


def _reads_as(before: ExportsFile, after: ExportsFile, share: str, clients: tuple[Client, ...]) -> bool:
    """Whether `after` exports the share's named clients with their new options, keeps its other clients as they
    were, and reads like `before` everywhere else."""
    old_entry, new_entry = before.find(share), after.find(share)
    if old_entry is None or new_entry is None or new_entry.error:
        return False
    old_entries, new_entries = before.entries, after.entries
    if len(old_entries) != len(new_entries):
        return False
    for old, new in zip(old_entries, new_entries, strict=True):
        if old is old_entry:
            continue
        if (old.path, old.error, _clients(old)) != (new.path, new.error, _clients(new)):
            return False
    wanted = {client.name: client.options for client in clients}
    kept = [(c.name, c.explicit, c.defaults) for c in old_entry.clients if c.name not in wanted]
    got = [(c.name, c.explicit, c.defaults) for c in new_entry.clients if c.name not in wanted]
    options: dict[str, ExportOptions] = {}
    for client in new_entry.clients:
        options.setdefault(client.name, client.options)  # exportfs takes the first of a repeated client
    return kept == got and all(options.get(name) == opts for name, opts in wanted.items())


def _clients(entry: ExportEntry) -> list[tuple[str, str | None, tuple[str, ...]]]:
    return [(c.name, c.explicit, c.defaults) for c in entry.clients]


# --- /etc/fstab ---------------------------------------------------------------------------------------------------


def parse_fstab_line(line: str) -> FstabEntry:
    """The new fstab line as mount reads it; ConfigError unless it is one NFS entry (server:/path, an absolute
    mount point, type nfs or nfs4, 4 to 6 fields)."""
    text = _one_line(line, "fstab")
    fields = text.split()
    if text.lstrip().startswith("#"):
        raise ConfigError(f"the new fstab line is a comment: {text!r}")
    if not 4 <= len(fields) <= 6:
        raise ConfigError(
            f"the new fstab line has {len(fields)} fields, not 4 to 6 (server:/share, mount point, type, options, "
            f"dump, pass): {text!r}"
        )
    entry = FstabLine.parse(text).entry
    if entry is None:
        raise ConfigError(f"the new fstab line does not parse (dump and pass must be numbers): {text!r}")
    if not entry.is_nfs:
        raise ConfigError(f"the new fstab line mounts type {entry.fstype!r}, not nfs or nfs4: {text!r}")
    server, colon, path = entry.device.rpartition(":")
    if not colon or not server or not path.startswith("/"):
        raise ConfigError(f"the new fstab line's source {entry.device!r} is not server:/path: {text!r}")
    if not entry.mount_point.startswith("/"):
        raise ConfigError(f"the new fstab line's mount point {entry.mount_point!r} is not an absolute path")
    return entry


def _same_source(a: str, b: str) -> bool:
    return a == b or a.rstrip("/") == b.rstrip("/")


def plan_fstab_change(fstab_text: str | None, new_line: str, *, host: str = "") -> FileEdit:
    """The edit that puts `new_line` into fstab: it replaces the NFS entry on the same mount point, else the first
    entry of the same server:/share, keeping that line's blanks; otherwise it is added at the end. A mount point
    used by a non-NFS entry is refused (ConfigError), as is a line that is not one NFS entry."""
    entry = parse_fstab_line(new_line)
    text = fstab_text or ""
    fstab = Fstab.parse(text)
    index = fstab.index_of(entry.mount_point)
    if index is not None:
        there = fstab.lines[index].entry
        assert there is not None
        if not there.is_nfs:
            raise ConfigError(
                f"{FSTAB} line {index + 1} already mounts {there.device} ({there.fstype}) on {entry.mount_point}: "
                "choose another mount point"
            )
    else:
        index = next(
            (
                i
                for i, ln in enumerate(fstab.lines)
                if ln.entry and ln.entry.is_nfs and _same_source(ln.entry.device, entry.device)
            ),
            None,
        )
    if index is None:
        new = Fstab((*fstab.lines, FstabLine.parse(_one_line(new_line, "fstab"))), final_newline=True)
        note = f"{entry.device} on {entry.mount_point}: a new line at the end"
    else:
        new = fstab.replace_line(index, entry)
        note = f"{entry.device} on {entry.mount_point}: line {index + 1} replaced"
    old = None if fstab_text is None else _bytes(fstab_text)
    return file_edit(host, FSTAB, old, _bytes(new.render()), note)
