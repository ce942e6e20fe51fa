"""The server's NFS-over-RDMA listener, for the transport recipe's proto=rdma configuration (issue 14).

nfsd listens for RDMA only when told to: `rpc.nfsd --rdma`, [nfsd] rdma=y in nfs.conf, or, while it runs, the line
"rdma 20049" written to /proc/fs/nfsd/portlist (what rpc.nfsd itself writes; fs/nfsd/nfsctl.c,
__write_ports_addxprt). The kernel cannot take a single listener away again while nfsd runs: portlist only adds
(kernels 6.1 and 6.12 accept no "-rdma 20049"), and the netlink listener-set behind `nfsdctl listener` refuses any
change while threads run (EBUSY in 6.12). So the undo (transaction.py) restarts the NFS server, which starts it
again from its own configuration, and puts back the thread count it ran. The recipe's warning says so first.
"""

from __future__ import annotations

from nfstune.changes.nfsd_threads import read_threads
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.nfs.mount_options import RDMA_PORT
from nfstune.remote import Host

PORTLIST = "/proc/fs/nfsd/portlist"


def read_listeners(server: Host) -> frozenset[str]:
    """nfsd's listeners, "netid port" each ("tcp 2049", "rdma 20049"); IPv4 and IPv6 print the same line."""
    out = server.run(["cat", PORTLIST], sudo=True, action="reading nfsd's listeners").stdout
    return frozenset(" ".join(line.split()) for line in out.splitlines() if line.strip())


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
    tx.record(server, "listener", listener, detail={"threads": threads, "systemd": systemd})
    tx.progress(f"{server.label}: nfsd listens for RDMA on port {port} (until the NFS server restarts at the end)")
    result = server.run(
        f"echo {listener} > {PORTLIST}", sudo=True, check=False, action=f"adding nfsd's RDMA listener on port {port}"
    )
    if listener not in read_listeners(server):
        why = result.stderr.strip() or "it is not in nfsd's listeners afterwards"
        raise NfstuneError(f"{server.label}: nfsd could not listen for RDMA on port {port}: {why}")
    return True
