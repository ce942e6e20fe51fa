"""Files nfstune writes into folders it shares with the rest of the desktop (the menu entry in applications/, the
icon in icons/hicolor/), recorded so that they can be taken out exactly: each file with the SHA-256 of what was
written, and each folder that writing created.

A file is nfstune's to overwrite or remove only while the record lists it and it is still the regular file with
the bytes written: one changed since, or replaced by a link, a FIFO or a folder, is left and named, and one that is
in the way of writing is refused. The record is checked as a whole before anything is done: every file in it must
be under the places' roots and named like nfstune's, every folder on the way to them, each path absolute and
written plainly (no `..`); anything else and it is refused, named. Removing takes folders deepest first, and only
while they are empty.

A symbolic link among the folders under the data home is refused: writing or removing through it would reach
files somewhere else (icons/hicolor linked to a dotfiles folder holding the same icons would lose them). These
checks do not guard against a race: the folders are the user's own, and whoever can swap one for a link there can
write its files already.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nfstune.errors import ConfigError, NfstuneError


@dataclass(frozen=True)
class Places:
    """Where a record may reach. `base`: the data home, whose folders below it are made and recorded as needed (it
    is never removed); `roots`: the folders the files may be in, at any depth, each named starting with `prefix`
    (or one of them); `record`: the record itself, in a folder of its own under `base`."""

    base: Path
    roots: tuple[Path, ...]
    prefix: str | tuple[str, ...]
    record: Path

    def holds_file(self, path: Path) -> bool:
        return path.name.startswith(self.prefix) and any(path.parent.is_relative_to(root) for root in self.roots)

    def holds_folder(self, folder: Path) -> bool:
        """A folder below `base` on the way to a root or the record, or under a root."""
        ends = (*self.roots, self.record.parent)
        below = folder.is_relative_to(self.base) and folder != self.base
        return below and any(end.is_relative_to(folder) or folder.is_relative_to(end) for end in ends)


@dataclass
class Record:
    files: dict[Path, str] = field(default_factory=dict)  # path -> SHA-256 of the bytes written
    folders: list[Path] = field(default_factory=list)  # created by the writing


@dataclass(frozen=True)
class Removal:
    removed: list[Path]
    kept: list[Path]  # changed or replaced since they were written: no longer ours to remove


_SHA256 = re.compile(r"[0-9a-f]{64}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _failed(action: str, path: Path, exc: OSError) -> NfstuneError:
    return NfstuneError(f"cannot {action} {path}: {exc.strerror or exc}")


def _regular_bytes(path: Path) -> bytes | None:
    """The bytes of `path` when it is a regular file, None when it is anything else (a link is not followed, a FIFO
    not waited on); FileNotFoundError when there is nothing."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with open(fd, "rb") as file:
        return file.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def _not_a_record(places: Places, why: str) -> ConfigError:
    return ConfigError(
        f"{places.record} is not a record nfstune wrote ({why}): nothing was changed. Move it away and run the "
        "command again; the files it names are then left where they are"
    )


def _path(places: Places, value: object) -> Path:
    if not isinstance(value, str) or "\0" in value:
        raise _not_a_record(places, f"{value!r} is not a path")
    if not os.path.isabs(value) or os.path.normpath(value) != value:
        raise _not_a_record(places, f"{value!r} is not an absolute path written plainly")
    return Path(value)


def _parse(places: Places, data: object) -> Record:
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("files"), dict)
        or not isinstance(data.get("folders"), list)
    ):
        raise _not_a_record(places, 'not an object with "files" and "folders"')
    record = Record()
    for name, digest in data["files"].items():
        path = _path(places, name)
        if not places.holds_file(path):
            raise _not_a_record(places, f"it names {path}, which is not a file of nfstune's")
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise _not_a_record(places, f"{digest!r} is not a SHA-256")
        record.files[path] = digest
    for name in data["folders"]:
        folder = _path(places, name)
        if not places.holds_folder(folder):
            raise _not_a_record(places, f"it names {folder}, which is not a folder of nfstune's")
        record.folders.append(folder)
    return record


def read_record(places: Places) -> Record | None:
    """The record, or None when there is none."""
    try:
        text = _regular_bytes(places.record)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _failed("read", places.record, exc) from None
    if text is None:
        raise _not_a_record(places, "not a regular file")
    try:
        data = json.loads(text)
    except RecursionError:
        raise _not_a_record(places, "nested too deep") from None
    except ValueError as exc:
        raise _not_a_record(places, f"not JSON: {exc}") from None
    return _parse(places, data)


def _check_folders(places: Places, folders: Iterable[Path]) -> None:
    """Refuses a symbolic link, or something other than a folder, on the way from `base` down to each folder."""
    for folder in folders:
        on_the_way = places.base
        for part in folder.relative_to(places.base).parts:
            on_the_way /= part
            try:
                mode = os.lstat(on_the_way).st_mode
            except FileNotFoundError:
                break
            except OSError as exc:
                raise _failed("read", on_the_way, exc) from None
            if stat.S_ISLNK(mode):
                raise ConfigError(
                    f"{on_the_way} is a symbolic link (to {os.readlink(on_the_way)}): nfstune writes and removes its "
                    f"menu entry and icons only in real folders under {places.base}, so as never to touch files "
                    "somewhere else. Nothing was changed; put a real folder in its place to go on"
                )
            if not stat.S_ISDIR(mode):
                raise ConfigError(f"{on_the_way} is not a folder: nothing was changed; move it away to go on")


def _check_all_folders(places: Places, record: Record, paths: Iterable[Path]) -> None:
    _check_folders(places, [places.record.parent, *record.folders, *(p.parent for p in (*record.files, *paths))])


def _check_not_in_the_way(record: Record, path: Path) -> None:
    """Refuses to overwrite a file nfstune did not write, or one changed since."""
    try:
        now = _regular_bytes(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _failed("read", path, exc) from None
    if path in record.files and now is not None and _sha256(now) == record.files[path]:
        return
    why = "it was changed after nfstune wrote it" if path in record.files else "nfstune did not write it"
    raise ConfigError(
        f"{path} is already there and {why}: nfstune does not overwrite it, and nothing was changed. Move it away "
        "and run the command again"
    )


def _make_folders(places: Places, folder: Path, record: Record) -> None:
    try:
        places.base.mkdir(mode=0o700, parents=True, exist_ok=True)  # the Base Directory Specification's mode
    except OSError as exc:
        raise _failed("create the folder", places.base, exc) from None
    made = places.base
    for part in folder.relative_to(places.base).parts:
        made /= part
        try:
            made.mkdir()
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failed("create the folder", made, exc) from None
        if made not in record.folders:
            record.folders.append(made)


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a menu that reads the entry while it is written sees the old one or the new one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.unlink(missing_ok=True)  # left by a run of the same process id that was killed
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666), "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
        raise _failed("write", path, exc) from None


def _write_record(places: Places, record: Record) -> None:
    files = {str(path): digest for path, digest in record.files.items()}
    text = json.dumps({"files": files, "folders": [str(f) for f in record.folders]}, indent=2)
    _write(places.record, text.encode() + b"\n")


def _remove_if_unchanged(path: Path, digest: str) -> bool | None:
    """True: removed; False: changed or replaced since, kept; None: already gone."""
    try:
        now = _regular_bytes(path)
        if now is None or _sha256(now) != digest:
            return False
        path.unlink()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _failed("remove", path, exc) from None
    return True


def write_files(places: Places, files: Sequence[tuple[Path, bytes]], on_written: Callable[[Path], None]) -> Removal:
    """Writes each file, creating its folders, and records them (with the folders of an earlier record); a file of
    the earlier record that is not among them is removed, as `remove_files` would, and returned: removed, or kept
    when it was changed since (an upgrade that renames a file says so). Nothing is written unless every file can
    be: no link on the way, nothing in the way that nfstune did not write. `on_written` hears of each file once it
    is written, so that a failure further on leaves no doubt about what is there."""
    for path, _ in files:
        if not places.holds_file(path):
            raise ValueError(f"{path} is not under {places.roots}")  # a bug: the record could not be read back
    record = read_record(places) or Record()
    _check_all_folders(places, record, (path for path, _ in files))
    for path, _ in files:
        _check_not_in_the_way(record, path)
    earlier = dict(record.files)
    record.files = {}
    removal = Removal([], [])
    try:
        for path, data in files:
            _make_folders(places, path.parent, record)
            _write(path, data)
            record.files[path] = _sha256(data)
            on_written(path)
        for path, digest in earlier.items():
            if path in record.files:
                continue
            outcome = _remove_if_unchanged(path, digest)
            if outcome is True:
                removal.removed.append(path)
            elif outcome is False:
                record.files[path] = digest  # changed since: still listed, so that --uninstall names it
                removal.kept.append(path)
    except BaseException:
        for path, digest in earlier.items():
            record.files.setdefault(path, digest)  # not written again: still the earlier file, still ours
        raise
    finally:
        _make_folders(places, places.record.parent, record)
        _write_record(places, record)
    return removal


def remove_files(places: Places) -> Removal | None:
    """Removes what the record lists, then the record; None when there is no record."""
    record = read_record(places)
    if record is None:
        return None
    _check_all_folders(places, record, ())
    removed, kept = [], []
    for path, digest in record.files.items():
        outcome = _remove_if_unchanged(path, digest)
        if outcome is True:
            removed.append(path)
        elif outcome is False:
            kept.append(path)
    try:
        places.record.unlink()
    except OSError as exc:
        raise _failed("remove", places.record, exc) from None
    for folder in sorted(record.folders, key=lambda f: len(f.parts), reverse=True):
        # not empty (something else lives there now) or gone: not ours to clear
        with contextlib.suppress(OSError):
            folder.rmdir()
    return Removal(removed, kept)


def adopt_folders(places: Places, folders: Iterable[Path]) -> None:
    """Adds folders another record created and could not remove (they held this record's files) to this record,
    so that they go when its files do. Several records sharing folders (a watch per pair) hand them on so."""
    record = read_record(places)
    if record is None:
        raise ValueError(f"no record at {places.record}")  # a bug: only a record that exists adopts
    for folder in folders:
        if not places.holds_folder(folder):
            raise ValueError(f"{folder} is not a folder {places.record} may name")
        if folder not in record.folders:
            record.folders.append(folder)
    _write_record(places, record)
