"""The store's file on disk, around what SQLite does with it: its folder (made, or what is in the way said), the
file itself (a regular file or none, the user's alone, writable or not), and SQLite's errors about it in plain
words. Nothing here changes a file that is not known to be nfstune's own."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from nfstune import paths
from nfstune.errors import NfstuneError

BUSY_SECONDS = 10  # how long a statement waits for another program's lock on the file before saying so


class StoreError(NfstuneError):
    pass


def _in_the_way(folder: Path) -> str | None:
    """Why `folder` cannot be reached, from / down: a folder this user may not enter, or a symbolic link to
    nothing; None when it is neither (the error itself then says why)."""
    for part in reversed((folder, *folder.parents)):
        try:
            os.lstat(part)
        except PermissionError:
            return f"this user may not enter {part.parent}"
        except OSError:
            return None
        if os.path.islink(part) and not os.path.exists(part):
            return (
                f"{part} is a symbolic link to {os.readlink(part)}, which does not exist; make that folder, or point "
                "the link elsewhere"
            )
    return None


def make_folder(path: Path) -> None:
    """The store's folder, made if missing (the user's alone)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        why = _in_the_way(path.parent) or exc.strerror or str(exc)
        raise StoreError(f"cannot make the folder {path.parent} for the results: {why} (nothing was changed)") from None


def existing(path: Path) -> bool:
    """Whether a database with something in it is there (an empty file is a new one). Anything but a regular
    file is refused: SQLite would fail on a folder with "unable to open", and on a named pipe with "disk I/O
    error", after nfstune had changed its mode."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {_in_the_way(path.parent) or exc.strerror or exc}") from None
    if not stat.S_ISREG(status.st_mode):
        raise StoreError(
            f"{path} is not a regular file but {paths.file_kind(status.st_mode)}: move it aside, and nfstune makes "
            "a new database there (nothing was changed)"
        )
    return status.st_size > 0


def create(path: Path) -> None:
    """A new file, empty and 0600 whatever the umask (SQLite gives its -wal and -shm files the database's mode):
    it holds copies of /etc/fstab, which can carry credentials."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return  # another thread or process made it just now
    except OSError as exc:
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from None


def make_private(path: Path) -> None:
    """Take the group's and others' access away from the database an older nfstune made and from its -wal and
    -shm files; the owner's access stays as it is (a file made read-only stays read-only)."""
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = stat.S_IMODE(p.stat().st_mode)
            if mode & 0o077:
                p.chmod(mode & 0o700)
        except FileNotFoundError:
            # none, or a -wal/-shm file SQLite removed just now as another thread closed the last connection
            continue
        except OSError as exc:
            raise StoreError(f"cannot make {p} private to this user: {exc.strerror or exc}") from None


def writable(path: Path) -> bool:
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def read_only_message(path: Path) -> str:
    return (
        f"{path} is read-only for this user: nfstune records each session, and each change it makes on a host, "
        f"there. Make it writable (chmod u+w {path}), or point XDG_DATA_HOME to another folder"
    )


def failure(error: sqlite3.Error, path: Path) -> StoreError | None:
    """What SQLite's `error` on the store at `path` means for the admin; None for an error that is nfstune's own
    (a bug)."""
    code = getattr(error, "sqlite_errorcode", 0) & 0xFF  # the primary result code, without the extended part
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(
            f"{path} is in use by another program, which kept it locked for over {BUSY_SECONDS} s (another nfstune, "
            "sqlite3, a backup): try again once it is done"
        )
    if code == sqlite3.SQLITE_READONLY:
        return StoreError(read_only_message(path))
    if code == sqlite3.SQLITE_FULL:
        return StoreError(f"the disk that holds {path} is full: free some space, then try again")
    if code in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM):
        return StoreError(f"cannot read or write {path} ({error}): check the disk it is on and its folder's access")
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT):
        return StoreError(f"{path} is not an nfstune database ({error}); move it aside to start afresh")
    return None
