"""Per-second rates on both hosts: one remote awk printing raw /proc snapshots, parsed here; psutil locally.

A snapshot, as `sampler_command` prints it:

    NFSTUNE_SAMPLE 1795317611.242228         <- epoch seconds, taken before the files are read
    @/proc/diskstats
    <the whole file>
    @/proc/net/dev
    <the whole file>
    @/proc/stat
    cpu  6791 0 7045 222665 490 0 428 0 0 0  <- its first line only
    @/proc/self/mountstats                   <- client only: the block(s) of our mount point
    device nas:/export mounted on /mnt/x with fstype nfs4 statvers=1.1
    ...
    NFSTUNE_SAMPLE_END

Rates come from two consecutive snapshots. A counter that went down (device re-plugged, NIC re-created, a
remount) gives no rate for that interval, never a negative one.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

from nfstune.nfs.counters import is_number
from nfstune.nfs.mounts import escape_field
from nfstune.nfs.mountstats import parse_mountstats
from nfstune.shell_text import sh_line

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's own sector size
START = "NFSTUNE_SAMPLE"
END = "NFSTUNE_SAMPLE_END"
# not disks holding an export: loop devices (snaps, images), RAM disks, compressed swap, optical and floppy
NOT_DISKS = re.compile(r"^(loop|ram|zram|sr|fd)\d")

# One awk prints every file: on the lab's emulated CPUs each process costs ~0.2 s, and a cat or head per file
# kept the idle VM ~20 % busy (one awk: ~11 %, sshd included).
# Of /proc/stat it prints the first line; of mountstats the block of each mount whose "mounted on" field is our
# mount point, escaped as the kernel escapes it. The mount point comes through the environment: awk -v would
# decode the backslash escapes in it.
SNAPSHOT_AWK = """\
FNR == 1 { print "@" FILENAME; keep = 0 }
FILENAME == "/proc/stat" { if (FNR == 1) print; next }
FILENAME == "/proc/self/mountstats" {
  if (/^(no )?device /) {
    keep = 0
    for (i = 1; i < NF; i++)
      if ($i == "mounted" && $(i + 1) == "on") { keep = ($(i + 2) == ENVIRON["NFSTUNE_MP"]); break }
  }
  if (keep) print
  next
}
{ print }
"""
FILES = ("/proc/diskstats", "/proc/net/dev", "/proc/stat")
MOUNTSTATS = "/proc/self/mountstats"


# The same snapshot from one long-lived awk, ticked by vmstat's line every second: no process is started per
# snapshot. The old loop (a sleep, a date and an awk a second) kept an idle lab VM 11 % busy; this form 0.5 %
# (tools/bench/sampler_cpu.py). The time is /proc/uptime plus the boot's epoch, worked out once at the start.
TICKING_AWK = """\
BEGIN { mp = ENVIRON["NFSTUNE_MP"]; epoch = ENVIRON["NFSTUNE_EPOCH"] + 0 }
$1 !~ /^[0-9]+$/ { next }
{
  getline up < "/proc/uptime"; close("/proc/uptime"); split(up, u, " ")
  printf "%s %.6f\\n", "@START@", epoch + u[1]
  dump("/proc/diskstats"); dump("/proc/net/dev")
  print "@/proc/stat"; getline line < "/proc/stat"; print line; close("/proc/stat")
  if (mp != "") mountstats()
  print "@END@"
  fflush()
}
function dump(file,   line) {
  print "@" file
  while ((getline line < file) > 0) print line
  close(file)
}
function mountstats(   line, keep, n, f, i) {
  print "@/proc/self/mountstats"
  keep = 0
  while ((getline line < "/proc/self/mountstats") > 0) {
    if (line ~ /^(no )?device /) {
      keep = 0
      n = split(line, f, " ")
      for (i = 1; i < n; i++)
        if (f[i] == "mounted" && f[i + 1] == "on") { keep = (f[i + 2] == mp); break }
    }
    if (keep) print line
  }
  close("/proc/self/mountstats")
}
""".replace("@START@", START).replace("@END@", END)


def sampler_command(mount_point: str | None, interval_s: float = 1.0, *, ticking: bool = True) -> str:
    """A shell command line printing one snapshot every `interval_s` until killed. Give the client's mount
    point to include its mountstats; None on the server.

    A whole-second interval is ticked by vmstat where the host has it (procps, on every Debian); otherwise, and
    for other intervals, a shell loop starts a snapshot every `interval_s` (or as soon as the previous one is
    done, if it took longer). `ticking` False gives the loop alone (its benchmark compares the two)."""
    if not interval_s > 0:
        raise ValueError(f"interval_s must be positive, not {interval_s}")
    files = list(FILES)
    prefix = ""
    if mount_point is not None:
        mount_point = mount_point.rstrip("/") or "/"  # the kernel prints no trailing slash
        prefix = sh_line("NFSTUNE_MP={mp}; export NFSTUNE_MP; ", mp=escape_field(mount_point))
        files.append(MOUNTSTATS)
    loop = sh_line(
        'while :; do sleep {interval} & echo "' + START + ' $(date +%s.%N)"; awk {awk} {files}; echo {end}; wait; done',
        interval=f"{interval_s:g}",
        awk=SNAPSHOT_AWK,
        files=files,
        end=END,
    )
    if not ticking or interval_s != int(interval_s):
        return prefix + loop
    # mawk reads a pipe a block at a time unless told to read it a line at a time
    ticked = sh_line(
        'A=awk; case "$(awk -W version 2>&1)" in mawk*) A="awk -W interactive";; esac; '
        'NFSTUNE_EPOCH=$(awk -v now="$(date +%s.%N)" \'{{printf "%.6f", now - $1}}\' /proc/uptime); '
        "export NFSTUNE_EPOCH; vmstat -n {interval} | $A {awk}",
        interval=int(interval_s),
        awk=TICKING_AWK,
    )
    return prefix + "if command -v vmstat >/dev/null 2>&1; then " + ticked + "; else " + loop + "; fi"


@dataclass(frozen=True)
class Snapshot:
    """Cumulative counters at one moment."""

    time: float  # epoch seconds
    disks: Mapping[str, tuple[int, int]]  # device -> (read bytes, written bytes)
    nics: Mapping[str, tuple[int, int]]  # interface -> (received bytes, sent bytes)
    cpu: tuple[float, float] | None  # (busy, total) in any one unit
    nfs: tuple[int, int] | None  # our mount's bytes read from / written to the server
    nfs_ops: int | None = None  # our mount's RPC requests issued, every operation counted


@dataclass(frozen=True)
class Sample:
    """Rates over one interval, in bytes per second."""

    time: float  # epoch seconds at the end of the interval
    interval_s: float
    cpu_busy_percent: float | None
    nfs_read_bytes_per_s: float | None  # None: no mount given, or its counters went back
    nfs_write_bytes_per_s: float | None
    disk_read_bytes_per_s: Mapping[str, float]
    disk_write_bytes_per_s: Mapping[str, float]
    net_rx_bytes_per_s: Mapping[str, float]
    net_tx_bytes_per_s: Mapping[str, float]
    # requests a second: what small files and sync writes move, where bytes a second say little
    nfs_ops_per_s: float | None = None


def pick_disks(names: Collection[str], wanted: Collection[str] | None = None) -> set[str]:
    """The devices to report: `wanted` if given, else every disk but loop/ram/zram/optical, and a partition
    only when its whole disk is missing (so that sda and sda1 do not count the same bytes twice). Stacked
    devices (dm-*, md*) stay: pass `wanted` to choose between a dm device and the disk under it."""
    if wanted is not None:
        return set(names) & set(wanted)
    present = set(names)
    return {name for name in present if not NOT_DISKS.match(name) and _whole_disk(name) not in present}


def _whole_disk(name: str) -> str | None:
    if match := re.fullmatch(r"(.*\d)p\d+", name):  # nvme0n1p2, mmcblk0p1
        return match[1]
    if match := re.fullmatch(r"(.*\D)\d+", name):  # sda1, vdb2 (dm-0 -> "dm-", md0 -> "md": never present)
        return match[1]
    return None


def _rates(
    before: Mapping[str, tuple[int, int]], after: Mapping[str, tuple[int, int]], seconds: float
) -> tuple[dict[str, float], dict[str, float]]:
    first: dict[str, float] = {}
    second: dict[str, float] = {}
    for name, (a1, b1) in after.items():
        if name in before:
            a0, b0 = before[name]
            if a1 >= a0 and b1 >= b0:
                first[name], second[name] = (a1 - a0) / seconds, (b1 - b0) / seconds
    return first, second


def sample_between(before: Snapshot, after: Snapshot, interval_s: float | None = None) -> Sample | None:
    """Rates from `before` to `after`; None if no time passed between them (by their clocks)."""
    seconds = after.time - before.time if interval_s is None else interval_s
    if seconds <= 0:
        return None
    disk_read, disk_write = _rates(before.disks, after.disks, seconds)
    net_rx, net_tx = _rates(before.nics, after.nics, seconds)
    cpu = None
    if before.cpu is not None and after.cpu is not None:
        busy, total = after.cpu[0] - before.cpu[0], after.cpu[1] - before.cpu[1]
        if total > 0 and busy >= 0:
            cpu = min(100.0, 100 * busy / total)
    nfs_read = nfs_write = None
    if before.nfs is not None and after.nfs is not None:
        nfs = _rates({"": before.nfs}, {"": after.nfs}, seconds)
        nfs_read, nfs_write = nfs[0].get(""), nfs[1].get("")
    ops = None
    if before.nfs_ops is not None and after.nfs_ops is not None and after.nfs_ops >= before.nfs_ops:
        ops = (after.nfs_ops - before.nfs_ops) / seconds
    return Sample(after.time, seconds, cpu, nfs_read, nfs_write, disk_read, disk_write, net_rx, net_tx, ops)


def parse_snapshot(time_s: float, sections: Mapping[str, list[str]], disks: Collection[str] | None) -> Snapshot:
    disk_counters: dict[str, tuple[int, int]] = {}
    for line in sections.get("/proc/diskstats", []):
        fields = line.split()
        # major minor name reads merged sectors_read ms writes merged sectors_written ...
        if len(fields) >= 10 and is_number(fields[5]) and is_number(fields[9]):
            disk_counters[fields[2]] = (int(fields[5]) * SECTOR_BYTES, int(fields[9]) * SECTOR_BYTES)
    chosen = pick_disks(disk_counters, disks)
    nics: dict[str, tuple[int, int]] = {}
    for line in sections.get("/proc/net/dev", []):
        name, colon, counters = line.partition(":")  # "eth0:123 ..." has no space on old kernels
        fields = counters.split()
        if colon and len(fields) >= 9 and is_number(fields[0]) and is_number(fields[8]) and name.strip() != "lo":
            nics[name.strip()] = (int(fields[0]), int(fields[8]))
    return Snapshot(
        time_s,
        {name: disk_counters[name] for name in sorted(chosen)},
        nics,
        _cpu(sections.get("/proc/stat", [])),
        _nfs_bytes(sections.get(MOUNTSTATS)),
        _nfs_ops(sections.get(MOUNTSTATS)),
    )


def _cpu(lines: list[str]) -> tuple[float, float] | None:
    fields = lines[0].split() if lines else []
    if len(fields) < 9 or fields[0] != "cpu" or not all(is_number(f) for f in fields[1:9]):
        return None
    user, nice, system, idle, iowait, irq, softirq, steal = (int(f) for f in fields[1:9])
    # guest and guest_nice (fields 9, 10) are already counted in user and nice: left out of both sums
    busy = user + nice + system + irq + softirq + steal
    return float(busy), float(busy + idle + iowait)


def _nfs_bytes(lines: list[str] | None) -> tuple[int, int] | None:
    if lines is None:
        return None
    mounts = [m.nfs for m in parse_mountstats("\n".join(lines)) if m.nfs is not None]
    if not mounts:
        return None  # not mounted (any more)
    # with several mounts stacked on the mount point, the last one is on top: the one our path reaches.
    # server_*: payload of READ/WRITE replies (fs/nfs/read.c, write.c), i.e. what crossed the network.
    counters = mounts[-1].bytes
    read, written = counters.get("server_read_bytes"), counters.get("server_write_bytes")
    return None if read is None or written is None else (read, written)


def _nfs_ops(lines: list[str] | None) -> int | None:
    """Every RPC request our mount issued so far (the per-op counts summed), None when there are none to read."""
    if lines is None:
        return None
    mounts = [m.nfs for m in parse_mountstats("\n".join(lines)) if m.nfs is not None]
    if not mounts or mounts[-1].rpc is None or not mounts[-1].rpc.ops:
        return None
    return sum(op.ops for op in mounts[-1].rpc.ops)


class SampleParser:
    """feed() the sampler's stdout in chunks cut anywhere; each complete snapshot after the first gives a
    Sample. Text before the first snapshot and a snapshot cut short (the command was killed) are ignored."""

    def __init__(self, disks: Collection[str] | None = None) -> None:
        self.disks = disks
        self._partial = ""
        self._time: float | None = None  # of the snapshot being read; None between snapshots
        self._sections: dict[str, list[str]] = {}
        self._section: list[str] | None = None
        self._previous: Snapshot | None = None

    def feed(self, chunk: str) -> list[Sample]:
        lines = (self._partial + chunk).split("\n")
        self._partial = lines.pop()
        samples: list[Sample] = []
        for line in lines:
            if (sample := self._line(line.rstrip("\r"))) is not None:
                samples.append(sample)
        return samples

    def _line(self, line: str) -> Sample | None:
        if line.startswith(START + " "):
            try:
                self._time = float(line.split()[1])
            except (IndexError, ValueError):
                self._time = None
            if self._time is not None and not math.isfinite(self._time):
                self._time = None  # "inf" or "nan" is no clock: the snapshot is skipped
            self._sections, self._section = {}, None
        elif self._time is None:
            pass
        elif line == END:
            snapshot = parse_snapshot(self._time, self._sections, self.disks)
            self._time = None
            sample = None if self._previous is None else sample_between(self._previous, snapshot)
            self._previous = snapshot
            return sample
        elif line.startswith("@"):
            self._section = self._sections.setdefault(line[1:], [])
        elif self._section is not None:
            self._section.append(line)
        return None


class LocalSampler:
    """The machine nfstune runs on, through psutil: each sample() gives the rates since the previous call (the
    first since construction)."""

    def __init__(self, disks: Collection[str] | None = None, mount_point: str | None = None) -> None:
        """`mount_point`: an NFS mount of this machine whose bytes to and from the server to report (from
        /proc/self/mountstats, which psutil does not read)."""
        self.disks = disks
        self.mount_point = None if mount_point is None else (mount_point.rstrip("/") or "/")
        self._previous, self._previous_clock = self._snapshot(), time.monotonic()

    def sample(self) -> Sample:
        snapshot, clock = self._snapshot(), time.monotonic()
        # the monotonic clock, so that a wall-clock step cannot make an interval zero or negative
        sample = sample_between(self._previous, snapshot, max(clock - self._previous_clock, 1e-9))
        assert sample is not None  # an explicit positive interval always gives one
        self._previous, self._previous_clock = snapshot, clock
        return sample

    def _snapshot(self) -> Snapshot:
        disks = psutil.disk_io_counters(perdisk=True) or {}
        chosen = pick_disks(disks, self.disks)
        nics = psutil.net_io_counters(pernic=True) or {}
        cpu = psutil.cpu_times()
        busy = sum(getattr(cpu, name, 0.0) for name in ("user", "nice", "system", "irq", "softirq", "steal"))
        total = busy + cpu.idle + getattr(cpu, "iowait", 0.0)
        return Snapshot(
            time.time(),
            {name: (disks[name].read_bytes, disks[name].write_bytes) for name in sorted(chosen)},
            {name: (nic.bytes_recv, nic.bytes_sent) for name, nic in nics.items() if name != "lo"},
            (busy, total),
            self._nfs(),
        )

    def _nfs(self) -> tuple[int, int] | None:
        if self.mount_point is None:
            return None
        try:
            text = Path(MOUNTSTATS).read_text()
        except OSError:
            return None
        mounts = [m.nfs for m in parse_mountstats(text) if m.mount_point == self.mount_point and m.nfs is not None]
        if not mounts:
            return None
        counters = mounts[-1].bytes  # the mount on top, as in _nfs_bytes
        read, written = counters.get("server_read_bytes"), counters.get("server_write_bytes")
        return None if read is None or written is None else (read, written)
