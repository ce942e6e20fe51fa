"""A host as OpenSSH itself resolves it: `ssh -G` evaluates ~/.ssh/config (Include, Match, canonicalization,
first-value-wins) and prints the options it would use. We read that output rather than re-implement the
parser, so nfstune connects where `ssh nas` connects.

`ssh -G` leaves some values as they are written (IdentityFile, ProxyCommand keep their %tokens and ~), while
others come expanded (UserKnownHostsFile); `expand` does what ssh does when it uses them."""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

from nfstune.errors import ConfigError

# the client binary; a test points this at a missing path to exercise the fallback (remote/config_fallback.py)
SSH = "ssh"
TIMEOUT = 10.0  # `Match exec` runs commands: one that hangs must not hang the connect

Options = dict[str, list[str]]  # lower-case key -> its values in ssh's order (IdentityFile repeats)


def ssh_binary() -> str | None:
    return shutil.which(SSH)


# what `ssh -G -vvv` says on stderr of the blocks it applies: Host blocks, and Match blocks that matched
_APPLIED = re.compile(r"debug1: (?P<file>.+) line (?P<line>[0-9]+): Applying options for (?P<host>.+)")
_MATCHED = re.compile(r"debug3: (?P<file>.+) line (?P<line>[0-9]+): matched '(?P<match>.+)'")


def ssh_g(
    binary: str, host: str, *, config: Path | None = None, user: str | None = None, port: int | None = None
) -> Options:
    """`ssh -G host` as options. `user` and `port` go on ssh's command line: they win over the config there
    and `Match user` sees them, as with `ssh -l user -p port host`."""
    return ssh_g_source(binary, host, config=config, user=user, port=port)[0]


def ssh_g_source(
    binary: str, host: str, *, config: Path | None = None, user: str | None = None, port: int | None = None
) -> tuple[Options, str]:
    """`ssh -G host` as options, and the block of the SSH config that named the host (`source`)."""
    cmd = [binary, "-G", "-T", "-vvv"]  # -vvv: ssh says which file and line each block it applies came from
    if config is not None:
        cmd += ["-F", str(config)]
    if user:
        cmd += ["-l", user]
    if port:
        cmd += ["-p", str(port)]
    cmd += ["--", host]  # a host typed as "-oProxyCommand=..." stays a host name
    env = {**os.environ, "LC_ALL": "C"}
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL, env=env, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"`ssh -G {host}` gave no answer within {TIMEOUT:g} s (a Match exec command in the SSH config that waits?)"
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot run {binary} to read the SSH config: {exc}") from None
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
    if done.returncode != 0:
        said = "; ".join(line for line in lines if not line.startswith(("debug", "OpenSSH_")))
        raise ConfigError(f"OpenSSH cannot use the SSH config for {host!r}: {said or f'exit {done.returncode}'}")
    options = parse(done.stdout)
    options.pop("loglevel", None)  # -vvv's DEBUG3, not the config's
    return options, source(lines)


def source(stderr_lines: list[str]) -> str:
    """The first block `ssh -G -vvv` applied that names hosts, as 'FILE line N (Host PATTERN)' or 'FILE line N
    (Match CRITERIA)'; "" when only blocks for every host (Host *, Match all) applied. ssh keeps the first value
    it gets, so the first such block is the one that gave the host its HostName, User and Port, if any did."""
    for line in stderr_lines:
        applied, matched = _APPLIED.fullmatch(line), _MATCHED.fullmatch(line)
        if applied and applied["host"].strip() != "*":
            return f"{applied['file']} line {applied['line']} (Host {applied['host'].strip()})"
        if matched and matched["match"].strip() != "all":
            return f"{matched['file']} line {matched['line']} (Match {matched['match'].strip()})"
    return ""


def parse(output: str) -> Options:
    options: Options = {}
    for line in output.splitlines():
        key, _, value = line.strip().partition(" ")
        if key:
            options.setdefault(key.lower(), []).append(value.strip())
    return options


def first(options: Options, key: str) -> str | None:
    """The value ssh uses, None for unset or "none" (ssh's word for "not at all")."""
    values = options.get(key)
    if not values or values[0].lower() == "none":
        return None
    return values[0]


def tokens(options: Options, original: str) -> dict[str, str]:
    """The %-tokens of ssh_config(5) TOKENS that need no connection yet, as ssh would fill them in."""
    hostname, port, user = options["hostname"][0], options["port"][0], options["user"][0]
    local = socket.gethostname()
    return {
        "%": "%",
        "h": hostname,
        "p": port,
        "r": user,
        "n": original,
        "u": getpass.getuser(),
        "d": str(Path.home()),
        "i": str(os.getuid()),
        "l": local,
        "L": local.split(".")[0],
        "k": first(options, "hostkeyalias") or original,
        "C": hashlib.sha1(f"{local}{hostname}{port}{user}".encode()).hexdigest(),
    }


PROXY_TOKENS = "%hnpr"  # ssh_config(5): ProxyCommand and ProxyJump accept only these
FILE_TOKENS = "%CdhikLlnpru"  # IdentityFile and the other file names


def expand(text: str, values: dict[str, str], allowed: str, what: str, *, path: bool = False) -> str:
    """%x tokens (and, for file names, ${VAR} and a leading ~) as ssh expands them; a token ssh refuses is
    refused here too, naming the option."""

    def token(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in allowed or key not in values:
            raise ConfigError(f"{what} {text!r}: ssh does not expand %{key} there")
        return values[key]

    out = re.sub(r"%(.?)", token, text)
    if not path:
        return out

    def env(m: re.Match[str]) -> str:
        if m.group(1) not in os.environ:
            raise ConfigError(f"{what} {text!r}: the environment variable {m.group(1)} is not set")
        return os.environ[m.group(1)]

    return os.path.expanduser(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", env, out))
