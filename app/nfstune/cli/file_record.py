"""Files nfstune writes outside its own folders (the menu entry, the icon), recorded so that they can be taken out
exactly: each file with the SHA-256 of what was written, and each folder that writing created.

Removing takes those files only, and only while they still hold what was written (one edited since is left, and
named), then those folders, deepest first, while they are empty. Writing again (an upgrade, another `nfstune`)
keeps the folders of the earlier record and removes a file of it that is no longer written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nfstune.errors import NfstuneError


@dataclass
class Record:
    files: dict[str, str] = field(default_factory=dict)  # path -> SHA-256 of the bytes written
    folders: list[str] = field(default_factory=list)  # created by the writing, parents first


@dataclass(frozen=True)
class Removal:
    removed: list[Path]
    kept: list[Path]  # changed since they were written: no longer ours to remove


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _failed(action: str, path: Path, exc: OSError) -> NfstuneError:
    return NfstuneError(f"cannot {action} {path}: {exc.strerror or exc}")


def read_record(path: Path) -> Record | None:
    """The record at `path`, or None when there is none."""
    try:
        data = json.loads(path.read_text())
        return Record(files=dict(data["files"]), folders=list(data["folders"]))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _failed("read", path, exc) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise NfstuneError(f"{path} is not a record nfstune wrote ({exc}): move it away and try again") from None


def _write_record(path: Path, record: Record) -> None:
    _write(path, json.dumps({"files": record.files, "folders": record.folders}, indent=2).encode() + b"\n")


def _make_folders(folder: Path, record: Record) -> None:
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        try:
            made.mkdir()
        except OSError as exc:
            raise _failed("create the folder", made, exc) from None
        if str(made) not in record.folders:
            record.folders.append(str(made))


def _write(path: Path, data: bytes) -> None:
    """Whole or not at all: a menu that reads the entry while it is written sees the old one or the new one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise _failed("write", path, exc) from None


def _remove_if_unchanged(path: Path, digest: str) -> bool | None:
    """True: removed; False: changed since, kept; None: already gone."""
    try:
        if _sha256(path.read_bytes()) != digest:
            return False
        path.unlink()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _failed("remove", path, exc) from None
    return True


def write_files(record_path: Path, files: Sequence[tuple[Path, bytes]], on_written: Callable[[Path], None]) -> None:
    """Writes each file, creating its folders, and records them (with the folders of an earlier record); a file of
    the earlier record that is not among them is removed, as `remove_files` would. `on_written` hears of each file
    once it is written, so that a failure further on leaves no doubt about what is there."""
    record = read_record(record_path) or Record()
    earlier = dict(record.files)
    record.files = {}
    try:
        for path, data in files:
            _make_folders(path.parent, record)
            _write(path, data)
            record.files[str(path)] = _sha256(data)
            on_written(path)
        for name, digest in earlier.items():
            if name not in record.files and _remove_if_unchanged(Path(name), digest) is False:
                record.files[name] = digest  # edited since: still listed, so that --uninstall names it
    except BaseException:
        for name, digest in earlier.items():
            record.files.setdefault(name, digest)  # not written again: still the earlier file, still ours
        raise
    finally:
        _make_folders(record_path.parent, record)
        _write_record(record_path, record)


def remove_files(record_path: Path) -> Removal | None:
    """Removes what the record lists, then the record; None when there is no record."""
    record = read_record(record_path)
    if record is None:
        return None
    removed, kept = [], []
    for name, digest in record.files.items():
        outcome = _remove_if_unchanged(Path(name), digest)
        if outcome is True:
            removed.append(Path(name))
        elif outcome is False:
            kept.append(Path(name))
    try:
        record_path.unlink()
    except OSError as exc:
        raise _failed("remove", record_path, exc) from None
    for folder in reversed(record.folders):
        # not empty (something else lives there now) or gone: not ours to clear
        with contextlib.suppress(OSError):
            Path(folder).rmdir()
    return Removal(removed, kept)
