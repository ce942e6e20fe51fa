"""Argument types of the `nfstune` command: each checks one argument while argparse reads it, so a bad one stops
the command (exit 2, naming the argument) before any file is created or any host is contacted."""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path

from nfstune.cli.output import Output, StandardOutput
from nfstune.nfs import addresses, names
from nfstune.nfs.exports import same_directory

SESSION_ID_LIMIT = 2**63  # SQLite's integers are signed 64-bit


def server_address(text: str) -> str:
    """A host name, an IPv4 address or an IPv6 address (bare or in brackets); an IPv6 one comes back bare, for
    the mount source is written `[address]:/share` by the code that builds it."""
    try:
        return addresses.server_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def ssh_destination(text: str) -> str:
    """What ssh takes: [user@]host[:port] or an alias of ~/.ssh/config, its host and user held to ssh's own rules
    (nfs/names.py): no shell character, blank or control character, no leading '-'."""
    from nfstune.errors import ConfigError
    from nfstune.remote.target import split_spec

    try:
        split_spec(text)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def share_path(text: str) -> str:
    """An exported path: absolute, no control character, within exportfs's length (nfs/names.py); spelt as
    exportfs keeps it (`/srv/x/` is `/srv/x`), so that what the server lists and reports matches it."""
    problem = names.share_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text!r}: {problem}")
    return same_directory(text)


def mount_point(text: str) -> str:
    """Where the client mounts the share: an absolute path below /, one line (fstab escapes blanks itself)."""
    if not text.startswith("/") or text.strip("/") == "":
        raise argparse.ArgumentTypeError(f"{text!r} is not an absolute path below /: the mount point is on the client")
    if "\0" in text or "\n" in text or "\r" in text or "\t" in text:
        raise argparse.ArgumentTypeError(f"{text!r} holds a NUL, a tab or a line break, which a mount point cannot")
    return text


def session_id(text: str) -> int:
    """A session number as `nfstune history` lists them; one beyond SQLite's integers is no session either."""
    if not re.fullmatch(r"[0-9]{1,30}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a session number: see `nfstune history`")
    number = int(text)
    if not 0 < number < SESSION_ID_LIMIT:
        raise argparse.ArgumentTypeError(f"there is no session {number}: see `nfstune history`")
    return number


def check_rounds(text: str) -> int:
    """The most rounds a check runs: 3 at least (an interval needs figures), 30 at most."""
    if not re.fullmatch(r"[0-9]{1,3}", text) or not 3 <= int(text) <= 30:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of rounds from 3 to 30")
    return int(text)


def output_file(text: str) -> Output:
    """A file to write a report to: its folder must exist and be writable; the path must not be a folder. `-` is
    standard output (a file of that name is `./-`)."""
    if text == "-":
        return StandardOutput()
    path = Path(text)
    if not text or "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a file name")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder: give a file name in it")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{text}: this user may not write there")
    return path


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero ("nan" and "inf" are floats too)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above zero")
    return seconds


def lab_clients(text: str) -> int:
    from nfstune.lab.config import MAX_CLIENTS

    if not re.fullmatch(r"[0-9]{1,3}", text) or not 1 <= int(text) <= MAX_CLIENTS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of clients from 1 to {MAX_CLIENTS}")
    return int(text)


def vm_memory(text: str) -> int:
    """MiB of RAM for a lab VM: no more than this computer has (qemu would fail only after the image is built)."""
    import psutil

    if not re.fullmatch(r"[0-9]{1,12}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of MiB")
    mib, total = int(text), psutil.virtual_memory().total // 2**20
    if mib > total:
        raise argparse.ArgumentTypeError(f"{mib} MiB is more memory than this computer has ({total} MiB)")
    return mib
