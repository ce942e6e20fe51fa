"""`nfstune` run as the admin runs it, in a process of its own, for the lab tests of whole commands."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Mapping


def nfstune_in(env: Mapping[str, str], timeout: float) -> Callable[..., subprocess.CompletedProcess[str]]:
    """A runner of `nfstune ARGS` with `env` (its data and state folders), no terminal, and a time limit."""

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "nfstune", *args],
            capture_output=True,
            text=True,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            timeout=timeout,
        )

    return run
