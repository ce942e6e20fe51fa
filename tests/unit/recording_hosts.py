"""Hosts that record what they are sent and answer as a small NFS server and its clients would, without a VM: the
unit form of the lab's recording hosts (tests/lab/recording.py, whose Sent and comparison they share). Each stands
for a remote.Host wherever the engine takes one: `run` (a command line or an argv, as root or not), `read_file` and
`write_file`. Files live in a dict; the answers that the changes check afterwards (the kernel's exports table, the
nfsd thread count and listeners, /proc/mounts) follow from what was written and run before, so that a change that
did not happen fails its own check as it would on a real host."""

from __future__ import annotations

import re
import shlex
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from nfstune.nfs.kernel_view import parse_exportfs_s
from nfstune.remote.errors import CommandFailed
from nfstune.remote.process import CommandResult
from nfstune.remote.target import SshTarget
from tests.lab.recording import Sent

EXPORTS = "/etc/exports"
EXPORTS_D = "/etc/exports.d"
SCRATCH_SEEN = "NFSTUNE_SCRATCH_SEEN"


@dataclass
class Kernel:
    """What the server's kernel runs, as its files and /proc say."""

    threads: int = 8
    listeners: list[str] = field(default_factory=lambda: ["tcp 2049"])


class RecordingHost:
    def __init__(self, role: str, log: list[Sent], *, files: dict[str, bytes] | None = None) -> None:
        self.role, self.label, self._log = role, role, log
        self.target = SshTarget(alias=role, hostname=f"{role}.test")
        self.files: dict[str, bytes] = dict(files or {})
        self.dirs: set[str] = {"/etc", EXPORTS_D} if files is not None else {"/etc"}
        self.mounts: list[tuple[str, str, str]] = []  # (source, mount point, options)
        self.kernel = Kernel()
        self._lock = threading.Lock()

    def _note(self, kind: str, text: str, sudo: bool) -> None:
        with self._lock:
            self._log.append(Sent(self.role, kind, text, sudo))

    def run(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 60.0,
        check: bool = True,
        sudo: bool = False,
        stdin: bytes = b"",
        action: str | None = None,
    ) -> CommandResult:
        text = command if isinstance(command, str) else shlex.join(command)
        self._note("run", text, sudo)
        status, out = self._answer(Sent(self.role, "run", text, sudo).line)
        if check and status != 0:
            raise CommandFailed(self.label, text, status, out, action=action)
        return CommandResult(text, status, out, "")

    def read_file(self, path: str, *, sudo: bool = False) -> bytes | None:
        return self.files.get(path)

    def write_file(self, path: str, data: bytes, *, sudo: bool = False, mode: str | None = None) -> None:
        self._note("write", path, sudo)
        self.files[path] = data

    def _answer(self, line: str) -> tuple[int, str]:
        if m := re.fullmatch(r"test -d (\S+)", line):
            return (0 if shlex.split(m[1])[0] in self.dirs else 1), ""
        if m := re.fullmatch(r"mkdir -p (\S+)", line):
            self.dirs.add(shlex.split(m[1])[0])
            return 0, ""
        if m := re.fullmatch(r"mount -t nfs -o (\S+) (\S+) (\S+)", line):
            self.mounts.append((m[2], m[3], m[1]))
            return 0, ""
        if line.startswith("cat /proc/mounts"):
            listed = "".join(f"{src} {point} nfs4 rw,{opts} 0 0\n" for src, point, opts in self.mounts)
            return 0, listed + (f"{SCRATCH_SEEN}\n" if SCRATCH_SEEN in line else "")
        if line.startswith("mountpoint -d "):
            return 0, "0:55\n"
        if re.fullmatch(r"cat /sys/class/bdi/\S+/read_ahead_kb", line):
            return 0, "128\n"
        if line == "cat /proc/fs/nfsd/threads":
            return 0, f"{self.kernel.threads}\n"
        if m := re.fullmatch(r"echo (\d+) > /proc/fs/nfsd/threads", line):
            self.kernel.threads = int(m[1])
            return 0, ""
        if line == "cat /proc/fs/nfsd/portlist":
            return 0, "".join(f"{listener}\n" for listener in self.kernel.listeners)
        if m := re.fullmatch(r"echo rdma (\d+) > /proc/fs/nfsd/portlist", line):
            self.kernel.listeners.append(f"rdma {m[1]}")
            return 0, ""
        if "systemctl restart nfs-server" in line:
            self.kernel.listeners = ["tcp 2049"]  # restarted from its own configuration, which asks for no RDMA
            return 0, ""
        if line == "systemctl is-active nfs-server":
            return 0, "active\n"
        if line == "exportfs -s":
            return 0, self._exportfs_s()
        if line.startswith(f"find -L {EXPORTS_D} "):
            return 0, "".join(f"{p}\0" for p in self.files if p.startswith(f"{EXPORTS_D}/") and p.endswith(".exports"))
        if line.startswith("cat /proc/net/rpc/nfsd.export/content"):
            return 0, "== fh\n"  # empty caches: nothing resolves to another export
        if "fio --server=" in line:
            return 0, "4321\n"  # the pid `cat` prints
        if line.startswith("cat /proc/net/tcp /proc/net/tcp6"):
            return 0, "0\n"  # nothing listens on fio's port yet
        if line.startswith("inode=$(awk"):
            return 0, "LISTENING\n"
        return 0, ""

    def exports_table(self) -> dict[tuple[str, str], tuple[str, ...]]:
        return parse_exportfs_s(self._exportfs_s())

    def _exportfs_s(self) -> str:
        """The exports files as the kernel runs them: `exportfs -s`, sync unless a line says async."""
        rows = []
        for path, data in self.files.items():
            if path != EXPORTS and not (path.startswith(f"{EXPORTS_D}/") and path.endswith(".exports")):
                continue
            for line in data.decode().splitlines():
                words = line.split()
                if not words or words[0].startswith("#"):
                    continue
                for client in words[1:]:
                    name, _, opts = client.partition("(")
                    opts = opts.rstrip(")")
                    mode = () if {"sync", "async"} & set(opts.split(",")) else ("sync",)
                    rows.append(f"{words[0]}  {name}({','.join((*mode, *filter(None, opts.split(','))))})\n")
        return "".join(rows)
