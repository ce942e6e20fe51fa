"""What starting the desktop imports: the statistics libraries (scipy, over a second of a cold start on a busy
machine, and numpy) wait for the first verdict, which no window needs before a result is shown; the SSH library
(paramiko, with cryptography, nacl and invoke: over a tenth of a second) waits for the first login; the plotting
library (pyqtgraph, 0.2-0.3 s) waits for the first chart shown (issue 31)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

APP = Path(__file__).parents[2] / "app"
# the modules `nfstune` imports on its way to the main window (tools/bench/cold_start.py's breakdown)
WINDOW_CHAIN = "import nfstune.cli.main, nfstune.ui.app, nfstune.ui.main_window"
STATISTICS = ("scipy", "numpy")
SSH_PACKAGES = ("paramiko", "cryptography", "nacl", "invoke")
# a login to a loopback port that hangs up at once, as a host that is not sshd does: it gets as far as the SSH
# handshake, which is where paramiko is needed
FAILED_LOGIN = """
import socket, tempfile, threading
from pathlib import Path
from nfstune.remote import Host, RemoteError
server = socket.create_server(("127.0.0.1", 0))
threading.Thread(target=lambda: server.accept()[0].close(), daemon=True).start()
host = Host("127.0.0.1", port=server.getsockname()[1], known_hosts=Path(tempfile.mkdtemp()) / "known_hosts")
try:
    host.connect()
except RemoteError:
    pass
"""
# the window made and shown as `nfstune` does (offscreen, its store and settings in the test's folder)
WINDOW_SHOWN = """
import os
from pathlib import Path
from PySide6.QtCore import QSettings
from nfstune.ui.app import application
home = Path(os.environ["XDG_DATA_HOME"])
app = application()
settings = QSettings(str(home / "nfstune.ini"), QSettings.Format.IniFormat)
window = nfstune.ui.main_window.MainWindow(store_path=home / "nfstune.sqlite3", scale="small", settings=settings)
window.show()
app.processEvents()


def close_as_a_quit_does():
    # the window's jobs (History's reads) end before the interpreter does, as quitting the window waits for them:
    # a QThread still running at exit aborts the process (seen under load: 'history-regressions-1')
    import time

    window.close()
    while window.controller.queue.busy():
        app.processEvents()
        time.sleep(0.01)


import atexit

atexit.register(close_as_a_quit_does)
"""


def loaded(code: str, packages: tuple[str, ...], home: Path | None = None) -> list[str]:
    """The modules of `packages` loaded after `code` runs in a fresh interpreter (this one has imported
    everything); `home`: its XDG folders."""
    report = f"print(json.dumps(sorted(m for m in sys.modules if m.partition('.')[0] in {packages!r})))"
    env = {**os.environ, "PYTHONPATH": str(APP), "QT_QPA_PLATFORM": "offscreen"}
    if home is not None:
        env |= {f"XDG_{name}_HOME": str(home / name.lower()) for name in ("DATA", "CONFIG", "STATE", "CACHE")}
        (home / "data").mkdir()
    proc = subprocess.run(
        [sys.executable, "-c", f"import json, sys\n{code}\n{report}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    modules: list[str] = json.loads(proc.stdout.splitlines()[-1])
    return modules


def test_the_window_starts_without_the_statistics_libraries() -> None:
    assert loaded(WINDOW_CHAIN, STATISTICS) == []


def test_the_first_verdict_brings_the_statistics_libraries_in() -> None:
    # the check above can see them: the same chain, then the t quantile every verdict's interval needs
    modules = loaded(
        f"{WINDOW_CHAIN}\nfrom nfstune.statistics.stats import t_quantile\nt_quantile(0.975, 4)", STATISTICS
    )
    assert {"scipy.stats", "numpy"} <= set(modules)


def test_the_window_starts_without_the_ssh_library() -> None:
    assert loaded(WINDOW_CHAIN, SSH_PACKAGES) == []


def test_the_first_login_brings_the_ssh_library_in() -> None:
    # the check above can see paramiko: the same chain, then a login that fails in the SSH handshake
    modules = loaded(f"{WINDOW_CHAIN}\n{FAILED_LOGIN}", SSH_PACKAGES)
    assert {"paramiko", "paramiko.client", "cryptography"} <= set(modules)


def test_the_window_shows_without_any_of_them(tmp_path: Path) -> None:
    # made and shown, not only imported: its pages make no chart, verdict or login before they are used
    assert loaded(f"{WINDOW_CHAIN}\n{WINDOW_SHOWN}", ("pyqtgraph", *STATISTICS, *SSH_PACKAGES), tmp_path) == []


@pytest.mark.parametrize(
    "page",
    [
        "window.stack.setCurrentWidget(window.run_page)",  # the live plot
        "window.tabs.setCurrentWidget(history)\nhistory.bottom_tabs.setCurrentWidget(history.trend)",  # the trend
    ],
)
def test_a_page_with_a_chart_shown_brings_the_plotting_library_in(tmp_path: Path, page: str) -> None:
    # the check above can see pyqtgraph: a page that draws with it makes its chart when it is shown
    code = f"{WINDOW_CHAIN}\n{WINDOW_SHOWN}\nhistory = window.history_page\n{page}\napp.processEvents()"
    assert "pyqtgraph" in loaded(code, ("pyqtgraph",), tmp_path)
