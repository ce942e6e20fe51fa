"""The `nfstune` command. Without a subcommand it opens the desktop window.

Heavy modules (Qt, paramiko) are imported only by the subcommands that need them, so `nfstune --version`
and `nfstune info` work on a bare install.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nfstune import __version__, paths
from nfstune.cli import display, exits, integration
from nfstune.cli.args import (
    lab_clients,
    mount_point,
    output_file,
    positive_seconds,
    server_address,
    session_id,
    share_path,
    ssh_destination,
    vm_memory,
)
from nfstune.cli.output import StandardOutput, others_to_stderr
from nfstune.cli.stdout import OutputError, checked_stdout
from nfstune.errors import NfstuneError
from nfstune.lab.config import ALL_VM_NAMES, DEFAULT_RELEASE, RELEASES

if TYPE_CHECKING:
    from nfstune.lab import LabConfig, VmStatus

LAB_HELP = """\
The practice lab: two QEMU VMs on this computer, booted from a Debian image built here. `nas` runs the kernel NFS
server and exports /export (on its own disk); `client` mounts it over a private virtual link (10.99.0.1 <->
10.99.0.2). Both are reached over SSH on 127.0.0.1 with their host keys checked. Building needs root.

Limits: the CPUs are emulated (no hardware virtualisation here), so absolute figures are low and noisy: compare
configurations within one run, and do not read them as real-world speeds. A cold NFS read tops out near 12 MB/s,
so only link profiles below that are faithful (measured: 100mbit 10.3 MB/s, 50mbit 5.8 MB/s = 98.6 % of that
link's TCP goodput).

Disk profiles: hdd (default) adds 8 ms to every write and flush on the NAS's export disk, like the spinning
disk of a home NAS (untar of 300 small files: sync 79.7 s, async 18.7 s); ssd adds nothing (23.6 s vs 18.9 s).
Link profiles: none (default), 100mbit, 50mbit, 20mbit: tc tbf on both VMs' lab link.
"""


class Printer:
    """Progress lines for a terminal: repeated 'waiting' lines overwrite each other on a TTY."""

    def __init__(self) -> None:
        self._tty = sys.stdout.isatty()
        self._t0 = time.monotonic()
        self._open_line = False

    def __call__(self, message: str) -> None:
        text = f"[{time.monotonic() - self._t0:5.0f}s] {message}"
        if self._tty and message.startswith("waiting"):
            sys.stdout.write("\r\033[K" + text)
            self._open_line = True
        else:
            sys.stdout.write(("\n" if self._open_line else "") + text + "\n")
            self._open_line = False
        sys.stdout.flush()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nfstune",
        description="A tuning assistant for NFS.",
        epilog=exits.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"nfstune {__version__}")
    sub = parser.add_subparsers(dest="command")

    info = sub.add_parser("info", help="versions and where nfstune keeps and finds its files")
    info.add_argument("--json", action="store_true")
    listing = sub.add_parser(
        "recipes", help="the recipes: what each changes, and how long it takes by its plan at both scales"
    )
    listing.add_argument("--json", action="store_true", help="as a JSON array")

    lab = sub.add_parser(
        "lab",
        help="the practice lab (two local VMs)",
        description=LAB_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lab_sub = lab.add_subparsers(dest="lab_command", required=True)
    build = lab_sub.add_parser("build", help="build the VM image (cached; rebuilt only when its inputs change)")
    build.add_argument("--force", action="store_true", help="rebuild even if cached")
    build.add_argument("--release", default=DEFAULT_RELEASE, choices=RELEASES, help="the image's Debian release")
    lab_up = lab_sub.add_parser("up", help="boot both VMs and wait until they are ready")
    _add_up_options(lab_up)
    lab_sub.add_parser("down", help="stop both VMs (by their pid files) and drop their per-run disks")
    lab_status = lab_sub.add_parser("status", help="each VM, SSH reachability, nfs-server, profiles in force")
    lab_status.add_argument("--json", action="store_true")
    ssh = lab_sub.add_parser("ssh", help="a shell (or one command) on a lab VM")
    ssh.add_argument("vm", choices=ALL_VM_NAMES)
    ssh.add_argument("remote_command", nargs=argparse.REMAINDER)

    _add_run_parsers(sub)

    gui = sub.add_parser("gui", help="the desktop assistant (also what `nfstune` alone opens)")
    gui.add_argument("--lab", action="store_true", help="connect both hosts to the practice lab at once")
    gui.add_argument("--scale", choices=("small", "normal"), help="sizes and time budget (default: small on the lab)")
    sub.add_parser("lab-window", help="a window listing the practice lab's VMs and their state")
    demo = sub.add_parser("demo", help="boot the practice lab and show it (window, or a summary without a display)")
    demo.add_argument("--headless", action="store_true", help="print the summary even when a display is available")
    demo.add_argument("--no-sweep", action="store_true", help="stop after the summary (skip the quick-check sweep)")
    _add_up_options(demo)
    integration.add_parsers(sub)
    return parser


def _add_run_parsers(sub: Any) -> None:
    """run, history, report; their code (engine, SSH) is imported only when one of them runs."""
    run = sub.add_parser("run", help="measure recipes on a server and a client (or the practice lab)")
    _add_hosts(run)
    run.add_argument("--share", type=share_path, help="the exported path to test (an absolute path on the server)")
    run.add_argument("--recipe", action="append", required=True, help="recipe id (repeatable); see `nfstune info`")
    run.add_argument(
        "--scale",
        choices=("small", "normal"),
        help="sizes and time budget: small (the quick setting, for the emulated lab) or normal (for a real NAS); "
        "default: small with --lab, else normal",
    )
    run.add_argument(
        "--no-ceilings",
        "--no-baselines",  # its earlier name: kept, so that scripts written with it still run
        action="store_true",
        dest="no_ceilings",
        help="skip the iperf3 and server-disk ceilings measured first",
    )
    run.add_argument(
        "--no-server-login",
        action="store_true",
        help="nfstune cannot log in to the server (a NAS with SSH off, a login without root): test from the client "
        "alone. --server then names the NFS server as the client reaches it; nothing runs or changes on it",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (the order of the visits, every command, its undo, the time) without connecting",
    )
    run.add_argument(
        "--html",
        type=output_file,
        help="also write the session's report (self-contained HTML) here; - : to standard output, with the "
        "progress and the results on standard error",
    )
    run.add_argument(
        "--yes",
        action="store_true",
        help="change the server's export even while other clients are connected (otherwise asked; refused "
        "without a terminal)",
    )
    _add_apply_parser(sub)
    past = sub.add_parser("history", help="past sessions")
    past.add_argument("--json", action="store_true", help="the sessions as a JSON array, the latest first")
    rep = sub.add_parser("report", help="export a session: HTML (with plots), CSV, JSON")
    rep.add_argument("session", type=session_id)
    rep.add_argument("--html", type=output_file, help="the report with charts, to send on (- : standard output)")
    rep.add_argument("--csv", type=output_file, help="one row per repeat (- : standard output)")
    rep.add_argument(
        "--json",
        type=output_file,
        help="the session as data for scripts: verdicts with their intervals, the recommendation, every run "
        "(resources/schemas/report.schema.json; - : standard output)",
    )
    rep.add_argument(
        "--trend",
        action="store_true",
        help="end the text report with the trend: each workload's figure in the same hosts' sessions up to this one "
        "and what changed between them (the HTML and JSON reports always hold it)",
    )


def _add_hosts(p: argparse.ArgumentParser) -> None:
    """--lab, or --server and --client (and the server's address as the client reaches it): `run` and `apply`."""
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--lab", action="store_true", help="use the running practice lab (`nfstune lab up`)")
    where.add_argument("--server", type=ssh_destination, help="the NFS server, as you would give it to ssh")
    p.add_argument(
        "--client",
        type=ssh_destination,
        action="append",
        help="the NFS client, as you would give it to ssh; `run` takes it once per client for a recipe that loads "
        "the server from several clients at once (the first is the one every other recipe uses)",
    )
    p.add_argument(
        "--server-address",
        type=server_address,
        help="the server's host name or IP address as the client reaches it (default: --server)",
    )


def _add_apply_parser(sub: Any) -> None:
    ap = sub.add_parser(
        "apply",
        help="write a session's recommendation to /etc/exports and /etc/fstab for good, after showing the "
        "diff; or undo the last apply (--undo)",
    )
    ap.add_argument("session", type=session_id, nargs="?", help="the session whose recommendation to apply")
    ap.add_argument("--undo", action="store_true", help="put back the files the last apply on these hosts changed")
    _add_hosts(ap)
    ap.add_argument(
        "--mount-point",
        type=mount_point,
        help="where a new /etc/fstab line mounts the share (default: the recommendation's; an existing entry keeps "
        "its own)",
    )
    ap.add_argument("--yes", action="store_true", help="go on without asking, once the diff is printed")


def _add_up_options(p: argparse.ArgumentParser) -> None:
    from nfstune.lab.profiles import DEFAULT_DISK, DEFAULT_LINK, DISK_PROFILES, LINK_PROFILES

    p.add_argument("--disk", default=DEFAULT_DISK, choices=list(DISK_PROFILES), help="NAS disk profile")
    p.add_argument("--link", default=DEFAULT_LINK, choices=list(LINK_PROFILES), help="lab link profile")
    p.add_argument("--nas-port", type=int, default=2222, help="SSH port of the NAS VM on 127.0.0.1")
    p.add_argument(
        "--client-port",
        type=int,
        default=2223,
        help="SSH port of the client VM on 127.0.0.1 (further clients: the ports after it)",
    )
    p.add_argument(
        "--clients",
        type=lab_clients,
        default=1,
        help="client VMs on the lab link (1-4): client, client2, ... for load from several machines at once",
    )
    p.add_argument(
        "--link-port",
        type=int,
        default=10099,
        help="127.0.0.1 port that carries the lab link (one per client: the ports after it)",
    )
    p.add_argument(
        "--release",
        default=DEFAULT_RELEASE,
        choices=RELEASES,
        help="the NAS's Debian release (trixie: kernel 6.12, nfs-utils 2.8 with nfsdctl); the clients run "
        f"{DEFAULT_RELEASE}",
    )
    p.add_argument(
        "--rdma",
        action="store_true",
        help="soft-RoCE on the lab link for NFS over RDMA (the transport recipe): every VM boots Debian's generic "
        "kernel, which has rdma_rxe; shows the protocol path working, not a real RDMA NIC's speed",
    )
    p.add_argument("--accel", default="tcg", choices=("tcg", "kvm"), help="qemu accelerator")
    p.add_argument("--memory", type=vm_memory, default=1024, help="MiB of RAM per VM")
    p.add_argument("--timeout", type=positive_seconds, default=300, help="seconds to wait for the VMs to boot")


def _lab_config(args: argparse.Namespace | None = None) -> LabConfig:
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


def _info(as_json: bool) -> int:
    data: dict[str, Any] = {"version": __version__, "python": sys.version.split()[0]}
    for name in ("resources_dir", "recipes_dir", "data_dir", "cache_dir", "state_dir", "log_dir"):
        data[name] = str(getattr(paths, name)())
    data["recipes"] = sorted(p.name for p in paths.recipes_dir().glob("*.toml"))
    if as_json:
        print(json.dumps(data, indent=2))
    else:
        for key, value in data.items():
            print(f"{key:13} {', '.join(value) if isinstance(value, list) else value}")
    return 0


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


def _lab(args: argparse.Namespace) -> int:
    from nfstune import lab
    from nfstune.lab.image import ensure_image
    from nfstune.lab.vms import vm_pid

    printer = Printer()
    if args.lab_command == "build":
        image, built = ensure_image(_lab_config().cache_dir, printer, force=args.force, release=args.release)
        print(f"{'built' if built else 'cached'}: {image.directory}")
        return 0
    if args.lab_command == "up":
        states = lab.up(_lab_config(args), printer)
        print(format_status(states))
        return 0
    cfg = _lab_config()
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
        if vm_pid(cfg, args.vm) is None:
            raise lab.LabError(f"the lab's {args.vm} VM is not running: start the lab with `nfstune lab up`")
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


def _demo(args: argparse.Namespace) -> int:
    from nfstune import lab
    from nfstune.lab.check import nfs_roundtrip

    printer = Printer()
    cfg = _lab_config(args)
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


def _check_run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What argparse cannot say alone about `run`; checked before the results database is opened."""
    if args.lab:
        # --share may name another path on the lab's NAS (preflight checks that it is exported)
        given = [f"--{name.replace('_', '-')}" for name in ("client", "server_address") if getattr(args, name)]
        if given:
            parser.error(f"--lab uses the lab's own client and its address: drop {', '.join(given)}")
    elif not args.client or not args.share:
        parser.error("--server needs --client and --share too")
    twice = [c for i, c in enumerate(args.client or []) if c in args.client[:i]]
    if twice:
        parser.error(f"--client {twice[0]} is given twice: give each client once")


def _check_report(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    given = [f"--{name}" for name in ("html", "csv", "json") if isinstance(getattr(args, name), StandardOutput)]
    if len(given) > 1:
        parser.error(f"{' and '.join(given)} both go to standard output (-): give a file name to all but one")


def _check_apply(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.undo == (args.session is not None):
        parser.error("give a session to apply, or --undo (not both)")
    if args.client and len(args.client) > 1:
        parser.error("apply writes one client's /etc/fstab: give --client once")
    if args.server and not args.client:
        parser.error("--server needs --client too")
    if args.lab and (args.client or args.server_address):
        parser.error("--lab uses the lab's own client and its address")


def main(argv: Sequence[str] | None = None) -> int:
    """The command; its exit status (cli/exits.py lists them)."""
    with checked_stdout():
        try:
            try:
                return _command(argv)
            finally:
                # a reader that stopped reading or a full disk shows here, with what is still buffered, and not at
                # the interpreter's exit, where Python would print "Exception ignored" and exit 120
                sys.stdout.flush()
        except BrokenPipeError:
            exits.silence_stdout()
            return exits.READER_GONE
        except OutputError as error:
            print(f"nfstune: error: could not write the output: {error}", file=sys.stderr)
            return exits.BAD_INPUT


def _explained(exc: NfstuneError) -> int:
    print(f"\nnfstune: error: {exc}", file=sys.stderr)
    if exc.details:  # the technical text, for a search or a bug report: after the plain words, set apart
        print(textwrap.indent(f"details: {exc.details.strip()}", "  "), file=sys.stderr)
    return exits.BAD_INPUT


def _command(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "apply":
        _check_apply(parser, args)
    if args.command == "report":
        _check_report(parser, args)
    if args.command == "run":
        _check_run(parser, args)
        if args.scale is None:  # the lab's emulated CPUs move a real NAS's sizes far too slowly
            args.scale = "small" if args.lab else "normal"
    if args.command not in (None, "info", "recipes", "gui", *integration.COMMANDS):
        from nfstune.logs import setup_logging

        setup_logging()  # paramiko's retries while a VM boots go to the log file, not the terminal
    try:
        if args.command == "info":
            return _info(args.json)
        if args.command in integration.COMMANDS:
            return integration.run(parser, args)
        if args.command == "recipes":
            from nfstune.cli.recipe_list import recipes_command

            return recipes_command(args.json)
        if args.command == "lab":
            return _lab(args)
        if args.command == "demo":
            return _demo(args)
        if args.command == "apply":
            from nfstune.cli.apply import apply_command

            return apply_command(args, Printer())
        if args.command in ("history", "report"):
            from nfstune.cli import sessions

            return sessions.history(args.json) if args.command == "history" else sessions.report(args)
        if args.command == "run":
            from nfstune.cli import run as cli_run

            with others_to_stderr(args.html):  # `--html -`: the page alone on standard output
                return cli_run.run(args, Printer())
        if args.command in ("gui", "lab-window", None):
            display.check()  # before Qt: without a display, Qt aborts the process when the application starts
        if args.command == "gui" or args.command is None:
            from nfstune.ui.app import run_main_window

            return int(run_main_window(lab=getattr(args, "lab", False), scale=getattr(args, "scale", None)))
        from nfstune.ui.app import run_lab_window

        return int(run_lab_window(_lab_config()))
    except OutputError:
        raise  # main's to say, once what is still buffered has been tried
    except NfstuneError as exc:
        return _explained(exc)
    except KeyboardInterrupt:
        print("\nnfstune: interrupted", file=sys.stderr)
        return exits.INTERRUPTED
    except Exception as exc:
        if exits.reader_gone(exc):
            raise  # `| head -1`: main ends quietly
        import sqlite3  # loaded already if exc is one of its errors

        if isinstance(exc, sqlite3.Error):
            from nfstune.store import default_path, failure

            # the results database locked by another program, made read-only, on a full disk, ...: at any
            # statement of any command, not only while it is opened
            problem = failure(exc, default_path())
            if problem is not None:
                return _explained(problem)
        traceback.print_exc()
        print(
            f"\nnfstune {__version__}: this is a bug in nfstune; please report it with the text above.", file=sys.stderr
        )
        return exits.BUG
