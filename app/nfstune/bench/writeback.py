"""Before every timed run, the hosts' writeback idle: one visit's dirty data must not be written to disk during the
next visit's run (issue 40). Each host flushes what nfstune wrote there (`sync -f` of the NFS mount on a client,
of the export's path on the server: a syncfs of that filesystem alone), then waits until Dirty + Writeback in
/proc/meminfo is below a small threshold, with a limit. One remote command per host polls (a shell loop of
builtins, not an SSH round trip per poll), and the hosts are waited for at the same time. What each host had, what
was left and how long it took is returned for the store; a host still writing back at the limit is said, and the
run starts anyway.

Why 8 MiB: the hosts never sit at zero (logs, a journal, the desktop of a client keep a trickle of dirty pages:
the lab's NAS and client showed 0-0.3 MiB between runs), and what is left under 8 MiB is written back in a fraction
of a second even on the lab's hdd profile (the 80 MiB a 96 MiB seq-write left on its async export took 0.3 s),
against the runs' 5-60 s; a sequential run's data, tens to hundreds of MiB, is never let through.
Why 30 s: the kernel writes back any page dirty for 30 s (vm.dirty_expire_centisecs); a host that is still above
the threshold 30 s after a syncfs is being written to by someone else (another client of the NAS, a backup), and
waiting longer would not make it idle."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nfstune.errors import Cancelled, NfstuneError
from nfstune.remote import CommandFailed, Host, RemoteProcess
from nfstune.shell_text import sh_line

MIB_KIB = 1024
THRESHOLD_KIB = 8 * MIB_KIB
LIMIT_S = 30.0
POLL_S = 0.2
MEMINFO = "/proc/meminfo"
SAY_EVERY_S = 1.0  # a status line at most this often while a host is waited for
ERR_MARK = "\0"  # a line of stderr, as the reader passes it on (no line of the loop's stdout holds a NUL)

# The loop, in POSIX sh: /proc/meminfo and /proc/uptime read with `read` (no process started per poll; each exec
# costs ~75 ms on the emulated lab). The flush runs in the background so that the limit also bounds it (a
# syncfs of hundreds of MiB on a slow disk); it is done when its process is gone or a zombie. Lines printed:
# "found DIRTY WRITEBACK" (kB, before the flush), then each poll "at CENTISECONDS DIRTY WRITEBACK FLUSHED", then
# "idle" or "limit".
IDLE_SCRIPT = """m={meminfo}
mem() {{ d=0; w=0; while read -r k v _; do case $k in Dirty:) d=$v;; Writeback:) w=$v;; esac; done < "$m"; }}
now() {{ read -r t _ < /proc/uptime; t=${{t%.*}}${{t#*.}}; }}
now; t0=$t; mem; echo "found $d $w"
{{ sync -f {path} || sync; }} >/dev/null 2>&1 &
s=$!
while :; do
  mem; now; e=$((t - t0)); f=1
  read -r _ _ st _ 2>/dev/null < /proc/$s/stat && [ "$st" != Z ] && f=0
  echo "at $e $d $w $f"
  if [ $f = 1 ] && [ $((d + w)) -lt {threshold} ]; then echo idle; exit 0; fi
  if [ $e -ge {limit} ]; then echo limit; exit 0; fi
  sleep {poll}
done"""


def idle_argv(
    path: str, *, threshold_kib: int = THRESHOLD_KIB, limit_s: float = LIMIT_S, meminfo: str = MEMINFO
) -> tuple[str, ...]:
    """The one command a host runs: flush the filesystem of `path`, then poll until idle or the limit.
    `meminfo`: where the kernel's counters are read (a test gives a file of its own)."""
    script = sh_line(
        IDLE_SCRIPT,
        meminfo=meminfo,
        path=path,
        threshold=int(threshold_kib),
        limit=round(limit_s * 100),
        poll=str(POLL_S),
    )
    return ("sh", "-c", script)


@dataclass(frozen=True)
class Flush:
    """One host to flush and wait for."""

    role: str  # "server", "client", "client2", ...
    host: Host
    path: str  # what its syncfs flushes: the NFS mount on a client, the export's path on the server
    sudo: bool


@dataclass(frozen=True)
class WritebackWait:
    """What one host had to write back before a timed run, and how the wait ended."""

    host: str  # its role: server | client | client2 ...
    found_kib: int  # Dirty + Writeback before nfstune flushed
    left_kib: int  # at the end of the wait
    seconds: float  # the flush and the wait
    limit_s: float
    limit_hit: bool

    def record(self) -> dict[str, object]:
        """As the store keeps it (store.results.WRITEBACK_FIELDS)."""
        return {
            "host": self.host,
            "found_kib": self.found_kib,
            "left_kib": self.left_kib,
            "seconds": self.seconds,
            "limit_s": self.limit_s,
            "limit_hit": self.limit_hit,
        }

    def sentence(self) -> str | None:
        """What a run that started at the limit must say; None when the host was idle in time."""
        return late_sentence(self.host, self.left_kib, self.limit_s) if self.limit_hit else None


def late_sentence(host: str, left_kib: int, limit_s: float) -> str:
    """ "the server was still writing back 420 MiB after 30 s": a run that started at the limit."""
    return f"{host_words(host)} was still writing back {mib_text(left_kib)} after {limit_s:.0f} s"


def host_words(role: str) -> str:
    """ "the server", "the client"; a further client by its name ("client2")."""
    return f"the {role}" if role in ("server", "client") else role


def mib_text(kib: int) -> str:
    mib = kib / 1024
    return f"{mib:.0f} MiB" if mib >= 10 else f"{mib:.1f} MiB"


class _Reading:
    """One host's loop as its lines come."""

    def __init__(self, role: str, limit_s: float) -> None:
        self.role, self.limit_s = role, limit_s
        self.found_kib: int | None = None
        self.now_kib = 0
        self.centis = 0
        self.outcome: str | None = None  # idle | limit
        self.said: list[str] = []  # its stderr

    def take(self, line: str) -> None:
        words = line.split()
        if words[:1] == ["found"] and len(words) == 3:
            self.found_kib = self.now_kib = int(words[1]) + int(words[2])
        elif words[:1] == ["at"] and len(words) == 5:
            self.centis, self.now_kib = int(words[1]), int(words[2]) + int(words[3])
        elif words in (["idle"], ["limit"]):
            self.outcome = words[0]

    def wait(self) -> WritebackWait:
        if self.found_kib is None or self.outcome is None:
            raise NfstuneError(f"{host_words(self.role)}: its writeback could not be read from its /proc/meminfo")
        return WritebackWait(
            self.role, self.found_kib, self.now_kib, self.centis / 100, self.limit_s, self.outcome == "limit"
        )


def status_text(waiting: Sequence[tuple[str, int]]) -> str:
    """ "waiting for the server to finish writing back (120 MiB)"; several hosts in one line."""
    if len(waiting) == 1:
        role, kib = waiting[0]
        return f"waiting for {host_words(role)} to finish writing back ({mib_text(kib)})"
    named = [f"{host_words(role)} ({mib_text(kib)})" for role, kib in waiting]
    hosts = f"{', '.join(named[:-1])} and {named[-1]}"
    return f"waiting for {hosts} to finish writing back"


def wait_idle(
    flushes: Sequence[Flush],
    *,
    cancel: threading.Event,
    say: Callable[[str], None] = lambda _text: None,
    log: Callable[[str], None] = lambda _text: None,
    threshold_kib: int = THRESHOLD_KIB,
    limit_s: float = LIMIT_S,
    meminfo: str = MEMINFO,
) -> tuple[WritebackWait, ...]:
    """Every host of `flushes` flushed and waited for, all at once; one WritebackWait each, in their order.
    `say` gets a status line while some host is above the threshold, at most once a second, and "" when the wait
    is over (only if it said something); `log` a line for each
    host that had something to write back, or was still writing back at the limit. A cancel stops every host's
    loop and raises Cancelled."""
    if not flushes:
        return ()
    lines: queue.Queue[tuple[int, str | BaseException | None]] = queue.Queue()
    argvs = [idle_argv(f.path, threshold_kib=threshold_kib, limit_s=limit_s, meminfo=meminfo) for f in flushes]
    loops = [_HostLoop(k, f, argv, limit_s + 60, lines) for k, (f, argv) in enumerate(zip(flushes, argvs, strict=True))]
    readings = [_Reading(f.role, limit_s) for f in flushes]
    open_ = len(loops)
    said_at: float | None = None
    try:
        while open_:
            if cancel.is_set():
                raise Cancelled("cancelled while waiting for the hosts to finish writing back: every change was undone")
            try:
                k, got = lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(got, BaseException):
                raise got
            if got is None:
                open_ -= 1
                continue
            if got.startswith(ERR_MARK):
                readings[k].said.append(got[len(ERR_MARK) :])
                continue
            readings[k].take(got)
            waiting = [(r.role, r.now_kib) for r in readings if r.outcome is None and r.now_kib >= threshold_kib]
            if waiting and (said_at is None or time.monotonic() - said_at >= SAY_EVERY_S):
                said_at = time.monotonic()
                say(status_text(waiting))
    except BaseException:
        for loop in loops:
            loop.stop()
        raise
    finally:
        for loop in loops:
            loop.thread.join(timeout=5)
    if said_at is not None:
        say("")
    for f, loop, reading in zip(flushes, loops, readings, strict=True):
        status = loop.proc.exit_status if loop.proc is not None else None
        if status != 0:
            said = "\n".join(reading.said)
            command = loop.proc.command if loop.proc is not None else argvs[0][2]
            raise CommandFailed(f.host.label, command, -1 if status is None else status, said, "waiting for writeback")
    waits = tuple(r.wait() for r in readings)
    for wait in waits:
        if wait.limit_hit:
            log(f"{wait.sentence()}: the run starts anyway, and its details say so")
        elif wait.found_kib >= threshold_kib:
            log(f"{host_words(wait.host)} wrote back {mib_text(wait.found_kib)} in {wait.seconds:.1f} s before the run")
    return waits


class _HostLoop:
    """One host's loop, started and read on a thread of its own: the hosts' SSH round trips overlap, and a slow
    host does not hold up the others' lines. Each line goes to `lines` with the host's number, then None at the
    end (or the exception that ended it)."""

    def __init__(
        self,
        k: int,
        flush: Flush,
        argv: tuple[str, ...],
        timeout: float,
        lines: queue.Queue[tuple[int, str | BaseException | None]],
    ) -> None:
        self.k, self.flush, self.argv, self.timeout, self.lines = k, flush, argv, timeout, lines
        self.proc: RemoteProcess | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name=f"writeback-{flush.role}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            proc = self.flush.host.start(list(self.argv), sudo=self.flush.sudo, timeout=self.timeout)
            with self._lock:
                self.proc, stopped = proc, self._stopped
            if stopped:  # cancelled while it was starting
                proc.cancel()
            else:
                for stream, line in proc.lines():
                    self.lines.put((self.k, line if stream == "out" else ERR_MARK + line))
        except BaseException as exc:  # an unreachable host or a timeout: raised again on the waiting thread
            self.lines.put((self.k, exc))
            return
        self.lines.put((self.k, None))

    def stop(self) -> None:
        """Kill the host's loop (its process group), now or as soon as it has started."""
        with self._lock:
            self._stopped, proc = True, self.proc
        if proc is not None:
            proc.cancel()
