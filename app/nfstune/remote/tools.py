"""Which package brings a missing command, so that the error can say how to install it."""

from __future__ import annotations

import re

# command -> (Debian/Ubuntu package, Fedora/RHEL/SUSE package)
PACKAGES: dict[str, tuple[str, str]] = {
    "fio": ("fio", "fio"),
    "iperf3": ("iperf3", "iperf3"),
    "exportfs": ("nfs-kernel-server", "nfs-utils"),
    "rpc.nfsd": ("nfs-kernel-server", "nfs-utils"),
    "showmount": ("nfs-common", "nfs-utils"),
    "nfsstat": ("nfs-common", "nfs-utils"),
    "mount.nfs": ("nfs-common", "nfs-utils"),
    "tc": ("iproute2", "iproute"),
    "ss": ("iproute2", "iproute"),
    "ip": ("iproute2", "iproute"),
    "dmsetup": ("dmsetup", "device-mapper"),
    "mkfs.ext4": ("e2fsprogs", "e2fsprogs"),
    "mkfs.xfs": ("xfsprogs", "xfsprogs"),
    "mkfs.btrfs": ("btrfs-progs", "btrfs-progs"),
    "lsblk": ("util-linux", "util-linux"),
    "findmnt": ("util-linux", "util-linux"),
    "setsid": ("util-linux", "util-linux"),
    "sudo": ("sudo", "sudo"),
}


def missing_command(stderr: str) -> str | None:
    """The command a shell could not find, from its message (`sh: 1: fio: not found`, `bash: fio: command not
    found`, `sh: fio: not found`, and `sh: 1: eval: fio: not found` from the wrapper of every remote command)."""
    match = re.search(
        r"(?:^|\n)[\w./-]*sh: (?:\d+: )?(?:line \d+: )?(?:eval: )?([^\s:]+): (?:command )?not found", stderr
    )
    return match.group(1) if match else None


def install_hint(tool: str, host_label: str) -> str:
    debian, rpm = PACKAGES.get(tool, (tool, tool))
    if debian == rpm:
        return f"install the package {debian} on {host_label}"
    return f"install {debian} (Debian, Ubuntu) or {rpm} (Fedora, RHEL, SUSE) on {host_label}"
