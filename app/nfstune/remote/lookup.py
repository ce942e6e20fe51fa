"""What a host calls another one: the addresses its resolver gives for a name (`getent ahosts`, so /etc/hosts,
DNS and mDNS as the host's own nsswitch.conf has them), for matching an fstab line that names the server by
address while nfstune knows it by name."""

from __future__ import annotations

import ipaddress

from nfstune.remote.errors import RemoteError
from nfstune.remote.host import Host


def addresses_of(host: Host, name: str) -> tuple[str, ...]:
    """`name` and every address `host` resolves it to, in its resolver's order; just `name` when it cannot be
    resolved there (no getent, an unknown name): a match by name alone is still made."""
    try:
        result = host.run(["getent", "ahosts", name], check=False, timeout=30)
    except RemoteError:
        return (name,)
    return (name, *parse_getent(result.stdout)) if result.exit_status == 0 else (name,)


def parse_getent(output: str) -> tuple[str, ...]:
    """The addresses of `getent ahosts` output ("10.0.0.5      STREAM nas"), each once, in order."""
    found: list[str] = []
    for line in output.splitlines():
        first = line.split(maxsplit=1)[0] if line.strip() else ""
        try:
            address = str(ipaddress.ip_address(first))
        except ValueError:
            continue
        if address not in found:
            found.append(address)
    return tuple(found)
