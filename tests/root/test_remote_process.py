"""Streaming, cancel, ProxyJump, accepted host keys and atomic writes against the real sshd."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from nfstune.remote import Host, HostKeyUnknown, Timeout, resolve
from tests.root.conftest import Sshd


def root(sshd: Sshd, **kw: object) -> Host:
    args: dict[str, object] = {"port": sshd.port, "key_filename": sshd.client_key, "known_hosts": sshd.known_hosts}
    args.update(kw)
    return Host("127.0.0.1", label="testhost", **args)  # type: ignore[arg-type]


def group_alive(pgid: int) -> bool:
    """Any process of the group still running (a zombie waiting to be reaped has stopped running)."""
    for proc in psutil.process_iter(["status"]):
        try:
            if os.getpgid(proc.pid) == pgid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except ProcessLookupError:
            pass
    return False


def test_lines_stream_as_they_are_printed(sshd: Sshd) -> None:
    with root(sshd) as h:
        proc = h.start("for i in 1 2 3; do echo line$i; echo warn$i >&2; sleep 0.3; done")
        seen: list[tuple[str, str, float]] = []
        t0 = time.monotonic()
        for stream, line in proc.lines():
            seen.append((stream, line, time.monotonic() - t0))
    assert [(s, text) for s, text, _ in seen if s == "out"] == [("out", "line1"), ("out", "line2"), ("out", "line3")]
    assert [text for s, text, _ in seen if s == "err"] == ["warn1", "warn2", "warn3"]
    first = next(t for s, text, t in seen if text == "line1")
    assert first < 0.5  # streamed, not collected at the end (the command takes 0.9 s)
    assert proc.exit_status == 0 and proc.pgid is not None


def test_exit_status_and_output_without_trailing_newline(sshd: Sshd) -> None:
    with root(sshd) as h:
        result = h.run("printf abc; exit 4", check=False)
    assert (result.exit_status, result.stdout) == (4, "abc")


def test_cancel_kills_the_whole_process_group_within_2_s(sshd: Sshd) -> None:
    with root(sshd) as h:
        proc = h.start("sleep 300 & sleep 301 & (trap '' TERM; sleep 302) & wait")
        assert proc.pgid is not None
        pgid = proc.pgid
        assert group_alive(pgid)
        t0 = time.monotonic()
        proc.cancel()
        while group_alive(pgid) and time.monotonic() - t0 < 5:
            time.sleep(0.05)
        gone_after = time.monotonic() - t0
    assert not group_alive(pgid)
    assert gone_after < 2.0  # including the one that ignores SIGTERM


def test_timeout_kills_the_command(sshd: Sshd, tmp_path: Path) -> None:
    pgid_file, marker = tmp_path / "pgid", tmp_path / "still-running"
    # the remote command notes its process group (field 5 of /proc/self/stat), then would go on for a minute
    command = f"cut -d' ' -f5 /proc/self/stat > {pgid_file}; sleep 60; touch {marker}"
    with root(sshd) as h, pytest.raises(Timeout):
        h.run(command, timeout=0.5)
    pgid = int(pgid_file.read_text())
    deadline = time.monotonic() + 10
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        assert not group_alive(pgid)  # killed, not left to finish its minute
    finally:
        if group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
    assert not marker.exists()


def test_proxyjump_from_ssh_config(sshd: Sshd, tmp_path: Path) -> None:
    config = tmp_path / "ssh_config"
    config.write_text(
        f"Host nas-behind\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n  IdentityFile {sshd.client_key}\n"
        "  ProxyJump jumpbox\n"
        f"Host jumpbox\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User root\n  IdentityFile {sshd.client_key}\n"
    )
    target = resolve("nas-behind", ssh_config=config)
    assert target.jump is not None and target.jump.alias == "jumpbox"
    with Host(target, known_hosts=sshd.known_hosts) as h:
        source_port = int(h.run("echo $SSH_CONNECTION").stdout.split()[1])
        # the target's client is the jump host's sshd (the tunnel), not this process
        (owner,) = [c.pid for c in psutil.net_connections("tcp") if c.laddr and c.laddr.port == source_port]
        assert owner != os.getpid() and psutil.Process(owner).name() == "sshd"


def test_unknown_key_accepted_is_saved_to_our_known_hosts(sshd: Sshd, tmp_path: Path) -> None:
    ours = tmp_path / "nfstune_known_hosts"
    prompts: list[tuple[str, str, str]] = []
    with root(sshd, known_hosts=ours, on_unknown_host_key=lambda *a: prompts.append(a) or True) as h:
        h.run("true")
    assert len(prompts) == 1 and prompts[0][2].startswith("SHA256:")
    assert f"[127.0.0.1]:{sshd.port} ssh-ed25519 " in ours.read_text()
    with root(sshd, known_hosts=ours) as h:  # no prompt the second time
        h.run("true")
    refused = tmp_path / "refused_known_hosts"
    with pytest.raises(HostKeyUnknown):
        root(sshd, known_hosts=refused, on_unknown_host_key=lambda *a: False).connect()
    assert not refused.exists()


def test_atomic_write_keeps_owner_and_mode_and_bytes(sshd: Sshd, tmp_path: Path) -> None:
    target = tmp_path / "exports"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    os.chown(target, 1, 1)
    data = bytes(range(256)) + b"\n/srv 10.0.0.0/8(rw)\n"
    with root(sshd) as h:
        h.write_file(str(target), data)
        assert h.read_file(str(target)) == data
        assert h.read_file(str(tmp_path / "missing")) is None
        h.write_file(str(tmp_path / "new file"), b"x", mode="600")
    st = target.stat()
    assert (target.read_bytes(), st.st_mode & 0o777, st.st_uid, st.st_gid) == (data, 0o640, 1, 1)
    assert (tmp_path / "new file").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exports", "new file"]  # no temp file left


def test_open_host_resolves_and_uses_our_known_hosts(
    sshd: Sshd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nfstune import paths
    from nfstune.remote import open_host

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no ~/.ssh of the machine's
    accepted: list[str] = []
    h = open_host(
        f"root@127.0.0.1:{sshd.port}",
        identity_file=sshd.client_key,
        on_unknown_host_key=lambda label, kind, fp: accepted.append(fp) or True,
    )
    with h:
        assert h.run("echo ok").stdout == "ok\n"
    assert len(accepted) == 1
    assert f"[127.0.0.1]:{sshd.port}" in paths.known_hosts().read_text()
