"""This computer as an NFS server and client for Apply and Undo, without touching its own /etc: a LocalHost whose
/etc, nfsd's caches (/proc/net/rpc) and nfstune's copies (/var/lib/nfstune) are folders of the test's, and whose
`exportfs` replays what the real exportfs 2.6.2 said of an exports file (tests/captures/exportfs) when it finds
that file's text. Every other command is this computer's own (sh, findmnt, chown, ls...)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from nfstune.remote.local import LocalHost
from nfstune.remote.process import RemoteProcess
from tests.exportfs_corpus import Capture
from tests.unit.test_exports import corpus_cases

MOVED = ("/etc/", "/proc/net/rpc/", "/var/lib/nfstune")

# exportfs as the tests need it: -ra takes the exports file whose text was recorded (its table, what it said, its
# exit status); a text nobody recorded changes nothing (a reload that did not happen), and is logged
FAKE_EXPORTFS = """#!/bin/sh
root={root}
echo "$*" >> "$root/exportfs.log"
case "$1" in
-ra)
  key=$(sha256sum "$root/etc/exports" | cut -c1-64)
  if [ -f "$root/replay/$key.rc" ]; then
    cp "$root/replay/$key.shown" "$root/table"
    cat "$root/replay/$key.err" >&2
    exit "$(cat "$root/replay/$key.rc")"
  fi
  exit 0 ;;
-s) cat "$root/table" 2>/dev/null ;;
esac
exit 0
"""


def recorded(case_id: str) -> tuple[str, tuple[int, str, str]]:
    """A corpus case's exports text, and what exportfs -ra (exit status, what it said) and -s showed for it."""
    text = next(case.text for case in corpus_cases() if case.id == case_id)
    rc, err, shown, _shown_err = Capture.load().as_run().results[case_id]
    return text, (rc, err, shown)


class EtcHost(LocalHost):
    """This computer with /etc and the rest of MOVED under `root`; what was written and run is kept, as the code
    named it (before the move)."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        super().__init__()
        self.root = root
        self.written: list[str] = []
        self.sent: list[str] = []
        for folder in ("etc", "proc/net/rpc/nfsd.export", "proc/net/rpc/nfsd.fh", "bin", "replay"):
            (root / folder).mkdir(parents=True, exist_ok=True)
        for cache in ("nfsd.export", "nfsd.fh"):
            (root / "proc/net/rpc" / cache / "content").write_text("")
        exportfs = root / "bin" / "exportfs"
        exportfs.write_text(FAKE_EXPORTFS.format(root=root))
        exportfs.chmod(0o755)
        monkeypatch.setenv("PATH", f"{root / 'bin'}{os.pathsep}{os.environ['PATH']}")

    def replay(self, text: str, result: tuple[int, str, str]) -> None:
        """exportfs -ra of an /etc/exports holding `text` says and shows `result` (rc, stderr, exportfs -s)."""
        key = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
        rc, err, shown = result
        for suffix, value in (("rc", str(rc)), ("err", err), ("shown", shown)):
            (self.root / "replay" / f"{key}.{suffix}").write_text(value, encoding="utf-8", errors="surrogateescape")

    def exportfs_calls(self) -> list[str]:
        log = self.root / "exportfs.log"
        return log.read_text().splitlines() if log.exists() else []

    def etc(self, name: str) -> Path:
        return self.root / "etc" / name

    def _moved(self, text: str) -> str:
        for prefix in MOVED:
            text = text.replace(prefix, f"{self.root}{prefix}")
        return text

    def start(self, command: str | Sequence[str], **kw: object) -> RemoteProcess:  # type: ignore[override]
        self.sent.append(command if isinstance(command, str) else " ".join(command))
        moved = self._moved(command) if isinstance(command, str) else [self._moved(a) for a in command]
        return super().start(moved, **kw)  # type: ignore[arg-type]

    def write_file(self, path: str, data: bytes, *, sudo: bool = False, mode: str | None = None) -> None:
        self.written.append(path)
        super().write_file(path, data, sudo=sudo, mode=mode)
