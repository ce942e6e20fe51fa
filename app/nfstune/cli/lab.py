"""`nfstune lab` (build, up, down, status, ssh) and `nfstune demo`: the practice lab's two VMs from the command
line. The lab's own code (QEMU, SSH) is imported only when one of them runs."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from nfstune import paths
from nfstune.cli import display
from nfstune.cli.progress import Printer

if TYPE_CHECKING:
    from nfstune.lab import LabConfig, VmStatus


def lab_config(args: argparse.Namespace | None = None) -> LabConfig:
    from nfstune.lab import LabConfig

    if args is None or not hasattr(args, "disk"):
        return LabConfig().as_running()
    return LabConfig(
        nas_port=args.nas_port,
        client_port=args.client_port,
        link_port=args.link_port,
        disk=args.disk,
        link=args.link,
        accel=args.accel,
        memory_mib=args.memory,
        boot_timeout=args.timeout,
        clients=args.clients,
        release=args.release,
        rdma=args.rdma,
    )


def format_status(states: Sequence[VmStatus]) -> str:
    lines = [f"{'VM':7} {'address':16} {'process':12} {'SSH':5} {'nfs-server':11} {'disk':5} {'link':8} kernel"]
    for st in states:
        f = st.facts
        proc = f"pid {st.pid}" if st.pid else "down"
        ssh = "ok" if st.ssh == "ok" else ("-" if not st.running else "FAIL")
        nfs = f.get("nfs_server", "-") if st.name == "nas" else "-"
        lines.append(
            f"{st.name:7} {'127.0.0.1:' + str(st.port):16} {proc:12} {ssh:5} {nfs or '-':11} "
            f"{f.get('disk', '-'):5} {f.get('link', '-'):8} {f.get('kernel', '-')}"
            + (f" (RDMA: {f['rdma']})" if f.get("rdma") else "")
        )
        if st.running and st.ssh != "ok":
            lines.append(f"        SSH: {st.ssh}")
    return "\n".join(lines)


def lab_command(args: argparse.Namespace) -> int:
    from nfstune import lab
    from nfstune.lab.image import ensure_image

    printer = Printer()
    if args.lab_command == "build":
        image, built = ensure_image(lab_config().cache_dir, printer, force=args.force, release=args.release)
        print(f"{'built' if built else 'cached'}: {image.directory}")
        return 0
    if args.lab_command == "up":
        states = lab.up(lab_config(args), printer)
        print(format_status(states))
        return 0
    cfg = lab_config()
    if args.lab_command == "down":
        lab.down(cfg, printer)
        print("the lab is down")
        return 0
    if args.lab_command == "status":
        states = lab.status(cfg)
        if args.json:
            print(json.dumps([vars(st) for st in states], indent=2))
        else:
            print(format_status(states))
        return 0 if all(st.running and st.ssh == "ok" for st in states) else 3
    if args.lab_command == "ssh":
        lab.require_running(cfg, [args.vm])
        argv = lab.ssh_argv(cfg, args.vm) + list(args.remote_command)
        os.execvp(argv[0], argv)
    raise AssertionError(args.lab_command)


def _recover_lab(cfg: LabConfig, printer: Printer) -> None:
    """Undo whatever an earlier nfstune run left changed on the lab's hosts."""
    from nfstune.changes.transaction import recover_on_connect
    from nfstune.lab import host
    from nfstune.store import Journal, open_store

    with host(cfg, "nas") as nas, host(cfg, "client") as client:
        undone = recover_on_connect([nas, client], Journal(open_store()), printer)
    if undone:
        printer(f"undid {len(undone)} change(s) an earlier run had left on the lab")


def demo_command(args: argparse.Namespace) -> int:
    from nfstune import lab
    from nfstune.lab.check import nfs_roundtrip

    printer = Printer()
    cfg = lab_config(args)
    states = lab.up(cfg, printer)
    _recover_lab(cfg.as_running(), printer)
    no_window = None if args.headless else display.for_demo()
    if no_window is not None and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        printer(f"no window ({no_window.reason}): the summary instead")  # a display was meant to be there
    if not args.headless and no_window is None:
        from nfstune.ui.app import run_main_window

        return int(run_main_window(lab=True))
    rt = nfs_roundtrip(cfg.as_running(), printer)
    ok = rt.source_sha256 == rt.server_sha256 == rt.read_back_sha256
    mib = rt.size_bytes / 2**20
    print("\nnfstune practice lab\n" + format_status(states))
    nas = states[0].facts
    print(f"\nNAS exports:   {nas.get('exports', '').rstrip(';')}")
    print(
        f"NAS nfsd:      {nas.get('nfsd_threads')} threads, max block size {nas.get('nfsd_max_block_size')}, "
        f"versions {nas.get('nfsd_versions')}"
    )
    print(f"client mount:  {rt.mount_options}")
    print(
        f"round trip:    {mib:.0f} MiB written with fsync in {rt.write_seconds:.1f} s, read back cold in "
        f"{rt.read_seconds:.1f} s: {'identical on client, NAS disk and read-back' if ok else 'MISMATCH'}"
    )
    if not ok:
        return 1
    if not args.no_sweep:
        from nfstune.cli import run as cli_run

        report = paths.data_dir() / "demo-report.html"
        print("\nNow the guided sweep: quick-check on the lab (sync vs async, no_wdelay, block size, v3 vs 4.2).")
        sweep = argparse.Namespace(lab=True, recipe=["quick-check"], scale="small", html=report)
        cli_run.run(sweep, printer)
    print("\nThe lab stays up: `nfstune lab ssh nas`, `nfstune lab status`; stop it with `nfstune lab down`.")
    print("Emulated CPUs: compare configurations within one run; these are not real-world speeds.")
    return 0
