"""fio's own server on a client host, for load from several clients at once (issue 13): one fio front end sends
the same job to every client's `fio --server`, so that the clients start together and fio reports each one and
the sum. A server is a change on the host like any other: journaled (kind "process", its pid file) before it
starts, and stopped at the end, on cancel, on failure, or at the next connect after a crash.

fio's server has no authentication: whoever reaches its port runs jobs (docs/research/many-clients.md). It is
therefore bound to one address only, the client's own address towards the NFS server (the lab link in the lab),
never to every address as `fio --server` alone would be. Its output goes to a log beside the pid file, because
fio's own --daemonize sends it to /dev/null and the error of a port already taken would pass unseen.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass

from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.steps import Role, Steps, shell
from nfstune.changes.transaction import (
    PROCESS_PID_PREFIX,
    ChangeFailed,
    Transaction,
    process_log_file,
    run_step,
    undo_process,
)
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.shell_text import sh_line

DEFAULT_PORT = 8765
LISTENING = "LISTENING"
START_LIMIT_S = 15.0


@dataclass(frozen=True)
class FioServer:
    host: Host
    address: str
    port: int
    pid: int

    @property
    def reached_as(self) -> str:
        """How fio's front end names this server after --client= (its own "hostname,port" form)."""
        return f"{self.address},{self.port}"


def pid_file(port: int) -> str:
    return f"{PROCESS_PID_PREFIX}{port}.pid"


def server_steps(role: Role, address: str, port: int = DEFAULT_PORT) -> Steps:
    """fio's server started on `role`'s host, listening on `address`:`port` only, its pid and log beside each other."""
    pid_path = pid_file(port)
    log_path = process_log_file(pid_path)
    # setsid: the server outlives this SSH command; a background job of a non-interactive shell is not a group
    # leader, so setsid execs fio in place and $! is fio's own pid
    start = sh_line(
        "setsid {argv} > {log} 2>&1 < /dev/null & echo $! > {pid}; cat {pid}",
        argv=["fio", f"--server=ip:{address},{port}"],
        log=log_path,
        pid=pid_path,
    )
    return Steps(
        (shell(role, start, f"start fio's server on {address}:{port} (journaled, stopped at the end)"),),
        (undo_process(role, pid_path),),
    )


def start_server(host: Host, tx: Transaction, address: str, port: int = DEFAULT_PORT) -> FioServer:
    """Start `fio --server` on `host`, listening on `address`:`port` only; returns once it listens."""
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        raise NfstuneError(f"{host.label}: fio's server must listen on one IPv4 address, not {address!r}") from None
    if ip.is_unspecified:
        raise NfstuneError(f"{host.label}: fio's server must not listen on every address (0.0.0.0)")
    if not 1024 <= port <= 65535:
        raise NfstuneError(f"{host.label}: port {port} for fio's server is out of range (1024-65535)")
    _check_port_free(host, port)
    pid_path = pid_file(port)
    log_path = process_log_file(pid_path)
    tx.record(host, "process", pid_path, detail={"program": "fio --server", "address": address, "port": port})
    tx.progress(f"{host.label}: starting fio's server on {address}:{port}")
    (start,) = server_steps("client", address, port).do
    result = run_step(host, start, action="starting fio's server")
    assert result is not None
    out = result.stdout.strip()
    if not out.isdigit():
        raise ChangeFailed(f"{host.label}: fio's server did not start (no pid: {out[:80]!r})")
    pid = int(out)
    _wait_listening(host, pid, log_path, address, port)
    return FioServer(host, address, port, pid)


@dataclass(frozen=True)
class FioServerOn:
    """fio's server on `role`'s host for the session, listening on that client's own address towards the server."""

    role: Role

    def steps(self, where: Where) -> Steps:
        return server_steps(self.role, f"<the address of {self.role}>")

    def apply(self, on: OnHosts) -> None:
        on.fio_servers[self.role] = start_server(on.host(self.role), on.tx, on.addresses[self.role]).reached_as


def _check_port_free(host: Host, port: int) -> None:
    """Nothing may listen on the port yet, on any address: fio's server sets SO_REUSEPORT, so a second one binds
    beside the first and the kernel shares the front end's connections between them (seen on the lab: a second
    server on a taken port started without an error)."""
    listening = host.run(port_free_line(port), action=f"checking that port {port} is free").stdout.strip()
    if listening != "0":
        raise NfstuneError(
            f"{host.label}: port {port} is already in use there (a program listens on it); fio's server was not "
            "started: free the port or choose another"
        )


def _wait_listening(host: Host, pid: int, log_path: str, address: str, port: int) -> None:
    """Ready once the kernel lists a listening socket on address:port that belongs to this very process (its
    inode among the pid's open files): fio's own "server listening" line sits in stdio's buffer, unseen, and a
    socket of another program on that port must not pass for it."""
    deadline = time.monotonic() + START_LIMIT_S
    check = listening_line(address, port, pid, log_path)
    while True:
        lines = host.run(check, sudo=True, action="checking fio's server").stdout.strip().splitlines()
        state, said = (lines[-1], lines[:-1]) if lines else ("GONE", [])
        if state == LISTENING:
            return
        if state == "GONE":
            reason = " ".join(line.strip() for line in said if line.strip())[:300] or "no message"
            raise ChangeFailed(f"{host.label}: fio's server on {address}:{port} stopped at once: {reason}")
        if time.monotonic() > deadline:
            limit = f"{START_LIMIT_S:g} s"
            raise ChangeFailed(f"{host.label}: fio's server on {address}:{port} was not listening after {limit}")
        time.sleep(0.2)


def port_free_line(port: int) -> str:
    """How many sockets listen on `port` (TCP, any address)."""
    return sh_line(
        "cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v end={end} "
        "'$4 == \"0A\" && substr($2, length($2) - 4) == end' | wc -l",
        end=f":{port:04X}",
    )


def listening_line(address: str, port: int, pid: int, log_path: str) -> str:
    """LISTENING when process `pid` listens on address:port (its socket's inode among its open files), ALIVE while
    it runs without, else what it logged and GONE."""
    return sh_line(
        "inode=$(awk -v local={local} '$2 == local && $4 == \"0A\" {{print $10}}' /proc/net/tcp); "
        'if [ -n "$inode" ] && ls -l /proc/{pid}/fd 2>/dev/null | grep -q "socket:\\[$inode\\]"; then '
        "echo {listening}; elif kill -0 {pid} 2>/dev/null; then echo ALIVE; else "
        "cat {log} 2>/dev/null; echo; echo GONE; fi",
        local=f"{_proc_net_hex(address)}:{port:04X}",
        pid=int(pid),
        listening=LISTENING,
        log=log_path,
    )


def _proc_net_hex(address: str) -> str:
    """An IPv4 address as /proc/net/tcp writes it: the four bytes in host (little-endian) order, in hex."""
    return ipaddress.IPv4Address(address).packed[::-1].hex().upper()
