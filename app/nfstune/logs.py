"""nfstune's log file: what happened, with timestamps, for bug reports.

paramiko logs a full traceback from its transport thread, a record per line, when a host is not speaking SSH yet
("Error reading SSH protocol banner" while a VM boots, on every retry). With no handler configured, Python's
lastResort handler prints those to stderr, where they look like crashes; in the file they buried everything else
(476 lines for one boot of the lab), so BootRetries keeps them out: the lab's wait says what it waits for.
"""

from __future__ import annotations

import io
import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path

import platformdirs

from nfstune.paths import APP_NAME

LOG_DIR_ENV = "NFSTUNE_LOG_DIR"
LOG_FILE_NAME = "nfstune.log"
MAX_BYTES = 1_000_000
BACKUP_COUNT = 3
FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(threadName)s] %(message)s"


class NfstuneFileHandler(RotatingFileHandler):
    """Its own class, so that setup_logging can find the handler it added before. The file (and its folder) is
    made at the first record, not before: a command refused for bad input leaves nothing behind."""

    def _open(self) -> io.TextIOWrapper:
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()


class BootRetries(logging.Filter):
    """Drops paramiko's "Exception (client): Error reading SSH protocol banner" and the traceback it logs after it
    in the same thread, a record per line (chained exceptions included) up to the exception's own line and the empty
    line that closes it; every other paramiko warning or error passes."""

    BANNER = "Error reading SSH protocol banner"

    def __init__(self) -> None:
        super().__init__()
        self._state: dict[str, str] = {}  # thread -> "traceback" (inside it) or "closing" (its last line seen)

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("paramiko"):
            return True
        message, thread = record.getMessage(), record.threadName or ""
        state = self._state.get(thread)
        if message.startswith("Exception (") and self.BANNER in message:
            self._state[thread] = "traceback"
            return False
        if state == "traceback":
            if self.BANNER in message:  # the exception's own line ends the traceback
                self._state[thread] = "closing"
            return False
        if state == "closing":
            if not message.strip():
                return False
            del self._state[thread]
        return True


def log_dir() -> Path:
    override = os.environ.get(LOG_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_log_dir(APP_NAME))


def _installed_handler() -> NfstuneFileHandler | None:
    return next((h for h in logging.getLogger().handlers if isinstance(h, NfstuneFileHandler)), None)


def setup_logging(level: int = logging.INFO) -> Path:
    """Log nfstune (at `level`), and paramiko's warnings and errors, to a rotating file; returns its path. Calling
    it again adds no second handler (a changed NFSTUNE_LOG_DIR moves the log to the new file)."""
    path = log_dir() / LOG_FILE_NAME
    handler = _installed_handler()
    if handler is None or handler.baseFilename != os.path.abspath(path):
        teardown_logging()
        handler = NfstuneFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUP_COUNT, encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter(FORMAT))
        handler.addFilter(BootRetries())
        logging.getLogger().addHandler(handler)
        paramiko = logging.getLogger("paramiko")
        paramiko.addHandler(handler)
        # not to the root's other handlers (a console handler would print the banner tracebacks again)
        paramiko.propagate = False
    # the level goes on our logger rather than the root, so that other libraries stay at their defaults
    logging.getLogger(APP_NAME).setLevel(level)
    logging.getLogger("paramiko").setLevel(logging.WARNING)
    return path


def teardown_logging() -> None:
    """Undo setup_logging: remove and close the file handler and let paramiko propagate again."""
    handler = _installed_handler()
    if handler is None:
        return
    logging.getLogger().removeHandler(handler)
    paramiko = logging.getLogger("paramiko")
    paramiko.removeHandler(handler)
    paramiko.propagate = True
    paramiko.setLevel(logging.NOTSET)
    handler.close()
