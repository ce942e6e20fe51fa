"""The kernel's own view of the exports, from captures of the lab NAS (tests/captures/kernel/README.md)."""

from __future__ import annotations

from pathlib import Path

from nfstune.nfs.kernel_view import (
    NfsClient,
    check_exports_resolve_to_themselves,
    connected_clients,
    parse_export_cache,
    parse_exportfs_s,
    parse_fh_cache,
    uuid_fsid_hex,
)

K = Path(__file__).parent.parent / "captures" / "kernel"


def read(name: str) -> str:
    return (K / name).read_text()


def test_export_cache() -> None:
    exports = {e.path: e for e in parse_export_cache(read("export-content-leak.txt"))}
    assert set(exports) == {"/", "/export", "/srv/nfstune"}
    assert exports["/export"].write_mode == "sync" and exports["/srv/nfstune"].write_mode == "async"
    assert exports["/export"].uuid == exports["/srv/nfstune"].uuid == "9ffb1c10:ac964e8d:9514166d:cef04fe4"
    assert exports["/export"].domain == "10.99.0.0/24,10.99.0.2"


def test_fh_cache_and_uuid_byte_order() -> None:
    keys = parse_fh_cache(read("fh-content-normal.txt"))
    uuid_key = next(k for k in keys if k.fsid_type == 6)
    assert uuid_key.path == "/export"
    assert uuid_key.fsid == uuid_fsid_hex("9ffb1c10:ac964e8d:9514166d:cef04fe4")


def test_normal_layout_resolves_to_itself() -> None:
    normal = check_exports_resolve_to_themselves(
        read("export-content-normal.txt"), read("fh-content-normal.txt"), {"/export": "sync"}
    )
    assert normal == []


def test_the_lab_poc_leak_is_detected() -> None:
    problems = check_exports_resolve_to_themselves(
        read("export-content-leak.txt"), read("fh-content-leak.txt"), {"/export": "sync"}
    )
    assert [p.export_path for p in problems] == ["/export"]
    assert "resolve to the export /srv/nfstune" in problems[0].message


def test_wrong_write_mode_is_reported() -> None:
    problems = check_exports_resolve_to_themselves(
        read("export-content-normal.txt"), read("fh-content-normal.txt"), {"/export": "async"}
    )
    assert [p.message for p in problems] == ["the kernel runs /export for 10.99.0.0/24 sync, not async"]


def test_escaped_paths() -> None:
    (e,) = parse_export_cache("/srv/my\\040share\t*(rw,async,uuid=1:2:3:4)\n")
    assert e.path == "/srv/my share" and e.write_mode == "async"


def test_connected_clients_v4_and_v3() -> None:
    clients = connected_clients(read("clients-info.txt"), read("ss-established-2049.txt"))
    assert [(c.address, c.version) for c in clients] == [
        ("10.99.0.2:842", "4.2"),
        ("10.99.0.2:934", "3 (or another TCP client)"),
    ]
    assert clients[0].name == "Linux NFSv4.2 client"


def test_exportfs_s() -> None:
    table = parse_exportfs_s(
        "/srv/nfstune  10.99.0.2(async,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash)\n"
        "/export  10.99.0.0/24(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash)\n"
    )
    assert table[("/export", "10.99.0.0/24")][0] == "sync"
    assert table[("/srv/nfstune", "10.99.0.2")][0] == "async"


def test_clients_whose_lease_ran_out_are_not_listed() -> None:
    # Linux 5.19+ keeps an unmounted v4.0 client's state as "courtesy" (then "expirable"): nobody uses it now
    info = read("clients-info.txt")
    courtesy = info.replace("status: confirmed", "status: courtesy").replace("10.99.0.2:842", "10.99.0.3:700")
    expirable = info.replace("status: confirmed", "status: expirable").replace("10.99.0.2:842", "10.99.0.4:701")
    clients = connected_clients(info + courtesy + expirable, read("ss-established-2049.txt"))
    assert [c.address for c in clients] == ["10.99.0.2:842", "10.99.0.2:934"]
    assert clients[0].status == "confirmed"


def test_client_host_without_port() -> None:
    hosts = [NfsClient(a, "4.2", "").host for a in ("10.99.0.2:842", "[fd00::2]:842", "[::ffff:10.99.0.2]:934")]
    assert hosts == ["10.99.0.2", "fd00::2", "10.99.0.2"]
