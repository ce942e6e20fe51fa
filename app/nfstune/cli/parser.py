"""The `nfstune` command line: its commands, options and their help, which `--help`, the manual page and the
completion script are all made from, and the checks of what argparse cannot say alone."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from nfstune import __version__
from nfstune.cli import exits, integration, mistakes
from nfstune.cli.args import (
    check_rounds,
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
from nfstune.cli.output import StandardOutput
from nfstune.lab.config import ALL_VM_NAMES, DEFAULT_RELEASE, RELEASES

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


AS_SSH = "as you would give it to ssh (a host name, user@host[:port] or a Host of ~/.ssh/config)"


def build_parser() -> argparse.ArgumentParser:
    parser = mistakes.Parser(
        prog="nfstune",
        description="A tuning assistant for NFS.",
        epilog=exits.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"nfstune {__version__}")
    sub = parser.add_subparsers(dest="command", help="what to do (without one: open the desktop window)")

    info = sub.add_parser("info", help="versions, where nfstune keeps and finds its files, and the recipe ids")
    info.add_argument("--json", action="store_true", help="as a JSON object, for scripts")
    listing = sub.add_parser(
        "recipes", help="the recipes: what each changes, and how long it takes by its plan at both scales"
    )
    shown = listing.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="as a JSON array")
    shown.add_argument(
        "--ids", action="store_true", help="the ids alone, one a line: what --recipe takes (for scripts and completion)"
    )

    lab = sub.add_parser(
        "lab",
        help="the practice lab (two local VMs)",
        description=LAB_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    lab_sub = lab.add_subparsers(dest="lab_command", required=True, help="what to do with the lab")
    build = lab_sub.add_parser("build", help="build the VM image (cached; rebuilt only when its inputs change)")
    build.add_argument("--force", action="store_true", help="rebuild even if cached")
    build.add_argument("--release", default=DEFAULT_RELEASE, choices=RELEASES, help="the image's Debian release")
    lab_up = lab_sub.add_parser("up", help="boot both VMs and wait until they are ready")
    _add_up_options(lab_up)
    lab_sub.add_parser("down", help="stop both VMs (by their pid files) and drop their per-run disks")
    lab_status = lab_sub.add_parser("status", help="each VM, SSH reachability, nfs-server, profiles in force")
    lab_status.add_argument(
        "--json", action="store_true", help="each VM's state as a JSON object, for scripts (the exit status as without)"
    )
    ssh = lab_sub.add_parser("ssh", help="a shell (or one command) on a lab VM")
    ssh.add_argument("vm", choices=ALL_VM_NAMES, help="the VM to log in to")
    ssh.add_argument(
        "remote_command",
        nargs=argparse.REMAINDER,
        help="a command to run there, as ssh takes it (without one: an interactive shell)",
    )

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
    run.add_argument(
        "--share", type=share_path, metavar="PATH", help="the exported path to test (an absolute path on the server)"
    )
    run.add_argument(
        "--recipe",
        action="append",
        required=True,
        help="the recipe to run, by its id (quick-check, first-look, ...; `nfstune recipes` lists them); "
        "repeat it for more",
    )
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
    _add_watch_parser(sub)
    _add_check_parser(sub)
    past = sub.add_parser("history", help="past sessions")
    past.add_argument("--json", action="store_true", help="the sessions as a JSON array, the latest first")
    rep = sub.add_parser("report", help="export a session: HTML (with plots), CSV, JSON")
    rep.add_argument("session", type=session_id, help="the session's number, as `nfstune history` lists it")
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
    where.add_argument("--server", type=ssh_destination, metavar="HOST", help=f"the NFS server, {AS_SSH}")
    p.add_argument(
        "--client",
        type=ssh_destination,
        action="append",
        metavar="HOST",
        help=f"the NFS client, {AS_SSH}; `run` takes it once per client for a recipe that loads the server from "
        "several clients at once (the first is the one every other recipe uses)",
    )
    p.add_argument(
        "--server-address",
        type=server_address,
        metavar="ADDRESS",
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
        metavar="PATH",
        help="where a new /etc/fstab line mounts the share (default: the recommendation's; an existing entry keeps "
        "its own)",
    )
    ap.add_argument("--yes", action="store_true", help="go on without asking, once the diff is printed")


def _add_watch_parser(sub: Any) -> None:
    from nfstune.cli.watch_units import EVERY

    watch = sub.add_parser(
        "watch",
        help="a first look on one server, client and share every day, week or month (a systemd user timer), and "
        "a desktop notification when it finds them slower",
    )
    action = watch.add_mutually_exclusive_group(required=True)
    action.add_argument("--install", action="store_true", help="install (or change) the watch of these hosts and share")
    action.add_argument(
        "--uninstall", action="store_true", help="stop the watch of these hosts and share (or --all) and remove it"
    )
    action.add_argument("--status", action="store_true", help="the watches, their last run and any open regression")
    action.add_argument(
        "--notify",
        metavar="WATCH",
        help="what a watch's service runs after each first look: a regression not told yet raises a desktop "
        "notification (else it goes to the watch's log and the journal)",
    )
    watch.add_argument("--every", choices=EVERY, help="how often the first look runs (with --install; default weekly)")
    watch.add_argument("--all", action="store_true", help="with --uninstall: every watch")
    where = watch.add_mutually_exclusive_group()
    where.add_argument("--lab", action="store_true", help="the running practice lab")
    where.add_argument("--server", type=ssh_destination, metavar="HOST", help=f"the NFS server, {AS_SSH}")
    watch.add_argument(
        "--client", type=ssh_destination, action="append", metavar="HOST", help=f"the NFS client, {AS_SSH}"
    )
    watch.add_argument("--share", type=share_path, metavar="PATH", help="the exported path, as `run` takes it")
    watch.add_argument("--server-address", type=server_address, help="as `run` takes it")
    watch.add_argument("--no-server-login", action="store_true", help="as `run` takes it")


def _check_watch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    named = args.lab or args.server
    if args.every and not args.install:
        parser.error("--every goes with --install")
    if args.all and not args.uninstall:
        parser.error("--all goes with --uninstall")
    if (args.status or args.notify) and named:
        parser.error("--status and --notify take no host arguments")
    if args.install and not named:
        parser.error("--install needs the hosts and share: --lab, or --server, --client and --share")
    if args.uninstall and bool(named) == args.all:
        parser.error("--uninstall needs the hosts and share of the watch to stop, or --all")
    if args.server and not (args.client and args.share):
        absent = [mistakes.option(parser, name) for name in ("--client", "--share") if not getattr(args, name[2:])]
        parser.error(f"--server needs {mistakes.wants(absent, too=True)}")
    if args.lab and (args.client or args.server_address):
        parser.error("--lab uses the lab's own client and its address")


def _add_check_parser(sub: Any) -> None:
    cp = sub.add_parser(
        "check",
        help="check that an applied recommendation held: verify the settings are in force, measure the workloads "
        "behind it again and compare with the session's figures",
    )
    cp.add_argument("session", type=session_id, help="the session whose applied recommendation to check")
    _add_hosts(cp)
    cp.add_argument(
        "--rounds",
        type=check_rounds,
        default=8,
        help="the most rounds the check measures (default 8; it runs fewer when fewer settle the predicted gain)",
    )
    cp.add_argument("--yes", action="store_true", help="run the check without asking, once its plan is printed")


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
        help="no longer used (the lab link is a Unix socket in the lab's folder since issue 40); accepted so that "
        "older command lines still work",
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


def _check_run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """What argparse cannot say alone about `run`; checked before the results database is opened."""
    if args.lab:
        # --share may name another path on the lab's NAS (preflight checks that it is exported)
        given = [f"--{name.replace('_', '-')}" for name in ("client", "server_address") if getattr(args, name)]
        if given:
            parser.error(f"--lab uses the lab's own client and its address: drop {', '.join(given)}")
    elif not args.client or not args.share:
        absent = [mistakes.option(parser, name) for name in ("--client", "--share") if not getattr(args, name[2:])]
        parser.error(f"--server needs {mistakes.wants(absent, too=True)}")
    twice = [c for i, c in enumerate(args.client or []) if c in args.client[:i]]
    if twice:
        parser.error(f"--client {twice[0]} is given twice: give each client once")
    args.recipe = mistakes.recipe_ids(parser, args.recipe)


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
        parser.error(f"--server needs {mistakes.wants([mistakes.option(parser, '--client')], too=True)}")
    if args.lab and (args.client or args.server_address):
        parser.error("--lab uses the lab's own client and its address")


def _check_check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.client and len(args.client) > 1:
        parser.error("check measures from one client: give --client once")
    if args.server and not args.client:
        parser.error(f"--server needs {mistakes.wants([mistakes.option(parser, '--client')], too=True)}")
    if args.lab and (args.client or args.server_address):
        parser.error("--lab uses the lab's own client and its address")


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    chooser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = chooser.choices[command]
    return found


def parse(argv: Sequence[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The command line read and checked (a bad one exits 2 here), with the parser that read it."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # a subcommand's checks say its usage, not nfstune's
    command = _subparser(parser, args.command) if args.command is not None else parser
    if args.command == "apply":
        _check_apply(command, args)
    if args.command == "check":
        _check_check(command, args)
    if args.command == "report":
        _check_report(command, args)
    if args.command == "watch":
        _check_watch(command, args)
    if args.command == "run":
        _check_run(command, args)
        if args.scale is None:  # the lab's emulated CPUs move a real NAS's sizes far too slowly
            args.scale = "small" if args.lab else "normal"
    return parser, args
