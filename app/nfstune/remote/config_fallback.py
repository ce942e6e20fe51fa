"""~/.ssh/config without the ssh client: paramiko's parser, which honours HostName, User, Port, IdentityFile,
IdentitiesOnly, ProxyJump, ProxyCommand, HostKeyAlias, UserKnownHostsFile, Host and most of Match, but not
everything OpenSSH reads. What it cannot honour is named, by file and line, in a warning: a host defined in an
Included file resolving to some other machine must never pass unnoticed.

paramiko finds the values; their %tokens are expanded afterwards as ssh does (remote/target.py), not by paramiko,
which expands the host's own text (a typed "nas%h" became "nasnas%h") and replaces one token after another (the
host's "%p" then became the port)."""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import shlex
from pathlib import Path

import paramiko

from nfstune.errors import ConfigError

SYSTEM_CONFIG = Path("/etc/ssh/ssh_config")

# directive -> what goes missing when paramiko reads the file
UNHONOURED = {
    "include": "the files it names are not read, so hosts defined there are unknown",
    "canonicalizepermittedcnames": "CNAMEs are not followed",
    "proxyusefdpass": "the proxy command's descriptor is not taken over",
    "knownhostscommand": "the command is not run for host keys",
    "globalknownhostsfile": "the files are not read",
    "tag": "Match tagged does not see it",
}
# the Match criteria paramiko evaluates; any other criterion it treats as matching
MATCH_KNOWN = {"all", "canonical", "final", "host", "originalhost", "user", "localuser", "exec"}
_LINE = re.compile(r"\s*(\w+)(?:\s*=\s*|\s+)(.*)")


def unhonoured(path: Path) -> list[str]:
    """Each directive of the file paramiko does not honour, as 'file line N: Directive: what goes missing'."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    can_exec = importlib.util.find_spec("invoke") is not None  # paramiko runs Match exec through invoke
    out: list[str] = []
    for number, line in enumerate(lines, 1):
        m = _LINE.match(line)
        if not m or line.lstrip().startswith("#"):
            continue
        word, value = m.group(1), m.group(2).strip()
        key = word.lower()
        where = f"{path} line {number}: {word}"
        if key in UNHONOURED:
            out.append(f"{where} {value}: {UNHONOURED[key]}")
        elif key == "match":
            try:
                words = shlex.split(value, comments=True)
            except ValueError:  # an unbalanced quote: paramiko refuses the file anyway
                words = value.split()
            while words:
                name = words.pop(0).lstrip("!").lower()
                if name not in ("all", "canonical", "final") and words:
                    words.pop(0)  # the criterion's argument
                if name not in MATCH_KNOWN or (name == "exec" and not can_exec):
                    out.append(f"{where} {name}: not evaluated; the block applies as if it matched")
    return out


class Unexpanded(paramiko.SSHConfig):
    """paramiko's reading and matching, without its expansion of the values found (Match exec's own is kept)."""

    def _expand_variables(self, config: paramiko.SSHConfigDict, target_hostname: str) -> paramiko.SSHConfigDict:
        return config


def load(path: Path) -> tuple[paramiko.SSHConfig, list[str]]:
    """The parsed file (empty when there is none) and the warnings about it."""
    if not path.is_file():
        return Unexpanded(), []
    try:
        config = Unexpanded.from_path(str(path))
    except (OSError, ValueError, paramiko.SSHException) as exc:
        raise ConfigError(f"cannot read the SSH config {path}: {exc}") from None
    return config, unhonoured(path)


def lookup(config: paramiko.SSHConfig, alias: str) -> dict[str, object]:
    try:
        return dict(config.lookup(alias))
    except ImportError:  # Match exec without invoke: paramiko gives up on the whole lookup
        raise ConfigError(
            f"the SSH config has a Match exec block that nfstune cannot run without the ssh client ({alias!r})"
        ) from None
    except (ValueError, paramiko.SSHException) as exc:
        raise ConfigError(f"the SSH config cannot be used for {alias!r}: {exc}") from None


def source(path: Path, alias: str) -> str:
    """The first Host block of the file whose patterns take `alias`, as 'FILE line N (Host PATTERNS)'; "" when
    none does but `Host *` (paramiko reads no Include: the blocks are all in this one file)."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    for number, line in enumerate(lines, 1):
        m = _LINE.match(line)
        if not m or m.group(1).lower() != "host":
            continue
        patterns = m.group(2).split("#", 1)[0].split()
        if patterns == ["*"]:
            continue
        host = alias.lower()  # ssh matches the host in lower case
        taken = any(fnmatch.fnmatchcase(host, p.lower()) for p in patterns if not p.startswith("!"))
        if taken and not any(fnmatch.fnmatchcase(host, p[1:].lower()) for p in patterns if p.startswith("!")):
            return f"{path} line {number} (Host {' '.join(patterns)})"
    return ""
