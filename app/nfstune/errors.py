"""Known environment errors: each says what went wrong, where, and what to do.

Anything that is not one of these is a bug and is reported as such (see cli.main).
"""

from __future__ import annotations


class NfstuneError(Exception):
    """An error the user can act on; str() is the whole message, in plain words. `details`: the technical text
    behind it (the exception it came from), shown on request: behind a Details control in the window, indented
    after the message in a terminal."""

    details: str = ""


class Cancelled(NfstuneError):
    """The user stopped the work; what it had changed was undone."""


class ToolMissing(NfstuneError):
    def __init__(self, tool: str, host: str, install_hint: str) -> None:
        self.tool, self.host, self.install_hint = tool, host, install_hint
        super().__init__(f"{tool} is not installed on {host}: {install_hint}")


class ConfigError(NfstuneError):
    """Bad input: nothing was changed."""
