"""A real NFS round trip in the lab: the client mounts the NAS export, writes a file with fsync, caches are
dropped on both VMs, and the file is read back cold. Used by `nfstune demo` and by the lab tests."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from nfstune.bench.workloads import DROP_CACHES
from nfstune.lab.config import EXPORT_PATH, LabConfig
from nfstune.lab.image import Progress
from nfstune.lab.vms import host

MOUNT_POINT = "/mnt/nfstune-check"
SOURCE = "/root/nfstune-check.src"
FILE_NAME = "nfstune-check.bin"


@dataclass(frozen=True)
class RoundTrip:
    mount_options: str  # as negotiated, from the client's /proc/mounts
    size_bytes: int
    source_sha256: str  # of the data on the client's own disk
    server_sha256: str  # of the file on the NAS's disk, after the client's fsync
    read_back_sha256: str  # read over NFS after caches were dropped on both VMs
    write_seconds: float
    read_seconds: float


def _timed(command: str) -> str:
    return f"s=$(date +%s.%N); {command}; e=$(date +%s.%N); echo \"$e $s\" | awk '{{print $1 - $2}}'"


def nfs_roundtrip(cfg: LabConfig, progress: Progress, *, size_mib: int = 16, vers: str = "4.2") -> RoundTrip:
    remote_file = f"{MOUNT_POINT}/{FILE_NAME}"
    q = shlex.quote
    with host(cfg, "client") as client, host(cfg, "nas") as nas:
        progress(f"client: mount -t nfs -o vers={vers} nas:{EXPORT_PATH} {MOUNT_POINT}")
        client.run(f"mkdir -p {MOUNT_POINT} && mount -t nfs -o vers={q(vers)} nas:{EXPORT_PATH} {MOUNT_POINT}")
        try:
            options = client.run(f"awk '$2 == \"{MOUNT_POINT}\" {{print $4}}' /proc/mounts").stdout.strip()
            client.run(f"head -c {size_mib}M /dev/urandom > {SOURCE}")
            source_sha = client.run(f"sha256sum {SOURCE}").stdout.split()[0]
            progress(f"client: writing {size_mib} MiB with fsync")
            write_s = client.run(_timed(f"dd if={SOURCE} of={remote_file} bs=1M conv=fsync status=none"), timeout=600)
            progress("dropping caches on both VMs")
            client.run(DROP_CACHES)
            nas.run(DROP_CACHES)
            server_sha = nas.run(f"sha256sum {EXPORT_PATH}/{FILE_NAME}").stdout.split()[0]
            nas.run(DROP_CACHES)
            progress("client: reading it back cold")
            read = client.run(_timed(f"sha256sum {remote_file} > /tmp/nfstune-check.sum"), timeout=600)
            read_sha = client.run("cat /tmp/nfstune-check.sum").stdout.split()[0]
        finally:
            client.run(
                f"rm -f {remote_file} {SOURCE} /tmp/nfstune-check.sum; umount {MOUNT_POINT}; rmdir {MOUNT_POINT}",
                check=False,
            )
    return RoundTrip(
        options,
        size_mib * 2**20,
        source_sha,
        server_sha,
        read_sha,
        float(write_s.stdout.split()[-1]),
        float(read.stdout.split()[-1]),
    )
