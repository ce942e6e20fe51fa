"""Hostile host names, users and share paths (shell characters, %tokens, quotes, newlines, NUL, unicode, a leading
'-') through every way nfstune takes them: the resolution of a host (by `ssh -G`, and by the fallback without the
ssh client), the command line, and the checks themselves. A shell that runs what comes out of the resolution (the
ProxyCommand, as ssh runs it) never creates the marker file, and nothing raises anything but ConfigError.

OpenSSH itself is the reference for what a host and a user may be: `ssh -G` takes a destination exactly when
nfstune does."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nfstune.cli import args as cli_args
from nfstune.errors import ConfigError
from nfstune.nfs import names
from nfstune.remote import openssh_config, resolve
from nfstune.remote.proxy import ProxyProcess
from nfstune.remote.target import split_spec

HAS_SSH = shutil.which("ssh") is not None
MARKER = Path(tempfile.gettempdir()) / f"nfstune-hostile-{os.getpid()}"  # one per test process

# each runs `touch MARKER` if a shell ever reads it as a command; {m} is the marker's path
INJECTIONS = [
    "$(touch {m})",
    "`touch {m}`",
    ";touch {m}",
    "|touch {m}",
    "&touch {m}",
    "&&touch {m}",
    "\ntouch {m}",
    "'$(touch {m})'",
    '"$(touch {m})"',
    "$(touch${{IFS}}{m})",
    "{{touch,{m}}}",
    ">{m}",
    "\\;touch {m}",
    "%h$(touch {m})",
]
# what may surround an injection, or stand alone: tokens, quotes, blanks, controls, unicode, option-like text
PIECES = ["nas", "%h", "%p", "%%", "%", "'", '"', "-", "-o", " ", "\t", "\n", "\r", "\0", "\x1b", "\u2028", "é", "☃"]
PIECES += ["\udcff", "@", ":22", "[", "]", ".", "*", "~", "#", "!", "$", "$HOME", "\\", ",", "=", "/"]

text = st.lists(st.sampled_from(PIECES) | st.text(max_size=3), max_size=5).map("".join)
hostile = st.builds(
    lambda before, injection, after: before + injection.format(m=MARKER) + after,
    text,
    st.sampled_from(INJECTIONS),
    text,
)
# what ssh takes, tokens and all: these resolve, and their ProxyCommand runs
plausible = st.lists(
    st.sampled_from(["nas", "%h", "%p", "%%", "%", "é", "☃", ".", "*", "~", "#", "!", "$HOME", "/"]),
    min_size=1,
    max_size=5,
).map("".join)
names_to_try = hostile | text | plausible


@pytest.fixture(autouse=True)
def no_marker() -> Iterator[None]:
    MARKER.unlink(missing_ok=True)
    yield
    ran = MARKER.exists()
    MARKER.unlink(missing_ok=True)
    assert not ran, "a shell ran a command that came from a host name or a user"


@pytest.fixture(scope="module")
def config() -> Iterator[Path]:
    """Every host through a ProxyCommand that carries every token ssh expands there (`true`: nothing contacted)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ssh_config"
        path.write_text("Host *\n  HostName %h\n  ProxyCommand true %h %p %r %n %%\n")
        yield path


def resolved_and_run(spec: str, user: str | None, config: Path) -> None:
    """Resolve `spec` as `nfstune run` does and run its ProxyCommand as ssh would; a refusal is a ConfigError."""
    try:
        target = resolve(spec, user=user, ssh_config=config)
    except ConfigError:
        return
    assert target.proxy_command is not None
    proxy = ProxyProcess(target.proxy_command)
    try:
        assert proxy.ended(within=10) is not None
    finally:
        proxy.close()
    assert not MARKER.exists(), f"ran: {target.proxy_command!r}"
    assert names.host_problem(target.hostname) is None and names.user_problem(target.user) is None


@pytest.mark.parametrize("fallback", [False, True], ids=["ssh -G", "paramiko"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=names_to_try, user=st.none() | names_to_try)
@example(spec=f"$(touch${{IFS}}{MARKER})", user=None)  # the report
@example(spec="nas%h", user="%r$(touch " + str(MARKER) + ")")
@example(spec="%h%p%%nas☃", user="ad$IFS%r\\x")  # resolves: its ProxyCommand runs, and runs nothing of it
def test_no_host_or_user_runs_as_a_command(
    monkeypatch: pytest.MonkeyPatch, config: Path, fallback: bool, spec: str, user: str | None
) -> None:
    if fallback:
        monkeypatch.setattr(openssh_config, "SSH", "/nonexistent/ssh")
    elif not HAS_SSH:
        pytest.skip("needs the ssh client")
    monkeypatch.setenv("SHELL", "/bin/sh")
    resolved_and_run(spec, user, config)


@settings(max_examples=300, deadline=None)
@given(spec=names_to_try, user=names_to_try)
def test_the_checks_refuse_with_a_sentence_and_never_raise_anything_else(spec: str, user: str) -> None:
    for check in (names.host_problem, names.user_problem, names.share_problem):
        for value in (spec, user):
            said = check(value)
            assert said is None or (said.startswith("a ") and "\0" not in said and "\n" not in said)
    try:
        host, _, _ = split_spec(spec)
    except ConfigError as error:
        assert str(error).startswith(repr(spec) + ": ")
    else:
        assert names.host_problem(host) is None
    for argument in (cli_args.ssh_destination, cli_args.share_path):
        try:
            argument(spec)
        except argparse.ArgumentTypeError as error:
            assert str(error) and "Traceback" not in str(error)


def ssh_takes(destination: str) -> bool:
    done = subprocess.run(
        ["ssh", "-F", "/dev/null", "-G", "--", destination], capture_output=True, stdin=subprocess.DEVNULL, timeout=10
    )
    return done.returncode == 0


@pytest.mark.skipif(not HAS_SSH, reason="needs the ssh client as the reference")
@settings(max_examples=300, deadline=None)
# printable ASCII and the blanks and controls ssh judges by the byte; ':' and brackets are left out, for nfstune
# reads a port after them where ssh does not
@given(st.text(st.characters(min_codepoint=1, max_codepoint=127, exclude_characters=":[]"), max_size=8))
@example("a,b")
@example("x\\@nas")
@example("a -b@nas")
@example("@nas")
def test_a_destination_is_taken_exactly_when_ssh_takes_it(destination: str) -> None:
    try:
        split_spec(destination)
        taken = True
    except ConfigError:
        taken = False
    if destination.rpartition("@")[2]:
        assert taken == ssh_takes(destination)
    else:  # `ssh -G` prints a configuration for no host at all; nfstune asks for one
        assert not taken


@pytest.mark.parametrize(
    "value",
    # {m}: the marker's path, put in here: a parameter's id must be the same in every pytest-xdist worker
    ["$(touch${{IFS}}{m})", "nas\nid", "-oProxyCommand=id", "%h'%p", "a@b@`id`", "☃\u202e@nas"],
)
def test_the_command_line_refuses_them_with_exit_2(tmp_path: Path, value: str) -> None:
    from tests.unit.test_cli import nfstune

    value = value.format(m=MARKER)
    for argument in ("--server", "--client"):
        given = {"--server": "nas.invalid", "--client": "client.invalid", argument: value}
        cli = [f"{name}={v}" for name, v in given.items()]
        result = nfstune(tmp_path, "run", *cli, "--share", "/srv", "--recipe", "quick-check", "--dry-run")
        assert result.returncode == 2 and f"error: argument {argument}: " in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
        assert not MARKER.exists()
