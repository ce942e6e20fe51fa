"""Shared fixtures: free ports, and the practice lab booted once per test session (per pytest-xdist worker: `make
test` runs two, each with a lab of its own). The SSH fixtures (a real sshd on loopback, local users) are in
tests/root/conftest.py: they need root. And the guard that keeps the tests' network traffic on loopback."""

from __future__ import annotations

import ipaddress
import os
import socket
import sys
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
import pytest

if TYPE_CHECKING:
    from nfstune.lab import LabConfig


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- network traffic stays on loopback ---------------------------------------------------------------------------
# The project's rule: network traffic goes only to loopback and to the project's own test hosts (the lab VMs, which
# this computer reaches on 127.0.0.1 port forwards, or network namespaces a test creates). An audit hook holds the
# tests in this process to it. Refused before it happens, with OffLoopback (an OSError, as a network failure is):
# - a name lookup of any name but `localhost` (getaddrinfo, gethostbyname): glibc may send it to the nameserver of
#   /etc/resolv.conf, even a name meant never to resolve (.invalid). Numeric addresses are answered by the C library
#   itself, asking no one, and are checked where they are connected to;
# - a reverse lookup (gethostbyaddr, getnameinfo even with NI_NUMERICHOST) of an address off loopback;
# - a connection or a datagram (connect, sendto, sendmsg) to an IPv4 or IPv6 address off loopback. Unix sockets
#   and netlink are not network traffic.
# The test then fails, naming what was refused, also when the code under test caught the error. Not covered:
# - child processes (ssh, sudo, a `python -m nfstune` the test starts, the lab's image build with its apt
#   downloads): an audit hook stays in its own interpreter. A test that needs a name not to resolve looks it up in
#   a child whose resolver reads /etc/hosts alone (files_only_hosts, tests/root/conftest.py);
# - a host *name* given straight to socket.connect() or sendto(): Python resolves it before the hook is told. The
#   test fails all the same, but that one lookup has been sent.
LOOPBACK_NAMES = frozenset({"localhost"})  # answered from /etc/hosts (nsswitch's `files` comes before `dns`)
LOOKUPS = frozenset({"socket.getaddrinfo", "socket.gethostbyname"})
REVERSE = frozenset({"socket.gethostbyaddr", "socket.getnameinfo"})
SENDS = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})
NETWORK_RULE = (
    "nfstune's tests send network traffic only to loopback and to the project's own test hosts (the lab VMs on "
    "127.0.0.1, network namespaces a test creates)"
)


class OffLoopback(OSError):
    """A name lookup or a connection the tests' network rule refuses."""


def _text(host: object) -> str | None:
    if isinstance(host, bytes | bytearray):
        return host.decode("ascii", "replace")
    return host if isinstance(host, str) else None


def _address(host: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """`host` as a numeric address (None: a name, or nothing the hook knows)."""
    text = _text(host)
    if text is None:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    return mapped or address


def _on_this_computer(host: object) -> bool:
    """Whether reaching `host` stays on this computer: a loopback address, `localhost`, or the unspecified address
    (0.0.0.0, ::), which Linux connects to on loopback."""
    address = _address(host)
    if address is not None:
        return address.is_loopback or address.is_unspecified
    text = _text(host)
    return text is not None and text.lower().rstrip(".") in LOOPBACK_NAMES


def refusal(event: str, args: tuple[Any, ...]) -> str | None:
    """What the network rule refuses in an audit event (None: nothing)."""
    if event in LOOKUPS:
        host = args[0]
        port = f" (port {args[1]})" if event == "socket.getaddrinfo" and args[1] is not None else ""
        if host is None or host in ("", b"") or _address(host) is not None or _on_this_computer(host):
            return None
        return f"looking up the name {host!r}{port}: a name other than localhost may be sent to a DNS server"
    if event in REVERSE:
        # getnameinfo's event does not carry its flags: with NI_NUMERICHOST it asks no one, but the hook cannot tell
        where = args[0][0] if event == "socket.getnameinfo" else args[0]
        if _on_this_computer(where):
            return None
        return f"looking up the name of {where!r}: a reverse lookup may be sent to a DNS server"
    if event in SENDS:
        sock, address = args
        family = getattr(sock, "family", None)
        if family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
            return None  # a Unix socket, netlink; a send on a connected socket (checked when it connected)
        if _on_this_computer(address[0]):
            return None
        verb = "connecting to" if event == "socket.connect" else "sending a datagram to"
        return f"{verb} {address[0]} port {address[1]}: that address is not loopback"
    return None


_refused: list[str] = []
_GUARDED_PID = os.getpid()  # the pytest process (an xdist worker); a fork of it is no test and reports to no one


def _guard(event: str, args: tuple[Any, ...]) -> None:
    if event.startswith("socket.") and os.getpid() == _GUARDED_PID:
        why = refusal(event, args)
        if why is not None:
            _refused.append(why)
            raise OffLoopback(f"refused by the tests' network guard (tests/conftest.py): {why}")


sys.addaudithook(_guard)


@contextmanager
def expecting_refusals() -> Iterator[list[str]]:
    """For the guard's own tests only: what it refused inside, taken out of what fails the test."""
    start, seen = len(_refused), list[str]()
    try:
        yield seen
    finally:
        seen.extend(_refused[start:])
        del _refused[start:]


def _said(refused: list[str]) -> str:
    lines = "\n".join(f"  - {why}" for why in dict.fromkeys(refused))
    return (
        f"{NETWORK_RULE}; this test tried, and the guard in tests/conftest.py refused:\n{lines}\n"
        "Connect to 127.0.0.1 (a closed port from free_port() for a failure). A name that must not resolve is "
        "looked up in a child process whose resolver reads /etc/hosts alone: files_only_hosts, tests/root/conftest.py."
    )


def _held_to_loopback() -> Generator[None, None, None]:
    """Around each phase of a test: it fails when the guard refused anything meanwhile, whatever became of the
    OffLoopback (caught by the code under test, or raised in another thread)."""
    start = len(_refused)
    try:
        yield
    finally:
        refused = _refused[start:]
        del _refused[start:]
        if refused:
            pytest.fail(_said(refused), pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _held_to_loopback())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    return (yield from _held_to_loopback())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    return (yield from _held_to_loopback())


# --- two workers, two labs ---------------------------------------------------------------------------------------
# The lab's tests mostly wait (on the hdd profile's delays, the shaped link and the workloads' own time): its VMs use
# well under half a core each. So `make test` runs two pytest-xdist workers, each booting its own lab when it first
# needs one. The scheduler below keeps together what must not be split:
# - tests/root: one sshd, and local users created and removed by name;
# - the three-client lab's module: four VMs, booted once for the module.
# (xdist's own `--dist loadgroup` rewrites node ids, which pytest 9.2 no longer takes: pytest-xdist issue #1386.)
# The lab's tests go first, longest first, so that the short ones fill the end of the run on both workers.
TOGETHER = {"tests/root/": "tests/root", "tests/lab/test_lab_clients.py::": "the three-client lab"}
LONGEST_FIRST = ("tests/ui/test_wizard_lab.py", "tests/lab/test_engine_lab.py")


def together(nodeid: str) -> str:
    """The unit of work a test belongs to: a group of TOGETHER, or the test alone."""
    return next((group for prefix, group in TOGETHER.items() if nodeid.startswith(prefix)), nodeid)


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class Together(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return together(nodeid)

    return Together(config, log)


def _order(item: pytest.Item) -> tuple[int, int]:
    uses_lab = "lab" in getattr(item, "fixturenames", ())
    where = item.nodeid.split("::")[0]
    return (0 if uses_lab else 1, LONGEST_FIRST.index(where) if where in LONGEST_FIRST else len(LONGEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_order)


# --- the practice lab, booted once per test session ------------------------------------------------------------


@pytest.fixture(scope="session")
def lab_state_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """XDG_STATE_HOME of the test lab, so that `nfstune lab ...` subprocesses find it too."""
    return tmp_path_factory.mktemp("xdg-state")


@pytest.fixture(scope="session")
def lab(lab_state_home: Path) -> Iterator[LabConfig]:
    """Both lab VMs up, on free ports, with the hdd disk profile and the 50mbit link profile (so that the tests
    can check the shaping); the image cache is the user's own, shared with `nfstune lab`."""
    from nfstune.lab import LabConfig, down, up

    cfg = LabConfig(
        state_dir=lab_state_home / "nfstune" / "lab",
        nas_port=free_port(),
        client_port=free_port(),
        link_port=free_port(),
        disk="hdd",
        link="50mbit",
    ).validate()
    log: list[str] = []
    up(cfg, log.append)
    yield cfg.as_running()
    down(cfg, log.append)
    assert_lab_gone(cfg)


def assert_lab_gone(cfg: LabConfig) -> None:
    """After `down`: no qemu of this lab still runs (its state folder is on each one's command line), no pid file."""
    leftovers = [
        p.info["pid"]
        for p in psutil.process_iter(["pid", "cmdline"])
        if str(cfg.state_dir) in " ".join(p.info["cmdline"] or [])
    ]
    assert leftovers == [], f"qemu processes left running: {leftovers}"
    assert not list(cfg.state_dir.glob("*.pid")), "stale pid files left"
