"""The server's running nfsd thread count, changed for a run and put back: a knob of the many-clients recipe (issue
13). Writing a count into /proc/fs/nfsd/threads is what rpc.nfsd itself does (nfs-utils support/nfs/nfssvc.c);
it lasts until nfsd restarts, and nothing on disk changes. Journaled as a "sysfs" entry holding the count it had,
so that the undo (at the end, on cancel, on failure, or at the next connect after a crash) writes it back.
"""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.changes.config_files import read_config_files
from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.steps import Steps, shell
from nfstune.changes.transaction import THREADS, Transaction, run_step, undo_sysfs
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.shell_text import sh_line

MOST = 1024  # far above what a small office's NAS runs (nfs-utils' default is 8, 16 from 2.8.2)


def read_threads(server: Host) -> int:
    out = server.run(["cat", THREADS], sudo=True, action="reading the nfsd thread count").stdout.strip()
    if not out.isdigit():
        raise NfstuneError(f"{server.label}: {THREADS} reads {out!r}, not a thread count")
    return int(out)


def threads_steps(count: int, before: int | str = "<the count before>") -> Steps:
    return Steps(
        (
            shell(
                "server",
                sh_line("echo {count} > {threads}", count=int(count), threads=THREADS),
                f"run {count} nfsd threads (the count before is journaled)",
            ),
        ),
        (undo_sysfs("server", THREADS, str(before), "put the nfsd thread count back"),),
    ).only(f"unless it runs {count} already")


def set_threads(server: Host, tx: Transaction, count: int) -> int:
    """Run `count` nfsd threads on the server; returns the count it had. Never 0: that stops the NFS server."""
    if not 1 <= count <= MOST:
        raise NfstuneError(f"{count} nfsd threads is out of range (1 to {MOST}; 0 would stop the NFS server)")
    before = read_threads(server)
    if before == 0:
        raise NfstuneError(f"{server.label}: the NFS server runs no nfsd thread (it is stopped): nothing to tune")
    if before == count:
        return before
    (step,) = threads_steps(count, before).do
    tx.record(server, "sysfs", THREADS, original=f"{before}\n".encode())
    tx.progress(f"{server.label}: nfsd threads {before} -> {count}")
    run_step(server, step, action=f"setting {count} nfsd threads")
    now = read_threads(server)
    if now != count:
        raise NfstuneError(f"{server.label}: asked for {count} nfsd threads, the kernel runs {now}")
    return before


@dataclass(frozen=True)
class NfsdThreads:
    """The server runs `count` nfsd threads for a visit."""

    count: int

    def steps(self, where: Where) -> Steps:
        return threads_steps(self.count)

    def apply(self, on: OnHosts) -> None:
        set_threads(on.host("server"), on.tx, self.count)


def read_nfs_conf_files(server: Host) -> dict[str, str]:
    """The server's nfs.conf files in nfs-utils' reading order (/etc/nfs.conf, then /etc/nfs.conf.d/*.conf in name
    order), by path; one that does not exist is left out."""
    return read_config_files(server, "/etc/nfs.conf", "/etc/nfs.conf.d", ".conf")
