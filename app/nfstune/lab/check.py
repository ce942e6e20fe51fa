"""A real NFS round trip in the lab: the client mounts the NAS export, writes a file with fsync, caches are
dropped on both VMs, and the file is read back cold. Used by `nfstune demo` and by the lab tests."""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.bench.workloads import DROP_CACHES
from nfstune.lab.config import EXPORT_PATH, LabConfig
from nfstune.lab.image import Progress
from nfstune.lab.vms import host
from nfstune.shell_text import sh_line

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
    """`command`, then the seconds it took."""
    return "s=$(date +%s.%N); " + command + "; e=$(date +%s.%N); echo \"$e $s\" | awk '{print $1 - $2}'"


def nfs_roundtrip(cfg: LabConfig, progress: Progress, *, size_mib: int = 16, vers: str = "4.2") -> RoundTrip:
    remote_file = f"{MOUNT_POINT}/{FILE_NAME}"
    with host(cfg, "client") as client, host(cfg, "nas") as nas:
        progress(f"client: mount -t nfs -o vers={vers} nas:{EXPORT_PATH} {MOUNT_POINT}")
        mount = "mkdir -p {mp} && mount -t nfs -o {opts} {source} {mp}"
        client.run(sh_line(mount, mp=MOUNT_POINT, opts=f"vers={vers}", source=f"nas:{EXPORT_PATH}"))
        try:
            in_force = sh_line("awk -v mp={mp} '$2 == mp {{print $4}}' /proc/mounts", mp=MOUNT_POINT)
            options = client.run(in_force).stdout.strip()
            client.run(sh_line("head -c {size} /dev/urandom > {src}", size=f"{int(size_mib)}M", src=SOURCE))
            source_sha = client.run(["sha256sum", SOURCE]).stdout.split()[0]
            progress(f"client: writing {size_mib} MiB with fsync")
            dd = sh_line("dd if={src} of={dst} bs=1M conv=fsync status=none", src=SOURCE, dst=remote_file)
            write_s = client.run(_timed(dd), timeout=600)
            progress("dropping caches on both VMs")
            client.run(DROP_CACHES)
            nas.run(DROP_CACHES)
            server_sha = nas.run(["sha256sum", f"{EXPORT_PATH}/{FILE_NAME}"]).stdout.split()[0]
            nas.run(DROP_CACHES)
            progress("client: reading it back cold")
            read = client.run(_timed(sh_line("sha256sum {f} > /tmp/nfstune-check.sum", f=remote_file)), timeout=600)
            read_sha = client.run("cat /tmp/nfstune-check.sum").stdout.split()[0]
        finally:
            client.run(
                sh_line(
                    "rm -f {files}; umount {mp}; rmdir {mp}",
                    files=[remote_file, SOURCE, "/tmp/nfstune-check.sum"],
                    mp=MOUNT_POINT,
                ),
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
