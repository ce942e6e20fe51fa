"""Find where an export is defined and give it new options, touching nothing else in its file (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.errors import NfstuneError
from nfstune.nfs.export_options import ASYNC
from nfstune.nfs.exports import files_in_order, parse, parsed_in_order


@dataclass(frozen=True)
class ExportOptionEdit:
    """What a configuration changes in an export's options: options to set (as written: "async",
    "anonuid=1000") and options to remove (names; the default applies again)."""

    set: tuple[str, ...] = ()
    unset: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.set or self.unset)


# options of which an export has exactly one; setting one member drops the others
EXCLUSIVE = (
    ("sync", "async"),
    ("wdelay", "no_wdelay"),
    ("rw", "ro"),
    ("root_squash", "no_root_squash"),
    ("subtree_check", "no_subtree_check"),
    ("secure", "insecure"),
    ("hide", "nohide"),
)


@dataclass(frozen=True)
class ExportLocation:
    file: str  # /etc/exports or /etc/exports.d/NAME.exports
    path: str
    clients: tuple[str, ...]


def locate(files: Mapping[str, str], path: str) -> ExportLocation:
    """The file that defines the export of `path` (exportfs reads /etc/exports, then /etc/exports.d/*.exports
    in name order, and the first entry of a path wins)."""
    order = files_in_order(files)
    for file, doc in parsed_in_order(files):
        entry = doc.find(path)
        if entry is not None and entry.error is None:
            return ExportLocation(file, path, tuple(c.name for c in entry.clients))
    raise NfstuneError(f"no export of {path} in {', '.join(order) or 'the exports files'}")


def with_options(explicit: Sequence[str], changes: Sequence[str]) -> list[str]:
    """A client's option list with `changes` applied: each replaces the members of its group in place (or is
    added at the end); anything else the admin wrote stays, in its order."""
    result = list(explicit)
    for change in changes:
        name = change.split("=", 1)[0]
        group = next((g for g in EXCLUSIVE if change in g), (name,))
        keyed = [i for i, opt in enumerate(result) if opt.split("=", 1)[0] in group]
        if keyed:
            result[keyed[0]] = change
            for i in reversed(keyed[1:]):
                del result[i]
        else:
            result.append(change)
    return result


def change_client_options(text: str, path: str, client: str, changes: Sequence[str]) -> str:
    """The exports text with one client's options changed; every other byte as it was."""
    doc = parse(text)
    current = doc.client(path, client)
    return doc.with_client_options(path, client, with_options(current.explicit_options, changes)).render()


def without_options(explicit: Sequence[str], names: Sequence[str]) -> list[str]:
    """A client's option list without the options named (`async`, `anonuid` for `anonuid=1000`), so that the
    default applies again; anything else stays, in its order."""
    return [opt for opt in explicit if opt.split("=", 1)[0] not in names]


def edit_client_options(text: str, path: str, client: str, set_: Sequence[str], unset: Sequence[str]) -> str:
    """The exports text with one client's options changed (`set_` as in with_options, then the `unset` names
    removed); every other byte as it was, and the text itself when nothing changes."""
    doc = parse(text)
    current = list(doc.client(path, client).explicit_options)
    options = without_options(with_options(current, set_), unset)
    if options == current:
        return text
    return doc.with_client_options(path, client, options).render()


def export_edit(files: Mapping[str, str], share: str, settings: ExportOptionEdit) -> tuple[str, bytes, str]:
    """The exports file that defines `share`, its new bytes with `settings` applied to each of the share's
    clients (every other byte as it was, undecodable ones included), and the write mode the kernel must then
    run it with."""
    where = locate(files, share)
    text = files[where.file]
    for client in where.clients:
        text = edit_client_options(text, share, client, settings.set, settings.unset)
    entry = parse(text).find(share)
    modes = {"async" if c.options.flag(ASYNC) else "sync" for c in entry.clients} if entry else set()
    if len(modes) != 1:
        line = f" line {entry.line}" if entry else ""
        raise NfstuneError(
            f"{where.file}{line}: the clients of {share} would not all run the same write mode (sync or async) "
            "with this configuration, so its figures could not be told apart: nothing was changed"
        )
    # read_export_files decoded with surrogateescape: a byte that is not UTF-8 (a Latin-1 comment) goes back as is
    return where.file, text.encode("utf-8", "surrogateescape"), modes.pop()
