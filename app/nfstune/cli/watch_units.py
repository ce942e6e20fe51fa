"""A watch's files: the systemd user service that runs the first look on one pair and then looks for a regression,
the timer that starts it daily, weekly or monthly, and the watch's own description (what `--status` lists), each
named after the pair. Pure text; cli/watch.py writes them through a record.

The pair is named by a digest of the arguments that name it (host and share as typed), so that one pair has one
watch whatever it is called, and a unit name needs no escaping. Persistent=true runs a watch missed while the
computer was off at its next start; the RandomizedDelaySec spreads the watches of several pairs (and of several
machines on one NAS) over an hour, so that no two first looks measure the same NAS at once by the calendar.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from nfstune.errors import ConfigError

PREFIX = "nfstune-watch"
EVERY = ("daily", "weekly", "monthly")  # systemd's own calendar shorthands, as OnCalendar= reads them
RANDOM_DELAY = "1h"
# what systemd's command-line parsing takes specially inside an ExecStart= argument
_QUOTED = set(" \t\"'\\;")


@dataclass(frozen=True)
class Watch:
    """One watched pair: how the first look is started and how the store knows the pair."""

    every: str
    arguments: tuple[str, ...]  # the host and share arguments, as `nfstune run` takes them
    text: str  # "nas → desk: /srv/data", for the admin
    server_key: str  # the pair's keys in the store (results' HostPair.key)
    client_key: str
    share: str

    @property
    def name(self) -> str:
        return watch_name(self.arguments)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Watch:
        data = json.loads(text)
        return cls(**{**data, "arguments": tuple(data["arguments"])})


def watch_name(arguments: Sequence[str]) -> str:
    """'nfstune-watch-lab' for the practice lab, else 'nfstune-watch-' and 10 hex digits of the arguments."""
    if list(arguments) == ["--lab"]:
        return f"{PREFIX}-lab"
    return f"{PREFIX}-{hashlib.sha256(json.dumps(list(arguments)).encode()).hexdigest()[:10]}"


def exec_argument(argument: str, *, program: bool = False) -> str:
    """One argument of an Exec line, as systemd.service(5) parses it: `%` doubled (a specifier), `$` doubled in an
    argument (a variable; the program's own path is not expanded), and quoted with the C escapes where a blank, a
    quote, a backslash or a `;` would split or end it. `program`: the path of the program itself, where systemd
    refuses quotes and backslashes outright."""
    if "\n" in argument or "\0" in argument:
        raise ConfigError(f"{argument!r}: a line break cannot be written in a unit file")
    if program and any(c in argument for c in "'\"\\"):
        raise ConfigError(
            f"systemd cannot start {argument}: its path has a quote or a backslash. Install nfstune where its path "
            "has neither (pipx: ~/.local/bin/nfstune) and run `nfstune watch --install` from there"
        )
    argument = argument.replace("%", "%%")
    if not program:
        argument = argument.replace("$", "$$")
    if any(c in _QUOTED for c in argument) or not argument:
        argument = '"' + argument.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return argument


def run_argv(command: Path, watch: Watch) -> list[str]:
    """The first look as the service runs it: `nfstune run` on the pair, no terminal (nothing to answer)."""
    return [str(command), "run", *watch.arguments, "--recipe", "first-look"]


def service_text(command: Path, watch: Watch) -> str:
    run = _exec_line(run_argv(command, watch))
    notify = _exec_line([str(command), "watch", "--notify", watch.name])
    lines = [
        "[Unit]",
        f"Description=nfstune watch: a first look at {_value(watch.text)}",
        "Documentation=man:nfstune(1)",
        "",
        "[Service]",
        "Type=oneshot",
        # the first look changes only the client's own mount: nothing to confirm, and nothing asks
        "StandardInput=null",
        f"ExecStart={run}",
        # then the trend is read again: a new regression raises a desktop notification (or is logged)
        f"ExecStartPost={notify}",
        "Nice=10",
        "",
    ]
    return "\n".join(lines)


def _exec_line(argv: Sequence[str]) -> str:
    return " ".join([exec_argument(argv[0], program=True), *(exec_argument(a) for a in argv[1:])])


def timer_text(watch: Watch) -> str:
    lines = [
        "[Unit]",
        f"Description=nfstune watch ({watch.every}): a first look at {_value(watch.text)}",
        "",
        "[Timer]",
        f"OnCalendar={watch.every}",
        "Persistent=true",
        f"RandomizedDelaySec={RANDOM_DELAY}",
        f"Unit={watch.name}.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ]
    return "\n".join(lines)


def _value(text: str) -> str:
    """A free-text value on one line, its specifiers doubled."""
    return " ".join(text.split()).replace("%", "%%")
