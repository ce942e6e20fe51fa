"""The server's NFS-over-RDMA listener, for the transport recipe's proto=rdma configuration (issue 14).

nfsd listens for RDMA only when told to: `rpc.nfsd --rdma`, [nfsd] rdma=y in nfs.conf, or, while it runs, the line
"rdma 20049" written to /proc/fs/nfsd/portlist (what rpc.nfsd itself writes; fs/nfsd/nfsctl.c,
__write_ports_addxprt). The kernel cannot take a single listener away again while nfsd runs: portlist only adds
(kernels 6.1 and 6.12 accept no "-rdma 20049"), and the netlink listener-set behind `nfsdctl listener` refuses any
change while threads run (EBUSY in 6.12). So the undo (transaction.py) restarts the NFS server, which starts it
again from its own configuration, and puts back the thread count it ran. The recipe's warning says so first.
"""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.changes.host_change import OnHosts, Where
from nfstune.changes.nfsd_threads import read_threads
from nfstune.changes.steps import Steps, shell
from nfstune.changes.transaction import PORTLIST, Transaction, run_step, undo_listener
from nfstune.errors import NfstuneError
from nfstune.nfs.mount_options import RDMA_PORT
from nfstune.remote import Host
from nfstune.shell_text import sh_line

__all__ = ["PORTLIST", "RdmaListener", "add_rdma_listener", "listener_steps", "read_listeners"]


def read_listeners(server: Host) -> frozenset[str]:
    """nfsd's listeners, "netid port" each ("tcp 2049", "rdma 20049"); IPv4 and IPv6 print the same line."""
    out = server.run(["cat", PORTLIST], sudo=True, action="reading nfsd's listeners").stdout
    return frozenset(" ".join(line.split()) for line in out.splitlines() if line.strip())


def listener_steps(port: int, threads: int | str = "<the count now>", systemd: bool = True) -> Steps:
    """nfsd made to listen for RDMA on `port`; undone by restarting the NFS server (`systemd`: through its unit,
    else rpc.nfsd with the thread count it ran)."""
    listener = f"rdma {port}"
    return Steps(
        (
            shell(
                "server",
                sh_line("echo rdma {port} > {portlist}", port=int(port), portlist=PORTLIST),
                f"add nfsd's RDMA listener on port {port}",
            ),
        ),
        (undo_listener("server", listener, threads, systemd),),
    ).only("unless nfsd listens for RDMA there already")


def add_rdma_listener(server: Host, tx: Transaction, port: int = RDMA_PORT) -> bool:
    """Have nfsd listen for RDMA on `port` until the transaction is undone. False when it already does (nothing
    changed, nothing journaled)."""
    listener = f"rdma {port}"
    if listener in read_listeners(server):
        tx.progress(f"{server.label}: nfsd already listens for RDMA on port {port}")
        return False
    threads = read_threads(server)
    if threads == 0:
        raise NfstuneError(f"{server.label}: the NFS server runs no nfsd thread (it is stopped): nothing to listen")
    systemd = server.run("systemctl is-active nfs-server", sudo=True, check=False).stdout.strip() == "active"
    (step,) = listener_steps(port, threads, systemd).do
    tx.record(server, "listener", listener, detail={"threads": threads, "systemd": systemd})
    tx.progress(f"{server.label}: nfsd listens for RDMA on port {port} (until the NFS server restarts at the end)")
    result = run_step(server, step, check=False, action=f"adding nfsd's RDMA listener on port {port}")
    assert result is not None
    if listener not in read_listeners(server):
        why = result.stderr.strip() or "it is not in nfsd's listeners afterwards"
        raise NfstuneError(f"{server.label}: nfsd could not listen for RDMA on port {port}: {why}")
    return True


@dataclass(frozen=True)
class RdmaListener:
    """nfsd listens for RDMA on `port` for the rest of the session (a proto=rdma configuration mounts through it)."""

    port: int

    def steps(self, where: Where) -> Steps:
        return listener_steps(self.port)

    def apply(self, on: OnHosts) -> None:
        add_rdma_listener(on.host("server"), on.tx, self.port)
