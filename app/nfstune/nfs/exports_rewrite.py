"""The new text of the exports file that defines the share, as Apply writes it: the exact new bytes of /etc/exports
(or the exports.d file that defines the share) as a FileEdit (nfs/file_edit.py: the diff the admin sees before
anything is written); nfs/fstab_rewrite.py does /etc/fstab.

The edit touches as little as it can: in the exports file only the text of the share's entry (every other byte
stays), in fstab only the options field of the existing entry for the share, or a new line when there is none.
Every edit is read back the way exportfs and mount read it, and refused (ConfigError, nothing planned) when it
would grant any client more access, or drop or change anything nfstune does not tune (weakens() and
fstab_weakens() list why).
"""

from __future__ import annotations

from collections.abc import Mapping

from nfstune.errors import ConfigError
from nfstune.nfs.export_options import ASYNC, FLAG_OPTIONS, FLAVOURS, SECINFO_FLAGS, ExportOptions
from nfstune.nfs.exportfs_view import exported
from nfstune.nfs.exports import EXPORTS_FILE, Client, ExportEntry, ExportsFile, Trivia, parse, parsed_in_order
from nfstune.nfs.exports_findings import findings, matches_everyone
from nfstune.nfs.file_edit import FileEdit, file_edit, text_bytes

EXPORTS = EXPORTS_FILE
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


def other_entries(files: Mapping[str, str], share: str) -> list[tuple[str, ExportEntry]]:
    """The entries that export `share` besides the one defining_entry() finds, in exportfs's order (exportfs
    reads them all: their clients are exported too), up to the line where exportfs stops reading a file."""
    found: list[tuple[str, ExportEntry]] = []
    for file, doc in parsed_in_order(files):
        for entry in doc.entries:
            if entry.exports(share):
                found.append((file, entry))
            if entry.error:
                break
    return found[1:]


def other_entries_notes(files: Mapping[str, str], share: str) -> list[str]:
    """A word on every other entry that exports the share: nfstune recommends (and Apply edits) the first one
    only, and an async client in another one stays async."""
    first = defining_entry(files, share)
    if first is None:
        return []
    where = f"{first[0]} line {first[2].line}"
    notes = []
    for file, entry in other_entries(files, share):
        clients = ", ".join(c.name for c in entry.clients) or "everyone"
        written = f", written {entry.path}" if entry.path != share else ""
        text = (
            f"{file} line {entry.line} also exports {share} (to {clients}{written}); exportfs uses both, and nfstune "
            f"recommends and edits only the first, {where}: that entry stays as it is"
        )
        risky = [c.name for c in entry.clients if c.options.flag(ASYNC)]
        if risky:
            text += (
                f". {', '.join(risky)} there still write{'s' if len(risky) == 1 else ''} async: an unclean server "
                "restart can lose data written through it (exports(5)); make it sync there, or merge the two entries"
            )
        notes.append(text)
    return notes


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
    if not entry.exports(share):
        raise ConfigError(f"the new exports line exports {entry.path!r}, not the share {share!r}: {body!r}")
    return entry


def exports_edit(files: Mapping[str, str], share: str, new_text: str, *, host: str = "") -> FileEdit:
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
        return file_edit(host, file, text_bytes(old_text), text_bytes(old_text), note)
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
    return file_edit(host, file, text_bytes(old_text), text_bytes(new_file), note)


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
            if entry.exports(share) and doc.stop is not None:
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
    return file_edit(host, EXPORTS, None if old_text is None else text_bytes(old_text), text_bytes(joined), note)


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
