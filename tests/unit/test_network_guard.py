"""The guard of tests/conftest.py that keeps the tests' network traffic on loopback: what it refuses and what it lets
through, and that it refuses a lookup before the lookup is made (the one real call below never reaches the
resolver: the audit hook raises first)."""

from __future__ import annotations

import re
import socket

import pytest

from tests.conftest import OffLoopback, expecting_refusals, refusal


def sock(family: socket.AddressFamily) -> socket.socket:
    return socket.socket(family, socket.SOCK_DGRAM) if family != socket.AF_UNIX else socket.socket(family)


@pytest.mark.parametrize(
    ("event", "args", "said"),
    [
        ("socket.getaddrinfo", ("nonexistent.invalid", 22, 0, 1, 0), "the name 'nonexistent.invalid' (port 22)"),
        ("socket.getaddrinfo", ("nas", None, 0, 0, 0), "the name 'nas': a name other than localhost may be sent"),
        ("socket.getaddrinfo", (b"ip6-localhost", 22, 0, 0, 0), "the name b'ip6-localhost'"),  # not in every hosts
        ("socket.getaddrinfo", ("x.localhost", 22, 0, 0, 0), "the name 'x.localhost'"),  # glibc asks DNS for it
        ("socket.gethostbyname", ("nas.lan",), "the name 'nas.lan'"),
        ("socket.gethostbyaddr", ("10.0.0.5",), "the name of '10.0.0.5': a reverse lookup"),
        ("socket.getnameinfo", (("192.0.2.1", 22),), "the name of '192.0.2.1'"),
    ],
)
def test_a_lookup_that_may_ask_dns_is_refused(event: str, args: tuple[object, ...], said: str) -> None:
    assert said in (refusal(event, args) or "")


@pytest.mark.parametrize(
    ("family", "address", "said"),
    [
        (socket.AF_INET, ("10.255.255.53", 53), "10.255.255.53 port 53: that address is not loopback"),
        (socket.AF_INET6, ("2001:db8::1", 22, 0, 0), "2001:db8::1 port 22"),
        (socket.AF_INET6, ("::ffff:192.0.2.1", 22, 0, 0), "::ffff:192.0.2.1 port 22"),
        (socket.AF_INET, ("nas.invalid", 22), "nas.invalid port 22"),  # resolved by Python before the hook hears
    ],
)
def test_a_connection_or_datagram_off_loopback_is_refused(
    family: socket.AddressFamily, address: tuple[object, ...], said: str
) -> None:
    with sock(family) as s:
        assert f"connecting to {said}" in (refusal("socket.connect", (s, address)) or "")
        assert f"sending a datagram to {said}" in (refusal("socket.sendto", (s, address)) or "")


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("socket.getaddrinfo", ("localhost", 22, 0, 0, 0)),
        ("socket.getaddrinfo", ("LOCALHOST.", 22, 0, 0, 0)),
        ("socket.getaddrinfo", (None, 0, 0, 0, 0)),
        ("socket.getaddrinfo", ("", 0, 0, 0, 0)),
        ("socket.getaddrinfo", ("127.0.0.1", 22, 0, 0, 0)),
        ("socket.getaddrinfo", ("::1", 22, 0, 0, 0)),
        ("socket.getaddrinfo", ("10.0.0.5", 22, 0, 0, 0)),  # numeric: the C library answers it, no one is asked
        ("socket.gethostbyname", ("localhost",)),
        ("socket.gethostbyaddr", ("127.0.0.1",)),
        ("socket.getnameinfo", (("::1", 22, 0, 0),)),
        ("socket.gethostname", ()),
        ("open", ("/etc/hosts", "r", 0)),
    ],
)
def test_what_stays_on_this_computer_is_let_through(event: str, args: tuple[object, ...]) -> None:
    assert refusal(event, args) is None


@pytest.mark.parametrize(
    ("family", "address"),
    [
        (socket.AF_INET, ("127.0.0.1", 22)),
        (socket.AF_INET, ("127.8.9.10", 22)),
        (socket.AF_INET, ("localhost", 22)),
        (socket.AF_INET, ("0.0.0.0", 22)),  # Linux connects the unspecified address on loopback
        (socket.AF_INET6, ("::1", 22, 0, 0)),
        (socket.AF_INET6, ("::ffff:127.0.0.1", 22, 0, 0)),
        (socket.AF_UNIX, "/run/nfstune-test.sock"),
        (socket.AF_UNIX, b"\0abstract"),
    ],
)
def test_loopback_and_unix_sockets_are_let_through(family: socket.AddressFamily, address: object) -> None:
    with sock(family) as s:
        assert refusal("socket.connect", (s, address)) is None
        assert refusal("socket.sendto", (s, address)) is None
    with sock(socket.AF_INET) as s:
        assert refusal("socket.sendmsg", (s, None)) is None  # a connected socket: checked when it connected


def test_the_hook_refuses_a_lookup_before_it_is_made() -> None:
    with (
        expecting_refusals() as refused,
        pytest.raises(OffLoopback, match=re.escape("'nonexistent.invalid' (port 22)")),
    ):
        socket.getaddrinfo("nonexistent.invalid", 22)
    assert refused == [
        "looking up the name 'nonexistent.invalid' (port 22): a name other than localhost may be sent to a DNS server"
    ]
    with (
        expecting_refusals() as refused,
        socket.socket() as s,
        pytest.raises(OffLoopback, match=re.escape("192.0.2.1 port 9")),
    ):
        s.connect(("192.0.2.1", 9))  # a documentation address (RFC 5737): refused before the SYN
    assert len(refused) == 1
