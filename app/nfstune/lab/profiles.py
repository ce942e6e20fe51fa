"""The practice lab's disk and link profiles, and how to read back which one is in force on a VM."""

from __future__ import annotations

import re

# name -> what it means, for `lab --help` and status
DISK_PROFILES: dict[str, str] = {
    "hdd": "dm-delay under /export adds 8 ms to every write and flush, like a spinning disk (default)",
    "ssd": "no added latency",
}
DEFAULT_DISK = "hdd"

# name -> tc tbf rate on both VMs' lab link (None: unshaped)
LINK_PROFILES: dict[str, str | None] = {
    "none": None,
    "100mbit": "100mbit",
    "50mbit": "50mbit",
    "20mbit": "20mbit",
}
DEFAULT_LINK = "none"

# One command that prints what is in force on a VM, parsed by parse_probe().
PROBE_COMMAND = (
    "echo role=$(hostname); "
    "echo kernel=$(uname -r); "
    "echo mem_kib=$(awk '/^MemTotal/ {print $2}' /proc/meminfo); "
    "echo nfs_server=$(systemctl is-active nfs-server 2>/dev/null || true); "
    "echo nfsd_threads=$(cat /proc/fs/nfsd/threads 2>/dev/null); "
    "echo nfsd_max_block_size=$(cat /proc/fs/nfsd/max_block_size 2>/dev/null); "
    "echo nfsd_versions=$(cat /proc/fs/nfsd/versions 2>/dev/null); "
    "echo exports=$(exportfs -s 2>/dev/null | tr '\\n' ';'); "
    "echo delay=$(dmsetup table labslow 2>/dev/null | tr ' ' ,); "
    "echo tbf=$(tc qdisc show dev eth1 2>/dev/null | grep -o 'tbf.*rate [^ ]*' | awk '{print $NF}'); "
    "echo rdma=$(ls /sys/class/infiniband 2>/dev/null | tr '\\n' ' '); "
    "echo uptime=$(cut -d' ' -f1 /proc/uptime); "
    "echo load=$(cut -d' ' -f1 /proc/loadavg)"
)

_RATE_UNITS = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}


def rate_bits(rate: str) -> int:
    """'50mbit' / '50Mbit' -> 50_000_000 (tc prints rates with capitals)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG]?)bit", rate.strip())
    if not match:
        raise ValueError(f"not a tc rate: {rate!r}")
    return int(float(match.group(1)) * _RATE_UNITS[match.group(2).lower()])


def disk_profile_in_force(delay_table: str) -> str:
    """From `dmsetup table labslow` (spaces replaced by commas): 'hdd' when writes are delayed."""
    return "hdd" if ",delay," in f",{delay_table}," else "ssd"


def link_profile_in_force(tbf_rate: str) -> str:
    if not tbf_rate:
        return "none"
    bits = rate_bits(tbf_rate)
    for name, rate in LINK_PROFILES.items():
        if rate is not None and rate_bits(rate) == bits:
            return name
    return f"custom ({tbf_rate})"


def parse_probe(output: str) -> dict[str, str]:
    facts = dict(line.split("=", 1) for line in output.splitlines() if "=" in line)
    facts["disk"] = disk_profile_in_force(facts.get("delay", "")) if facts.get("role") == "nas" else "-"
    facts["link"] = link_profile_in_force(facts.get("tbf", ""))
    return facts
