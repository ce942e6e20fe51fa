"""HostFacts from the probe script's output (pure: no SSH, so recorded output replays).

The script (nfstune.remote.probe) prints sections, each opened by a line `@@nfstune-probe@@ NAME`. A section is
empty when its file or tool is missing, so every fact here may be None; the parser never raises on any text.
"""

from __future__ import annotations

import re
import shlex

from nfstune.facts.appliance import detect_appliance
from nfstune.facts.firewall import FirewallFacts, parse_firewalld, parse_ufw
from nfstune.facts.model import BlockDevice, FilesystemFacts, HostFacts, RdmaDevice, RouteFacts
from nfstune.facts.selinux import parse_selinux

SECTION_MARK = "@@nfstune-probe@@"
UNREADABLE = "@@unreadable@@"  # printed for a file that exists but this login may not read
# section -> file that the script reads with `rd` (UNREADABLE when it is there but not for this login): these
# /proc/fs/nfsd files are mode 0600 on Linux 6.1, so without root the probe cannot see them
ROOT_ONLY_FILES = {
    "nfsd-threads": "/proc/fs/nfsd/threads",
    "nfsd-versions": "/proc/fs/nfsd/versions",
}


# --- parsing ----------------------------------------------------------------------------------------------------


def split_sections(text: str) -> dict[str, str]:
    """{name: body}; bodies lose the blank lines the markers add (a command's output may lack its newline)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(SECTION_MARK + " "):
            current = sections.setdefault(line[len(SECTION_MARK) + 1 :].strip(), [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(lines).strip("\n") for name, lines in sections.items()}


# an integer as the probe's tools print it; a longer run of digits is no fact (and int() may refuse it)
_INT = r"-?[0-9]{1,40}"


def _int(text: str | None) -> int | None:
    text = (text or "").strip()
    return int(text) if re.fullmatch(_INT, text) else None


def _first_line(text: str | None) -> str | None:
    lines = (text or "").strip().splitlines()
    return (lines[0].strip() or None) if lines else None


def parse_os_release(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if not sep or not re.fullmatch(r"[A-Z0-9_]+", key.strip()):
            continue
        try:
            words = shlex.split(raw)
            result[key.strip()] = " ".join(words)
        except ValueError:  # an unbalanced quote: keep what is there
            result[key.strip()] = raw.strip().strip("\"'")
    return result


def parse_nfsd_versions(text: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """'+3 +4 -4.0 +4.1' -> ({'3', '4', '4.1'}, {'4.0'}); None if the text is not a versions line."""
    tokens = text.split()
    if not tokens or not all(re.fullmatch(r"[+-]\d+(\.\d+)?", t) for t in tokens):
        return None
    return frozenset(t[1:] for t in tokens if t[0] == "+"), frozenset(t[1:] for t in tokens if t[0] == "-")


def parse_key_values(line: str) -> dict[str, str]:
    """findmnt -P / lsblk -P: KEY="value" pairs, with their \\xNN escapes undone."""
    pairs: dict[str, str] = {}
    for key, raw in re.findall(r'([A-Z0-9:_-]+)="((?:[^"\\]|\\.)*)"', line):
        data = re.sub(
            rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), raw.encode("utf-8", "surrogateescape")
        )
        pairs[key] = data.decode("utf-8", "replace")
    return pairs


def parse_df(text: str) -> tuple[str | None, str | None, int | None, int | None, str | None]:
    """`df -P [-T] -B1|-k PATH` -> (source, fstype, size_bytes, free_bytes, mountpoint)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2:
        return None, None, None, None, None
    header = [*lines[0].split(), "", ""]
    typed = header[1] == "Type"
    unit = re.fullmatch(r"([0-9]{1,40})-blocks", header[2] if typed else header[1])
    pattern = r"(?P<src>.+?)\s+" + (r"(?P<type>\S+)\s+" if typed else "")
    pattern += r"(?P<total>[0-9]{1,40})\s+\d+\s+(?P<avail>[0-9]{1,40})\s+(?:\d+%|-)\s+(?P<mnt>/.*)"
    match = re.fullmatch(pattern, lines[1].strip())
    if not match or not unit:
        return None, None, None, None, None
    scale = int(unit.group(1))
    fstype = match.group("type") if typed else None
    return match["src"], fstype, int(match["total"]) * scale, int(match["avail"]) * scale, match["mnt"]


def parse_route(text: str) -> tuple[str | None, str | None, str | None]:
    """`ip -o route get ADDR` -> (dev, src, via)."""
    tokens = text.split()
    found = {key: tokens[i + 1] for i, key in enumerate(tokens[:-1]) if key in ("dev", "src", "via")}
    return found.get("dev"), found.get("src"), found.get("via")


def _nfs_utils(sections: dict[str, str]) -> tuple[str | None, str | None]:
    rows = [line.split("\t") for line in sections.get("dpkg", "").splitlines()]
    installed = {row[0]: row[1] for row in rows if len(row) >= 3 and row[2].startswith("ii") and row[1]}
    for package in ("nfs-kernel-server", "nfs-common"):
        if package in installed:  # Debian "1:2.6.2-4+deb12u1": drop the epoch and the Debian revision
            upstream = installed[package].split(":", 1)[-1].rsplit("-", 1)[0]
            return upstream, f"dpkg {package} {installed[package]}"
    for line in sections.get("rpm", "").splitlines():
        name, sep, version = line.partition("\t")
        if sep and version.strip():
            return version.strip(), f"rpm {name} {version.strip()}"
    match = re.search(r"nfs-utils\s+([0-9][\w.+~-]*)", sections.get("mount-nfs", ""))
    return (match.group(1), "mount.nfs -V") if match else (None, None)


def _route(sections: dict[str, str], peer: str) -> RouteFacts:
    dev, src, via = parse_route(sections.get("route", ""))
    speed = _int(sections.get("nic-speed"))
    driver = (sections.get("nic-driver") or "").strip().rsplit("/", 1)[-1] or None
    return RouteFacts(
        peer=peer,
        peer_address=_first_line(sections.get("peer-address")),
        interface=dev,
        source_address=src,
        gateway=via,
        speed_mbps=speed if speed is not None and speed > 0 else None,
        mtu=_int(sections.get("nic-mtu")),
        driver=driver if dev else None,
    )


def _filesystem(sections: dict[str, str], path: str) -> FilesystemFacts:
    mount = parse_key_values(_first_line(sections.get("findmnt")) or "")
    df_source, df_type, size, free, df_mountpoint = parse_df(sections.get("df", ""))
    source = mount.get("SOURCE") or df_source
    options = mount.get("OPTIONS")
    devices = []
    for line in sections.get("lsblk", "").splitlines():
        row = parse_key_values(line)
        if "NAME" in row and "TYPE" in row:
            rota = {"1": True, "0": False}.get(row.get("ROTA", "").strip())
            devices.append(BlockDevice(row["NAME"], row["TYPE"], rota, row.get("MODEL", "").strip() or None))
    return FilesystemFacts(
        path=path,
        source=re.sub(r"\[.*\]$", "", source) if source else None,  # a bind mount shows /dev/vdb[/sub]
        fstype=mount.get("FSTYPE") or df_type,
        mountpoint=mount.get("TARGET") or df_mountpoint,
        options=tuple(options.split(",")) if options else None,
        size_bytes=size,
        free_bytes=free,
        devices=tuple(devices),
    )


def _listeners(text: str) -> frozenset[str] | None:
    """nfsd's listeners, one "netid port" a line; none before nfsd has started (or when unreadable)."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    found = frozenset(line for line in lines if re.fullmatch(r"[a-z0-9]+ \d+", line))
    return found or None


def _rdma_devices(text: str) -> tuple[RdmaDevice, ...]:
    """`<name> <hardware|software> <state>` a line (the probe reads /sys/class/infiniband)."""
    devices = []
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] in ("hardware", "software"):
            state = words[2].split(":")[-1] if len(words) > 2 else None  # the kernel writes "4: ACTIVE"
            devices.append(RdmaDevice(words[0], words[1] == "software", state or None))
    return tuple(devices)


def _firewall(sections: dict[str, str]) -> FirewallFacts | None:
    """firewalld when it runs, else ufw when it is enabled (ufw's rules are root's: unreadable is None)."""
    rules = sections.get("ufw-rules", "")
    ufw = parse_ufw(
        sections.get("ufw-conf", ""), sections.get("ufw-default", ""), None if rules.strip() == UNREADABLE else rules
    )
    return parse_firewalld(sections.get("firewalld", "")) or ufw


def parse_probe_output(text: str) -> HostFacts:
    """The facts in the probe script's stdout; whatever is missing or unreadable is None (never raises)."""
    sections = split_sections(text)
    unreadable = tuple(path for name, path in ROOT_ONLY_FILES.items() if sections.get(name, "").strip() == UNREADABLE)
    for name in ROOT_ONLY_FILES:
        if sections.get(name, "").strip() == UNREADABLE:
            sections[name] = ""
    os_release = parse_os_release(sections.get("os-release", ""))
    mem = re.search(r"MemTotal:\s*([0-9]{1,40})\s*kB", sections.get("memtotal", ""))
    threads = _int(sections.get("nfsd-threads"))
    th_line = re.match(r"th\s+([0-9]{1,40})\b", sections.get("nfsd-th", ""))
    if threads is None and th_line:  # /proc/fs/nfsd/threads is root-only; /proc/net/rpc/nfsd is for everyone
        threads = int(th_line.group(1))
    block_size = _int(sections.get("nfsd-max-block-size"))
    versions = parse_nfsd_versions(sections.get("nfsd-versions", ""))
    fio = re.search(r"fio-(\S+)", sections.get("fio", ""))
    iperf3 = re.search(r"iperf\s+(\d\S*)", sections.get("iperf3", ""))
    peer, path = _first_line(sections.get("peer")), _first_line(sections.get("path"))
    appliance, evidence = detect_appliance(sections.get("markers", ""))
    version, version_source = _nfs_utils(sections)
    return HostFacts(
        complete="end" in sections,
        hostname=_first_line(sections.get("hostname")),
        os_id=os_release.get("ID"),
        os_version_id=os_release.get("VERSION_ID"),
        os_pretty_name=os_release.get("PRETTY_NAME"),
        kernel=_first_line(sections.get("kernel")),
        architecture=_first_line(sections.get("arch")),
        uid=_int(sections.get("uid")),
        cpu_count=_int(sections.get("cpus")),
        mem_total_bytes=int(mem.group(1)) * 1024 if mem else None,
        nfs_utils_version=version,
        nfs_utils_source=version_source,
        nfs_server_state=_first_line(sections.get("nfs-server")),
        nfsd_threads=threads,
        # nfsd reports 0 until it has started: that is no block size
        nfsd_max_block_size=block_size if block_size else None,
        nfsd_versions_enabled=versions[0] if versions else None,
        nfsd_versions_disabled=versions[1] if versions else None,
        nfsd_listeners=_listeners(sections.get("nfsd-portlist", "")),
        rdma_devices=_rdma_devices(sections.get("rdma", "")),
        route=_route(sections, peer) if peer else None,
        filesystem=_filesystem(sections, path) if path else None,
        fio_version=fio.group(1) if fio else None,
        iperf3_version=iperf3.group(1) if iperf3 else None,
        tools=frozenset(line.split()[0] for line in sections.get("tools", "").splitlines() if line.strip()),
        appliance=appliance,
        appliance_evidence=evidence,
        unreadable=unreadable,
        firewall=_firewall(sections),
        selinux=parse_selinux(
            sections.get("selinux", ""), sections.get("selinux-booleans", ""), sections.get("selinux-label", "")
        ),
    )
