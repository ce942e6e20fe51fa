"""Whether a text can be the address a client mounts the server by: a host name, an IPv4 or an IPv6 address."""

from __future__ import annotations

import ipaddress
import re

# RFC 1123 labels; "_" too, as resolvers and /etc/hosts take it
_LABEL = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")
# the zone of a link-local IPv6 address: an interface's name (at most 15 characters, IFNAMSIZ) or number. Python's
# ipaddress takes any text after the '%', and the address goes into mount commands and fstab lines.
_ZONE = re.compile(r"[A-Za-z0-9_.-]{1,15}")


def _zone_checked(text: str) -> str:
    """`text` when the zone after its '%', if any, names an interface; ValueError otherwise."""
    _, percent, zone = text.partition("%")
    if percent and not _ZONE.fullmatch(zone):
        raise ValueError(f"{text!r}: after '%' comes the interface the address is on (eth0, enp3s0), nothing else")
    return text


def server_address(text: str) -> str:
    """The address as mount takes it after `[...]` is written around an IPv6 one: a host name, an IPv4 address or an
    IPv6 address, bare or in brackets (which are dropped). ValueError says what it is not."""
    if text.startswith("[") and text.endswith("]"):
        try:
            ipaddress.IPv6Address(text[1:-1])
        except ValueError:
            raise ValueError(f"{text!r} is not an IPv6 address in brackets") from None
        return _zone_checked(text[1:-1])
    try:
        ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        return _zone_checked(text)
    labels = text.removesuffix(".").split(".")
    if len(text) > 253 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        raise ValueError(
            f"{text!r} is not a host name, an IPv4 address or an IPv6 address (write [2001:db8::1] or 2001:db8::1)"
        )
    return text
