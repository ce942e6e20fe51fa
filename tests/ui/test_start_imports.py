"""What starting the desktop imports: the statistics library (scipy, over a second of a cold start on a busy
machine) waits for the first verdict, which no window needs before a result is shown (issue 31)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).parents[2] / "app"
# the modules `nfstune` imports on its way to the main window (tools/bench/cold_start.py's breakdown)
WINDOW_CHAIN = "import nfstune.cli.main, nfstune.ui.app, nfstune.ui.main_window"
REPORT = "print(json.dumps(sorted(m for m in sys.modules if m.partition('.')[0] == 'scipy')))"


def scipy_modules(code: str) -> list[str]:
    """The scipy modules loaded after `code` runs in a fresh interpreter (this one has imported everything)."""
    env = {**os.environ, "PYTHONPATH": str(APP), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-c", f"import json, sys\n{code}\n{REPORT}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return loaded


def test_the_window_starts_without_the_statistics_library() -> None:
    assert scipy_modules(WINDOW_CHAIN) == []


def test_the_first_verdict_brings_the_statistics_library_in() -> None:
    # the check above can see scipy: the same chain, then the t quantile every verdict's interval needs
    loaded = scipy_modules(f"{WINDOW_CHAIN}\nfrom nfstune.bench.stats import t_quantile\nt_quantile(0.975, 4)")
    assert "scipy.stats" in loaded
