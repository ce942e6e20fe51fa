"""/proc/net/rpc/nfs, /proc/net/rpc/nfsd, pool_stats and nfsstat -m from the lab VMs (kernel 6.1)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.nfs.mountstats import parse_mountstats
from nfstune.nfs.nfsstat import (
    NFS3_PROCEDURES,
    NFS4_CLIENT_PROCEDURES,
    NFS4_SERVER_OPERATIONS,
    parse_client_counters,
    parse_nfsstat_mounts,
    parse_pool_stats,
    parse_server_counters,
)

CAPTURES = Path(__file__).parent.parent / "captures" / "nfs"
CLIENT = (CAPTURES / "client-proc-net-rpc-nfs.txt").read_text()
SERVER = (CAPTURES / "nas-proc-net-rpc-nfsd.txt").read_text()


def nfsstat_pretty(text: str) -> dict[str, dict[str, int]]:
    """`nfsstat -s` output: "Label:" then rows of names over rows of "count pct%" -> {label: {name: count}}."""
    sections: dict[str, dict[str, int]] = {}
    lines = text.split("\n")
    label = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.endswith(":"):
            label, index = line[:-1], index + 1
            sections[label] = {}
        elif line.strip() and label:
            names, values = line.split(), lines[index + 1].split()
            counts = [value for value in values if not value.endswith("%")]
            sections[label].update(zip(names, map(int, counts), strict=True))
            index += 2
        else:
            index += 1
    return sections


def test_client_counters() -> None:
    client = parse_client_counters(CLIENT)
    assert client.lines["net"].as_dict() == {"packets": 0, "udp_packets": 0, "tcp_packets": 0, "tcp_connections": 0}
    assert client.lines["rpc"].as_dict() == {"calls": 546, "retransmissions": 0, "auth_refreshes": 546}
    assert set(client.procedures) == {"proc3", "proc4"} and client.raw == {}
    assert len(client.procedures["proc3"].values) == 22 and client.procedures["proc3"].extra == ()
    assert len(client.procedures["proc4"].values) == 69 and client.procedures["proc4"].extra == ()
    assert client.get("proc3", "read") == 256 and client.get("proc4", "write") == 69
    assert client.get("proc4", "read_plus") == 0 and client.get("proc2", "null") is None


def test_client_v3_counts_match_the_only_v3_mount() -> None:
    """The v3 names are in kernel order: each count equals that procedure's ops in mountstats."""
    (v3,) = [m for m in parse_mountstats((CAPTURES / "client-mountstats.txt").read_text()) if m.fstype == "nfs"]
    assert v3.nfs is not None and v3.nfs.rpc is not None
    per_op = {op.name.lower(): op.ops for op in v3.nfs.rpc.ops}
    assert parse_client_counters(CLIENT).procedures["proc3"].as_dict() == per_op
    assert tuple(per_op) == NFS3_PROCEDURES


def test_client_v4_names_follow_the_kernel_order() -> None:
    mounts = parse_mountstats((CAPTURES / "client-mountstats.txt").read_text())
    v4 = next(m for m in mounts if m.fstype == "nfs4")
    assert v4.nfs is not None and v4.nfs.rpc is not None
    kernel_names = [op.name.lower() for op in v4.nfs.rpc.ops]
    assert len(kernel_names) == len(NFS4_CLIENT_PROCEDURES) == 69
    # nfs-utils abbreviates ten names; every other one, and all ten past its table, is the kernel's own
    abbreviated = {
        ours: kernel for ours, kernel in zip(NFS4_CLIENT_PROCEDURES, kernel_names, strict=True) if ours != kernel
    }
    assert abbreviated == {
        "open_conf": "open_confirm",
        "open_noat": "open_noattr",
        "open_dgrd": "open_downgrade",
        "setclntid": "setclientid",
        "confirm": "setclientid_confirm",
        "rel_lkowner": "release_lockowner",
        "reclaim_comp": "reclaim_complete",
        "getdevinfo": "getdeviceinfo",
        "secinfo_no": "secinfo_no_name",
        "bind_conn_to_ses": "bind_conn_to_session",
    }
    assert NFS4_CLIENT_PROCEDURES[59:] == tuple(kernel_names[59:])


def test_server_counters() -> None:
    server = parse_server_counters(SERVER)
    assert server.lines["rc"].as_dict() == {"hits": 0, "misses": 33, "nocache": 514}
    assert server.lines["fh"]["stale"] == 0 and len(server.lines["fh"].values) == 5
    assert server.lines["io"].as_dict() == {"bytes_read": 16777223, "bytes_written": 9437219}
    assert server.nfsd_threads == 8
    assert server.lines["ra"].extra == (0,) * 12
    assert server.lines["net"].as_dict() == {"packets": 547, "udp_packets": 0, "tcp_packets": 547, "tcp_connections": 5}
    assert server.lines["rpc"].as_dict() == {
        "calls": 547,
        "bad_calls": 0,
        "bad_format": 0,
        "bad_auth": 0,
        "bad_client": 0,
    }
    assert server.procedures["proc4"].as_dict() == {"null": 2, "compound": 229}
    assert len(server.procedures["proc4ops"].values) == len(NFS4_SERVER_OPERATIONS) == 76
    assert server.get("proc4ops", "sequence") == 223 and server.get("proc4ops", "putfh") == 215
    # the client read 8 MiB twice (v4.2 and v3) and wrote 8 MiB + 1 MiB + five 7-byte files
    assert server.get("io", "bytes_read") == 2 * 8388608 + 7 and server.get("proc3", "read") == 256


def test_server_counts_match_nfsstat_s() -> None:
    """nfs-utils 2.6.2 read the same file: every count it printed is ours under the same name."""
    printed = nfsstat_pretty((CAPTURES / "nas-nfsstat-s.txt").read_text())
    server = parse_server_counters(SERVER)
    assert printed["Server nfs v3"] == server.procedures["proc3"].as_dict()
    assert printed["Server nfs v4"] == server.procedures["proc4"].as_dict()
    operations = server.procedures["proc4ops"].as_dict()
    assert printed["Server nfs v4 operations"] == {name: operations[name] for name in NFS4_SERVER_OPERATIONS[:71]}
    assert printed["Server rpc stats"] == {
        "calls": 547,
        "badcalls": 0,
        "badfmt": 0,
        "badauth": 0,
        "badclnt": 0,
    } and tuple(server.lines["rpc"].values) == (547, 0, 0, 0, 0)
    # nfs-utils 2.6.2 stops at write_same (op 70); the kernel counts up to removexattr (op 75)
    assert "clone" not in printed["Server nfs v4 operations"] and "removexattr" in operations


def test_lines_of_other_kernels() -> None:
    proc4ops = next(line for line in SERVER.split("\n") if line.startswith("proc4ops 76 "))
    newer = proc4ops.replace("proc4ops 76", "proc4ops 78") + " 5 6"  # two operations past OP_REMOVEXATTR
    text = SERVER.replace(proc4ops, newer) + "proc2 18 " + " ".join(["1"] * 18) + "\nwdeleg_getattr 4\n"
    server = parse_server_counters(text)
    assert server.procedures["proc4ops"].extra == (5, 6)
    assert server.get("proc2", "wrcache") == 1 and len(server.procedures["proc2"].values) == 18
    assert server.raw["wdeleg_getattr"] == ("4",)  # unknown numeric lines are kept, unnamed
    assert parse_client_counters("net 1 2 3 4\nrpc 5 6\n").lines["rpc"].get("auth_refreshes") is None


def test_pool_stats() -> None:
    pools = parse_pool_stats((CAPTURES / "nas-pool-stats.txt").read_text())
    assert pools.columns == ("pool", "packets_arrived", "sockets_enqueued", "threads_woken", "threads_timedout")
    (pool,) = pools.pools
    assert pool.as_dict() == {
        "pool": 0,
        "packets_arrived": 1135,
        "sockets_enqueued": 1135,
        "threads_woken": 1108,
        "threads_timedout": 0,
    }
    renamed = parse_pool_stats("# pool packets-arrived xprts-enqueued threads-woken\n0 10 9 8\n1 20 19 18\n")
    assert renamed.total("packets_arrived") == 30 and renamed.total("xprts_enqueued") == 28
    assert renamed.total("sockets_enqueued") == 0


def test_nfsstat_m_matches_proc_mounts() -> None:
    mounts = parse_nfsstat_mounts((CAPTURES / "client-nfsstat-m.txt").read_text())
    proc = {m.mount_point: m for m in parse_proc_mounts((CAPTURES / "client-proc-mounts.txt").read_text()) if m.is_nfs}
    assert [m.mount_point for m in mounts] == list(proc)
    for found in mounts:
        assert found.device == proc[found.mount_point].device == "nas:/export"
        assert found.options == proc[found.mount_point].options
    assert [m.options.vers for m in mounts] == ["4.2", "3", "4.1", "4.2"]


@given(st.text())
def test_any_text_parses_without_raising(text: str) -> None:
    parse_client_counters(text)
    parse_server_counters(text)
    parse_pool_stats(text)
    parse_nfsstat_mounts(text)
