"""The host firewall in front of nfsd, as the probe reads it without root: firewalld (Fedora, RHEL and its
rebuilds) or ufw (Ubuntu). Pure: the probe's sections in, FirewallFacts out.

What each login may read:
- firewalld answers `--state`, `--get-zone-of-interface` and `--get-default-zone` to anyone (polkit action
  org.fedoraproject.FirewallD1.info, allow_any yes), but a zone's settings (`--list-all`) only to root
  (org.fedoraproject.FirewallD1.config.info, auth_admin_keep): firewalld/firewalld config/
  org.fedoraproject.FirewallD1.server.policy.in and src/firewall/server/firewalld.py.
- ufw's /etc/ufw/ufw.conf (ENABLED=yes) and /etc/default/ufw (DEFAULT_INPUT_POLICY) are world-readable; its
  rules, /etc/ufw/user.rules, are root's alone.
A firewall of one's own (nftables or iptables rules without either front end) is not read at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# firewalld's service definitions (firewalld/firewalld config/services/*.xml): what each lets in
FIREWALLD_SERVICES: dict[str, frozenset[str]] = {
    "nfs": frozenset({"2049/tcp"}),
    "nfs3": frozenset({"2049/tcp", "2049/udp"}),
    "mountd": frozenset({"20048/tcp", "20048/udp"}),
    "rpc-bind": frozenset({"111/tcp", "111/udp"}),
}
NFS_PORT, MOUNTD_PORT, RPCBIND_PORT = "2049/tcp", "20048/tcp", "111/tcp"


@dataclass(frozen=True)
class FirewallFacts:
    """A firewall that is on. `open_ports` ("2049/tcp", ...) is None when this login may not read its rules."""

    name: str  # "firewalld" or "ufw"
    zone: str | None  # firewalld's zone for the interface toward the peer (else its default zone); None for ufw
    accepts_all: bool  # the zone's target is ACCEPT, or ufw's default input policy is ACCEPT
    open_ports: frozenset[str] | None

    def lets_in(self, port: str) -> bool | None:
        """Whether `port` ("2049/tcp") gets through; None when the rules were not readable."""
        if self.accepts_all:
            return True
        return None if self.open_ports is None else port in self.open_ports


def _port_set(words: list[str]) -> set[str]:
    """firewalld `ports:` words: "2049/tcp", "20000-20100/tcp" (a range is expanded only around the NFS ports)."""
    found = set()
    for word in words:
        match = re.fullmatch(r"([0-9]{1,5})(?:-([0-9]{1,5}))?/([a-z]+)", word)
        if not match:
            continue
        low, high, proto = int(match[1]), int(match[2] or match[1]), match[3]
        found |= {f"{port}/{proto}" for port in (111, 2049, 20048) if low <= port <= high}
        found.add(word)
    return found


def parse_firewalld(text: str) -> FirewallFacts | None:
    """The probe's firewalld section: `state running`, `zone public`, then the zone's `--list-all` (root only).
    None when firewalld is not running (or not there)."""
    lines = text.splitlines()
    if "state running" not in (line.strip() for line in lines):
        return None
    zone = next((line[5:].strip() for line in lines if line.startswith("zone ") and line[5:].strip()), None)
    fields: dict[str, str] = {}
    for line in lines:
        if line.startswith("  ") and ":" in line:  # `firewall-cmd --list-all` indents each setting by two spaces
            key, _, value = line.strip().partition(":")
            fields.setdefault(key.strip(), value.strip())
    if "target" not in fields:
        return FirewallFacts("firewalld", zone, False, None)
    ports = _port_set(fields.get("ports", "").split())
    for service in fields.get("services", "").split():
        ports |= FIREWALLD_SERVICES.get(service, frozenset())
    return FirewallFacts("firewalld", zone, fields["target"].upper() == "ACCEPT", frozenset(ports))


def _assignments(text: str) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.lstrip().startswith("#"))
    return {key.strip(): value.strip().strip("\"'") for key, value in pairs}


def parse_ufw_rules(text: str) -> frozenset[str]:
    """The ports /etc/ufw/user.rules accepts: its `-A ufw-user-input ... -j ACCEPT` lines (what `ufw allow` writes,
    `--dport 2049`, `-m multiport --dports 111,2049,20048:20050`). A rule for any port (`ufw allow from X`) opens
    the three NFS ports; a rule's source address is not weighed (it is taken as letting the client in)."""
    found: set[str] = set()
    for line in text.splitlines():
        words = line.split()
        if words[:2] != ["-A", "ufw-user-input"] or words[-2:] != ["-j", "ACCEPT"]:
            continue
        protos = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "-p"] or ["tcp", "udp"]
        specs = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--dport", "--dports")]
        ranges = []
        for spec in ",".join(specs).split(",") if specs else ["1:65535"]:
            first, _, last = spec.partition(":")
            if first.isdigit() and (not last or last.isdigit()):
                ranges.append((int(first), int(last or first)))
        for proto in protos:
            for low, high in ranges:
                found |= {f"{port}/{proto}" for port in (111, 2049, 20048) if low <= port <= high}
    return frozenset(found)


def parse_ufw(conf: str, defaults: str, rules: str | None) -> FirewallFacts | None:
    """ufw from /etc/ufw/ufw.conf, /etc/default/ufw and /etc/ufw/user.rules (None: unreadable). None when ufw
    is not enabled (or not there)."""
    if _assignments(conf).get("ENABLED", "").lower() != "yes":
        return None
    accepts_all = _assignments(defaults).get("DEFAULT_INPUT_POLICY", "DROP").upper() == "ACCEPT"
    return FirewallFacts("ufw", None, accepts_all, None if rules is None else parse_ufw_rules(rules))
