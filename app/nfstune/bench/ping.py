"""ping (iputils): the network round trip between the client and the server, one of the two latency ceilings of
synchronous writes and metadata operations (the other is the server disk's own synchronous write).

Each reply line is read ("64 bytes from 10.99.0.1: icmp_seq=3 ttl=64 time=0.908 ms"), not only the summary
("rtt min/avg/max/mdev = ..."), so that the median is known: the first reply of a run often waits for ARP and
lifts the mean (lab: 4.07 ms first, 1.3 ms median). An ICMP echo is not an NFS RPC: it skips TCP, the RPC layer
and nfsd, so it is the network's share of an operation's time, not a null NFS call's.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from nfstune.errors import NfstuneError

PING_COUNT = 20
# 200 ms is the shortest interval every iputils ping lets a user who is not root ask for (newer ones allow 2 ms):
# the run lasts about 4 s
PING_INTERVAL_S = 0.2
PING_DEADLINE_S = 15  # -w: the whole run, whatever is lost on the way
# "time=0.908 ms", "time=12 ms"; busybox prints the same. "(DUP!)" replies are not round trips of their own.
REPLY = re.compile(r"\bicmp_seq=[0-9]{1,10}\b.*\btime[=<]([0-9]{1,9}(?:\.[0-9]{1,9})?) ms\b")
TRANSMITTED = re.compile(r"^([0-9]{1,10}) packets transmitted, ([0-9]{1,10}) (?:packets )?received")


def ping_argv(address: str, count: int = PING_COUNT) -> list[str]:
    """-n: no reverse look-up of each reply's address (a slow resolver would stretch the run, not the times)."""
    return ["ping", "-n", "-c", str(count), "-i", f"{PING_INTERVAL_S:g}", "-w", str(PING_DEADLINE_S), "--", address]


class PingOutputError(NfstuneError):
    pass


@dataclass(frozen=True)
class PingResult:
    times_ms: tuple[float, ...]  # each reply's round trip, in order
    transmitted: int | None  # from the summary, when ping printed one

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def mean_ms(self) -> float:
        return statistics.fmean(self.times_ms)


def parse_ping(output: str) -> PingResult:
    """The replies of one run; PingOutputError when there was none (ICMP blocked, a wrong address, no ping)."""
    times: list[float] = []
    transmitted = None
    for line in output.splitlines():
        if "DUP!" in line:
            continue
        if reply := REPLY.search(line):
            times.append(float(reply[1]))
        elif sent := TRANSMITTED.match(line.strip()):
            transmitted = int(sent[1])
    if not times:
        last = " ".join(line.strip() for line in output.strip().splitlines()[-2:])
        raise PingOutputError(f"no reply to ping ({last[-200:] or 'it printed nothing'})")
    return PingResult(tuple(times), transmitted)
