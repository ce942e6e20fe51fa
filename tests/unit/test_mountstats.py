"""/proc/self/mountstats from the lab client (kernel 6.1), plus the layouts of older and newer kernels."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from nfstune.nfs.mountstats import EVENT_NAMES, MountStats, nfs_mounts, parse_mountstats
from nfstune.nfs.rpc_iostats import TRANSPORT_FIELDS, RpcOpStats, Transport

CAPTURES = Path(__file__).parent.parent / "captures" / "nfs"
MOUNTSTATS = (CAPTURES / "client-mountstats.txt").read_text()


def mount(mount_point: str) -> MountStats:
    return next(found for found in parse_mountstats(MOUNTSTATS) if found.mount_point == mount_point)


def test_every_mount_is_listed_and_only_nfs_has_statistics() -> None:
    mounts = parse_mountstats(MOUNTSTATS)
    assert len(mounts) == MOUNTSTATS.count("\ndevice ") + 1 == 30
    proc = mounts[1]
    assert (proc.device, proc.mount_point, proc.fstype, proc.nfs) == ("proc", "/proc", "proc", None)
    assert [m.mount_point for m in mounts if m.is_nfs] == [
        "/mnt/capture-a",
        "/mnt/capture-b",
        "/mnt/capture c",
        "/mnt/capture-e\ttab\\back",
    ]
    assert [m.mount_point for m in nfs_mounts(MOUNTSTATS)] == [m.mount_point for m in mounts if m.is_nfs]
    assert all(m.nfs is None or m.nfs.unknown_lines == () for m in mounts)  # every 6.1 line is understood


def test_the_nfs_lines_of_the_nconnect_mount() -> None:
    nfs = mount("/mnt/capture-a").nfs
    assert nfs is not None
    assert (nfs.statvers, nfs.age) == ("1.1", 25)
    # opts: shows every option in force, defaults included
    assert (nfs.opts.vers, nfs.opts.nconnect, nfs.opts.get("acregmin"), nfs.opts.get("acdirmax")) == (
        "4.2",
        2,
        "3",
        "60",
    )
    assert nfs.impl_id == {"name": "", "domain": "", "date": "0,0"}
    assert nfs.caps["caps"] == "0xfffbc0bf" and nfs.caps["wtmult"] == "512" and nfs.caps["dtsize"] == "131072"
    assert nfs.nfsv4["sessions"] == "" and nfs.nfsv4["pnfs"] == "not configured" and nfs.nfsv4["lease_time"] == "90"
    assert nfs.sec == {"flavor": "1", "pseudoflavor": "1"}
    assert nfs.events.names == EVENT_NAMES and len(nfs.events.values) == 27 and nfs.events.extra == ()
    assert (nfs.events["vfs_open"], nfs.events["vfs_lookup"], nfs.events["vfs_access"]) == (1, 2, 49)
    # one page update per page written, one readahead call per READ: the columns line up with bytes: and READ
    assert nfs.events["vfs_update_page"] == nfs.bytes["write_pages"] == 2053
    assert nfs.events["vfs_readpages"] == 64
    assert nfs.bytes.as_dict() == {
        "normal_read_bytes": 8388608,
        "normal_write_bytes": 8388643,
        "direct_read_bytes": 0,
        "direct_write_bytes": 0,
        "server_read_bytes": 8388608,
        "server_write_bytes": 8388643,
        "read_pages": 2048,
        "write_pages": 2053,
    }
    assert nfs.fscache is None


def test_nconnect_gives_two_tcp_transports() -> None:
    nfs = mount("/mnt/capture-a").nfs
    assert nfs is not None and nfs.rpc is not None
    assert (nfs.rpc.version, nfs.rpc.program, nfs.rpc.program_version, nfs.rpc.program_name) == (
        "1.1",
        100003,
        4,
        "nfs",
    )
    first, second = nfs.rpc.transports
    assert first.kind == second.kind == "tcp"
    assert first.counters.names == TRANSPORT_FIELDS["tcp"] and len(first.counters.values) == 13
    assert first.counters.extra == ()
    assert first.counters.as_dict() == {
        "port": 0,
        "bind_count": 0,
        "connect_count": 2,
        "connect_time": 0,
        "idle_time": 9,
        "sends": 105,
        "recvs": 105,
        "bad_xids": 0,
        "req_u": 221,
        "bklog_u": 0,
        "max_slots": 25,
        "sending_u": 382,
        "pending_u": 95,
    }
    assert (second.sends, second.max_slots) == (95, 15)
    assert sum(transport.sends or 0 for transport in nfs.rpc.transports) == 200


def test_mounts_of_one_nfs_client_share_its_transports() -> None:
    a, c, e = (mount(path).nfs for path in ("/mnt/capture-a", "/mnt/capture c", "/mnt/capture-e\ttab\\back"))
    assert a is not None and a.rpc is not None and e is not None and e.rpc is not None
    assert c is not None and c.rpc is not None
    assert a.rpc.transports == e.rpc.transports  # same server, same NFS version: one client, one xprt set
    assert len(c.rpc.transports) == 1  # NFSv4.1 is another client, without nconnect


def test_per_op_lines() -> None:
    nfs = mount("/mnt/capture-a").nfs
    assert nfs is not None and nfs.rpc is not None
    assert len(nfs.rpc.ops) == 69  # NFSv4 client procedures on 6.1, NULL to READ_PLUS
    assert (nfs.rpc.ops[0].name, nfs.rpc.ops[-1].name) == ("NULL", "READ_PLUS")
    read = nfs.rpc.op("READ")
    assert read == RpcOpStats("READ", 64, 64, 0, 12288, 8395264, 28, 1557, 1616, 0)
    assert nfs.rpc.op("SETCLIENTID_CONFIRM") is not None and nfs.rpc.op("NOPE") is None


def test_counters_agree_with_each_other() -> None:
    """Fields in the wrong place would break these: READs are rsize-sized, bytes and ops line up."""
    for path in ("/mnt/capture-a", "/mnt/capture-b"):
        nfs = mount(path).nfs
        assert nfs is not None and nfs.rpc is not None and nfs.opts.rsize is not None
        read = nfs.rpc.op("READ")
        assert read is not None
        assert read.ops == nfs.bytes["server_read_bytes"] // nfs.opts.rsize  # 8 MiB in 128 KiB or 32 KiB READs
        assert read.bytes_recv > nfs.bytes["server_read_bytes"] > read.bytes_recv - 200 * read.ops


def test_the_v3_mount() -> None:
    nfs = mount("/mnt/capture-b").nfs
    assert nfs is not None and nfs.rpc is not None
    assert nfs.nfsv4 == {} and nfs.impl_id == {}
    assert nfs.rpc.program_version == 3 and len(nfs.rpc.ops) == 22
    (transport,) = nfs.rpc.transports
    assert (transport.kind, transport.get("port"), transport.sends) == ("tcp", 965, 315)
    lookup = nfs.rpc.op("LOOKUP")
    assert lookup is not None and lookup.errors == 1  # the lookup of nfstune-capture/g before it was created
    write = nfs.rpc.op("WRITE")
    assert write is not None and write.bytes_sent > 1048576


def test_transport_layouts_from_the_kernel_source() -> None:
    # a 2.6-era tcp line: 10 numbers, before max_slots/sending_u/pending_u
    old_tcp = Transport.parse("tcp 815 1 1 0 0 1000 1000 0 2000 0")
    assert old_tcp is not None and old_tcp.sends == 1000 and old_tcp.max_slots is None
    udp = Transport.parse("udp 812 1 300 300 0 600 0 16 20 5")
    assert udp is not None and (udp.sends, udp.max_slots) == (300, 16)
    assert (udp.get("recvs"), udp.get("connect_count")) == (300, None)
    local = Transport.parse("local 1 1 0 0 10 10 0 10 0 2 0 0")
    assert local is not None and local.get("port") is None and local.sends == 10
    rdma = Transport.parse("rdma " + " ".join(str(n) for n in range(27)))
    assert rdma is not None and rdma.counters.extra == () and rdma.get("reply_waits_for_send") == 26
    assert (rdma.get("sends"), rdma.get("read_chunk_count"), rdma.get("max_slots")) == (5, 10, None)
    old_rdma = Transport.parse("rdma " + " ".join(["1"] * 20))  # before nomsg_call_count and the mrs_* counters
    assert old_rdma is not None and old_rdma.get("bad_reply_count") == 1 and old_rdma.get("nomsg_call_count") is None
    newer_tcp = Transport.parse("tcp 0 0 2 0 9 105 105 0 221 0 25 382 95 7 8")
    assert newer_tcp is not None and newer_tcp.counters.extra == (7, 8)
    unknown = Transport.parse("vsock 1 2 3")
    assert unknown is not None and unknown.counters.extra == (1, 2, 3) and unknown.sends is None
    assert Transport.parse("tcp 1 x") is None and Transport.parse("") is None


def test_per_op_layouts_of_older_and_newer_kernels() -> None:
    before_errors = RpcOpStats.parse("READ", "10 11 1 100 200 3 4 5")
    assert before_errors is not None and before_errors.errors is None and before_errors.ntrans == 11
    newer = RpcOpStats.parse("READ", "10 10 0 100 200 3 4 5 0 42 43")
    assert newer is not None and (newer.errors, newer.extra) == (0, (42, 43))
    assert RpcOpStats.parse("READ", "1 2 3") is None
    assert RpcOpStats.parse("READ", "1 2 3 4 5 6 7 x") is None


OLD_KERNEL_MOUNT = """\
no device mounted on /weird with fstype tmpfs
device srv:/data mounted on /data with fstype nfs statvers=1.0
\topts:\trw,vers=3,rsize=8192
\tage:\t100
\tcaps:\tcaps=0x3fc7,wtmult=512,dtsize=8192,bsize=0,namlen=255
\tsec:\tflavor=1
\tevents:\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25
\tbytes:\t1 2 3 4 5 6 7 8
\tfsc:\t1 2 3 4 5
\tsomething new:\t1 2
\tRPC iostats version: 1.0  p/v: 100003/3 (nfs)
\txprt:\tudp 900 1 10 10 0 30 0
\tper-op statistics
\t        NULL: 0 0 0 0 0 0 0 0
\t     GETATTR: 5 5 0 500 600 1 2 3
\t          23: 1 1 0 1 1 0 0 0
"""


def test_an_older_kernel_block() -> None:
    weird, data = parse_mountstats(OLD_KERNEL_MOUNT)
    assert (weird.device, weird.mount_point, weird.nfs) == (None, "/weird", None)
    nfs = data.nfs
    assert nfs is not None and nfs.rpc is not None
    assert (nfs.statvers, nfs.age, nfs.opts.rsize, nfs.sec) == ("1.0", 100, 8192, {"flavor": "1"})
    assert nfs.events["delay"] == 25 and nfs.events.get("pnfs_read") is None and "pnfs_write" not in nfs.events
    assert nfs.fscache is not None and nfs.fscache["pages_uncached"] == 5
    assert nfs.unknown_lines == ("\tsomething new:\t1 2",)
    (udp,) = nfs.rpc.transports
    assert (udp.kind, udp.sends, udp.max_slots) == ("udp", 10, None)
    assert [op.name for op in nfs.rpc.ops] == ["NULL", "GETATTR", "23"]  # unnamed procedures print their number
    assert all(op.errors is None for op in nfs.rpc.ops)


def test_unreadable_lines_are_kept_not_fatal() -> None:
    text = MOUNTSTATS.replace("\tage:\t25", "\tage:\tsoon").replace("\txprt:\ttcp 965 ", "\txprt:\ttcp x ")
    a = next(m for m in parse_mountstats(text) if m.mount_point == "/mnt/capture-a")
    b = next(m for m in parse_mountstats(text) if m.mount_point == "/mnt/capture-b")
    assert a.nfs is not None and a.nfs.age is None and a.nfs.unknown_lines == ("\tage:\tsoon",)
    assert b.nfs is not None and b.nfs.rpc is not None and b.nfs.rpc.transports == ()
    assert b.nfs.unknown_lines == ("\txprt:\ttcp x 1 2 0 9 315 315 0 1330 0 27 559 826",)


@given(st.text())
def test_any_text_parses_without_raising(text: str) -> None:
    parse_mountstats(text)


@given(st.lists(st.sampled_from(MOUNTSTATS.split("\n")), max_size=60))
def test_shuffled_capture_lines_parse(lines: list[str]) -> None:
    """One mount per header line, whatever comes around it; an NFS block never loses a line silently."""
    mounts = parse_mountstats("\n".join(lines))
    assert len(mounts) == sum(line.startswith("device ") for line in lines)
    for found in mounts:
        if found.nfs is not None and found.nfs.rpc is None:
            assert all(line.startswith("\t") for line in found.nfs.unknown_lines)
