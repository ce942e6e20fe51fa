"""The practice lab's VM images: a Debian rootfs (kernel NFS server, fio, iperf3) built with mmdebstrap from this
machine's own apt sources, one per release (bookworm, and trixie for `lab up --release trixie`), each cached by a
hash of everything that goes into it."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from nfstune import paths
from nfstune.errors import ConfigError, NfstuneError, ToolMissing
from nfstune.lab.config import DEFAULT_RELEASE, RELEASES
from nfstune.shell_text import sh_line

Progress = Callable[[str], None]

# Bump when the build steps below change in a way the hashed inputs do not show.
IMAGE_FORMAT = 3
PACKAGES = (
    "linux-image-cloud-amd64",  # has nfsd, nfs, sch_tbf, dm-delay
    "linux-image-amd64",  # `lab up --rdma` boots it: soft-RoCE (rdma_rxe) is not in the cloud kernel
    "systemd-sysv",
    "udev",
    "openssh-server",
    "nfs-kernel-server",
    "fio",
    "iperf3",
    "iproute2",
    "iputils-ping",
    "procps",
    "kmod",
    "e2fsprogs",
    "tar",
    "xz-utils",
    "less",
    "dmsetup",
    "psmisc",
    "xfsprogs",
    "btrfs-progs",  # the filesystems recipe's scratch filesystems
)
ROOTFS_SIZE = "3G"
# Units a lab VM has no use for (`systemd-analyze blame`: gettys, e2scrub, utmp, binfmt, debug mounts, timers, pNFS
# block layout, fuse): under software emulation one vCPU runs the whole boot. With the guest's modprobe.d and
# initramfs settings, the NAS was ready after 55 s instead of 66 s (measured here, two VMs booting together).
UNNEEDED_UNITS = (
    "getty-static.service",
    "getty@tty1.service",
    "serial-getty@ttyS0.service",
    "e2scrub_reap.service",
    "e2scrub_all.timer",
    "systemd-update-utmp.service",
    "systemd-update-utmp-runlevel.service",
    "systemd-binfmt.service",
    "proc-sys-fs-binfmt_misc.automount",
    "dev-hugepages.mount",
    "dev-mqueue.mount",
    "sys-kernel-debug.mount",
    "sys-kernel-tracing.mount",
    "systemd-journal-flush.service",
    "systemd-pstore.service",
    "apt-daily.timer",
    "apt-daily-upgrade.timer",
    "dpkg-db-backup.timer",
    "fstrim.timer",
    "systemd-tmpfiles-clean.timer",
    "nfs-blkmap.service",
    "modprobe@fuse.service",
    "sys-fs-fuse-connections.mount",
)

# The generic kernel's drivers for hardware a lab VM does not have (284 of its 407 MB on bookworm): fewer files make
# the root disk faster to write. `depmod` runs again afterwards.
GENERIC_KERNEL_UNUSED = (
    "sound",
    "drivers/gpu",
    "drivers/media",
    "drivers/net/wireless",
    "drivers/net/ethernet",
    "drivers/net/usb",
    "drivers/infiniband/hw",
    "drivers/usb",
    "drivers/staging",
    "drivers/comedi",
    "drivers/iio",
    "drivers/bluetooth",
    "drivers/scsi",
    "drivers/platform",
    "drivers/video",
    "drivers/hid",
    "drivers/input",
    "drivers/mmc",
    "drivers/hwmon",
    "drivers/isdn",
    "drivers/nfc",
    "drivers/thunderbolt",
    "drivers/mtd",
    "drivers/net/can",
    "drivers/net/wwan",
    "drivers/net/ieee802154",
    "drivers/leds",
    "drivers/i2c",
    "drivers/spi",
    "drivers/pinctrl",
    "net/wireless",
    "net/mac80211",
    "net/bluetooth",
    "arch/x86/kvm",
    "fs/ocfs2",
    "fs/smb",
    "fs/gfs2",
)

# command -> Debian package that provides it
HOST_TOOLS = {
    "mmdebstrap": "mmdebstrap",
    "mkfs.ext4": "e2fsprogs",
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
    "ssh-keygen": "openssh-client",
}


def which(tool: str) -> str | None:
    # mkfs.ext4 lives in /usr/sbin, which a normal user's PATH may lack
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    return shutil.which(tool, path=path)


def check_host_tools(tools: dict[str, str] = HOST_TOOLS) -> None:
    missing = {tool: pkg for tool, pkg in tools.items() if which(tool) is None}
    if missing:
        pkgs = " ".join(sorted(set(missing.values())))
        raise ToolMissing(", ".join(missing), "this computer", f"install it with: sudo apt-get install -y {pkgs}")


def guest_dir() -> Path:
    return paths.resources_dir() / "lab" / "guest"


# a Debian suite in a sources entry: the release's codename, alone or with its -updates, -security... suffix
_SUITE = re.compile(r"\b(?:" + "|".join(("bullseye", *RELEASES, "forky", "sid")) + r")(?=-[a-z-]+\b|\s|$)")


def apt_sources(etc_apt: Path = Path("/etc/apt"), release: str = DEFAULT_RELEASE) -> str:
    """This machine's Debian sources for `release`, deb822 blocks if it has them, else one-line `deb` entries: the
    same mirrors (this machine reaches them, and its keyring verifies them), the release's suites in place of
    this machine's own."""
    lines = []
    for line in _host_sources(etc_apt).splitlines(keepends=True):
        if line.startswith("Suites:"):
            line = _SUITE.sub(release, line)
        elif line.startswith("deb "):
            words = line.split()
            # deb [options] URI suite components: the options may span several words
            uri = next((i + 1 for i, w in enumerate(words) if w.endswith("]")), 1) if words[1].startswith("[") else 1
            if uri + 1 < len(words):
                words[uri + 1] = _SUITE.sub(release, words[uri + 1])
            line = " ".join(words) + "\n"
        lines.append(line)
    return "".join(lines)


def _host_sources(etc_apt: Path) -> str:
    blocks = []
    for f in sorted((etc_apt / "sources.list.d").glob("*.sources")):
        blocks += [b.strip() for b in f.read_text().split("\n\n") if "Types:" in b and "deb" in b]
    if blocks:
        return "\n\n".join(blocks) + "\n"
    lines = []
    for f in [etc_apt / "sources.list", *sorted((etc_apt / "sources.list.d").glob("*.list"))]:
        if f.exists():
            lines += [ln.strip() for ln in f.read_text().splitlines() if ln.strip().startswith("deb ")]
    if not lines:
        raise ConfigError(f"no Debian package sources found in {etc_apt}: the lab image is built from them")
    return "\n".join(lines) + "\n"


def input_hash(sources: str, guest: Path, release: str = DEFAULT_RELEASE) -> str:
    h = hashlib.sha256()
    h.update(f"format={IMAGE_FORMAT}\nsuite={release}\nsize={ROOTFS_SIZE}\n".encode())
    h.update(("packages=" + ",".join(PACKAGES) + "\n").encode())
    h.update(("masked=" + ",".join(UNNEEDED_UNITS) + "\n").encode())
    h.update(("pruned=" + ",".join(GENERIC_KERNEL_UNUSED) + "\n").encode())
    h.update(b"sources=" + sources.encode() + b"\n")
    for f in sorted(p for p in guest.rglob("*") if p.is_file()):
        rel = f.relative_to(guest).as_posix()
        h.update(f"file={rel} exec={os.access(f, os.X_OK)}\n".encode() + f.read_bytes() + b"\n")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class Image:
    directory: Path
    input_hash: str
    release: str = DEFAULT_RELEASE

    @property
    def disk(self) -> Path:
        return self.directory / "base.img"

    def boot_files(self, rdma: bool) -> tuple[Path, Path]:
        """The kernel and initrd qemu boots: Debian's generic kernel with soft-RoCE for `lab up --rdma`, else the
        cloud kernel, which boots faster."""
        if rdma:
            return self.directory / "vmlinuz-generic", self.directory / "initrd-generic.img"
        return self.directory / "vmlinuz", self.directory / "initrd.img"

    @property
    def manifest(self) -> Path:
        return self.directory / "manifest.json"

    def complete(self) -> bool:
        files = (self.disk, *self.boot_files(rdma=False), *self.boot_files(rdma=True), self.manifest)
        return all(p.is_file() for p in files)


def images_dir(cache_dir: Path) -> Path:
    return cache_dir / "images"


def current_image(cache_dir: Path, release: str = DEFAULT_RELEASE) -> Image:
    digest = input_hash(apt_sources(release=release), guest_dir(), release)
    return Image(images_dir(cache_dir) / digest, digest, release)


@contextmanager
def _build_lock(cache_dir: Path, release: str) -> Iterator[None]:
    """One build of a release at a time; two releases build side by side (`make lab-image` builds both)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / f"build-{release}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure_image(
    cache_dir: Path, progress: Progress, *, force: bool = False, release: str = DEFAULT_RELEASE
) -> tuple[Image, bool]:
    """The image of `release` for the current inputs, built if it is not cached. Returns (image, built_now)."""
    image = current_image(cache_dir, release)
    with _build_lock(cache_dir, release):
        if image.complete() and not force:
            progress(f"lab image {image.input_hash} is cached in {image.directory}")
            return image, False
        check_host_tools()
        if os.geteuid() != 0:
            raise NfstuneError("building the lab image needs root (mmdebstrap, chroot): run it with sudo")
        _build(image, progress)
        for old in images_dir(cache_dir).iterdir():
            # another release's image stays, and so does its build in progress (its lock is not ours)
            if old != image.directory and old.is_dir() and _release_of(old) in (release, None):
                shutil.rmtree(old, ignore_errors=True)
                progress(f"removed the outdated lab image {old.name}")
    return image, True


def _release_of(directory: Path) -> str | None:
    """The release of a cached image or of a build's folder (<hash>.<release>.tmp); None when it does not say."""
    if directory.name.endswith(".tmp"):
        parts = directory.name.split(".")
        return parts[1] if len(parts) == 3 else None
    try:
        release = json.loads((directory / "manifest.json").read_text()).get("suite")
    except (OSError, ValueError, AttributeError):
        return None
    return release if isinstance(release, str) else None


def _run_logged(argv: list[str], progress: Progress, stdin: str | None = None) -> None:
    progress("$ " + " ".join(argv[:3]) + (" ..." if len(argv) > 3 else ""))
    tail: list[str] = []
    with subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(stdin or "")
        proc.stdin.close()
        for line in proc.stdout:
            line = line.rstrip()
            tail = [*tail, line][-15:]
            if line.startswith(("I:", "E:", "W:")):
                progress(line)
    if proc.returncode != 0:
        raise NfstuneError(f"this computer: `{argv[0]}` failed with exit status {proc.returncode}:\n" + "\n".join(tail))


def _build(image: Image, progress: Progress) -> None:
    tmp = image.directory.with_name(f"{image.directory.name}.{image.release}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    rootfs = tmp / "rootfs"
    guest = guest_dir()
    t0 = time.monotonic()
    progress(f"building the lab image {image.input_hash} (Debian {image.release}, about a minute)")
    hooks = [
        # our guest files, owned by root whoever installed nfstune
        sh_line('tar -C {guest} --owner=0 --group=0 -cf - . | tar -C "$1" -xf -', guest=str(guest)),
        'chmod 0755 "$1/usr/local/sbin/lab-setup"',
        'chroot "$1" systemctl enable lab-setup.service',
        'chroot "$1" systemctl mask ' + " ".join(UNNEEDED_UNITS),
        'for v in $(ls "$1/lib/modules" | grep -v -- -cloud-); do (cd "$1/lib/modules/$v/kernel" && rm -rf '
        + " ".join(GENERIC_KERNEL_UNUSED)
        + ') && chroot "$1" depmod "$v"; done',
        # the guest's initramfs-tools settings (the virtio disk's modules only) apply to the kernel's initrd
        'chroot "$1" update-initramfs -u -k all',
        'chroot "$1" passwd -d root',
        # no hostname and no host keys in the image: each VM gets its own stable key at boot
        'rm -f "$1/etc/hostname" "$1"/etc/ssh/ssh_host_*',
        'chroot "$1" sh -c "rm -rf /usr/share/doc/* /usr/share/man/* /usr/share/locale/*; apt-get clean"',
    ]
    argv = ["mmdebstrap", "--variant=minbase", "--include=" + ",".join(PACKAGES)]
    argv += ['--aptopt=Acquire::Check-Valid-Until "false"']
    # the initramfs settings before the kernels are installed: each kernel's postinst then packs the small initrd
    # (MODULES=most took about 15 s a kernel), and the customize hook's update-initramfs adds the guest's modules
    conf_d = "etc/initramfs-tools/conf.d"
    copy = sh_line('mkdir -p "$1"/{d} && cp {conf} "$1"/{d}/', d=conf_d, conf=f"{guest}/{conf_d}/lab.conf")
    argv.append(f"--essential-hook={copy}")
    argv += [f"--customize-hook={hook}" for hook in hooks]
    argv += [image.release, str(rootfs), "-"]
    try:
        _run_logged(argv, progress, stdin=apt_sources(release=image.release))
        t1 = time.monotonic()
        boot = rootfs / "boot"
        for kernel in boot.glob("vmlinuz-*"):
            cloud = kernel.name.endswith("-cloud-amd64")
            initrd = boot / kernel.name.replace("vmlinuz-", "initrd.img-", 1)
            kernel_to, initrd_to = image.boot_files(rdma=not cloud)
            shutil.copyfile(kernel, tmp / kernel_to.name)
            shutil.copyfile(initrd, tmp / initrd_to.name)
        progress("writing the ext4 root disk")
        disk = tmp / "base.img"
        disk.touch()
        os.truncate(disk, _size_bytes(ROOTFS_SIZE))
        _run_logged([which("mkfs.ext4") or "mkfs.ext4", "-q", "-L", "labroot", "-d", str(rootfs), str(disk)], progress)
        shutil.rmtree(rootfs)
        t2 = time.monotonic()
        manifest = {
            "input_hash": image.input_hash,
            "format": IMAGE_FORMAT,
            "suite": image.release,
            "packages": list(PACKAGES),
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "seconds": {"mmdebstrap": round(t1 - t0, 1), "disk": round(t2 - t1, 1)},
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        shutil.rmtree(image.directory, ignore_errors=True)
        tmp.rename(image.directory)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    progress(f"lab image built in {t2 - t0:.0f} s (mmdebstrap {t1 - t0:.0f} s, disk {t2 - t1:.0f} s)")


def _size_bytes(size: str) -> int:
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    return int(size[:-1]) * units[size[-1]]
