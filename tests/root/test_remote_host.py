"""The SSH core against a real sshd on loopback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from nfstune.remote import (
    AuthFailed,
    CommandFailed,
    Host,
    HostKeyChanged,
    HostKeyUnknown,
    Timeout,
)
from tests.root.conftest import Sshd, keygen


def make_host(sshd: Sshd, **kw: object) -> Host:
    args: dict[str, object] = {
        "port": sshd.port,
        "username": "root",
        "key_filename": sshd.client_key,
        "known_hosts": sshd.known_hosts,
        "label": "testhost",
        "connect_timeout": 5.0,
    }
    args.update(kw)
    return Host("127.0.0.1", **args)  # type: ignore[arg-type]


def test_runs_a_command_and_reports_its_output(sshd: Sshd) -> None:
    with make_host(sshd) as h:
        result = h.run("echo out; echo err >&2; exit 3", check=False)
    assert (result.exit_status, result.stdout, result.stderr) == (3, "out\n", "err\n")


def test_argv_reaches_the_remote_side_exactly(sshd: Sshd) -> None:
    args = ["a b", "it's", "$HOME", "; rm -rf /nonexistent", "`id`", "", "\\n", "ünï"]
    with make_host(sshd) as h:
        result = h.run(["printf", "%s|", *args])
    assert result.stdout == "".join(a + "|" for a in args)


def test_a_failed_command_names_host_command_status_and_stderr(sshd: Sshd) -> None:
    with make_host(sshd) as h, pytest.raises(CommandFailed) as info:
        h.run(["ls", "/no/such/dir"])
    err = info.value
    assert err.exit_status == 2
    assert "testhost" in str(err) and "ls /no/such/dir" in str(err) and "No such file" in str(err)


def test_a_large_output_on_both_streams_does_not_deadlock(sshd: Sshd) -> None:
    with make_host(sshd) as h:
        result = h.run("head -c 3000000 /dev/zero | tr '\\0' o; head -c 3000000 /dev/zero | tr '\\0' e >&2")
    assert (len(result.stdout), len(result.stderr)) == (3_000_000, 3_000_000)


def test_timeout(sshd: Sshd) -> None:
    with make_host(sshd) as h, pytest.raises(Timeout) as info:
        h.run("sleep 5", timeout=0.5)
    assert "sleep 5" in str(info.value) and "testhost" in str(info.value)


def test_unknown_host_key_is_refused_with_its_sha256_fingerprint(sshd: Sshd, tmp_path: Path) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(HostKeyUnknown) as info:
        make_host(sshd, known_hosts=empty).connect()
    expected = subprocess.run(
        ["ssh-keygen", "-lf", str(sshd.host_key.with_suffix(".pub"))], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    assert info.value.fingerprint == expected
    assert info.value.key_type == "ssh-ed25519"


def test_changed_host_key_is_refused(sshd: Sshd, tmp_path: Path) -> None:
    other = keygen(tmp_path / "other_host_key")
    key_type, key_b64 = other.with_suffix(".pub").read_text().split()[:2]
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {key_type} {key_b64}\n")
    with pytest.raises(HostKeyChanged) as info:
        make_host(sshd, known_hosts=wrong).connect()
    assert "HOST KEY CHANGED" in str(info.value) and "testhost" in str(info.value)


def test_wrong_key_is_an_auth_failure(sshd: Sshd, tmp_path: Path) -> None:
    stranger = keygen(tmp_path / "id_stranger")
    with pytest.raises(AuthFailed) as info:
        make_host(sshd, key_filename=stranger).connect()
    assert "testhost" in str(info.value) and "root" in str(info.value)


def test_a_missing_tool_is_named_with_how_to_install_it(sshd: Sshd) -> None:
    from nfstune.errors import ToolMissing

    with make_host(sshd) as h, pytest.raises(ToolMissing) as info:
        h.run("nfstune-no-such-tool --version")
    assert info.value.tool == "nfstune-no-such-tool" and info.value.host == "testhost"
    with make_host(sshd) as h, pytest.raises(ToolMissing) as info:
        h.run(["env", "PATH=/nonexistent", "/bin/sh", "-c", "iperf3 -s"])
    assert "install the package iperf3 on testhost" in str(info.value)
