"""`nfstune watch`: a first look on one pair every day, week or month, by a systemd user timer, and what the trend of
those first looks says (results/watch.py).

--install writes the watch's service and timer under $XDG_CONFIG_HOME/systemd/user (cli/watch_units.py) through a
record of them (cli/file_record.py, as desktop-entry does), then asks systemd --user to read them and start the
timer; where no user manager answers (a container, a login without one) it says what to run. --uninstall stops the
timer and takes out what the record lists. --status lists the watches, each pair's last run (from the store) and
any regression still open. --notify is what the service runs after each first look.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from nfstune import paths
from nfstune.cli import file_record
from nfstune.cli.desktop_entry import nfstune_command
from nfstune.cli.watch_notify import notify
from nfstune.cli.watch_units import PREFIX, Watch, service_text, timer_text, watch_name
from nfstune.errors import ConfigError

Say = Callable[[str], None]
# runs `systemctl --user` with these arguments; None: no user manager to ask
Systemctl = Callable[[Sequence[str]], subprocess.CompletedProcess[str]] | None


def config_home() -> Path:
    value = os.environ.get("XDG_CONFIG_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".config"


def unit_dir(home: Path) -> Path:
    return home / "systemd" / "user"


def watches_dir(home: Path) -> Path:
    """The watches' descriptions (what --status lists), beside the units."""
    return home / "nfstune" / "watches"


def places(home: Path, name: str) -> file_record.Places:
    record = home / "nfstune" / "watch-records" / f"{name}.json"
    return file_record.Places(base=home, roots=(unit_dir(home), watches_dir(home)), prefix=name, record=record)


def watch_log(name: str) -> Path:
    return paths.state_dir() / "watches" / f"{name}.log"


def _notified_file(name: str) -> Path:
    return paths.state_dir() / "watches" / f"{name}.notified"


# --- the pair, from the arguments `nfstune run` takes ----------------------------------------------------------


def pair_arguments(args: argparse.Namespace) -> list[str]:
    """The host and share arguments, normalised: what names a watch and what its service passes to `nfstune run`."""
    if args.lab:
        return ["--lab"] + (["--share", args.share] if args.share else [])
    argv = ["--server", args.server]
    for client in args.client or ():
        argv += ["--client", client]
    argv += ["--share", args.share]
    if args.server_address:
        argv += ["--server-address", args.server_address]
    if args.no_server_login:
        argv.append("--no-server-login")
    return argv


def describe(args: argparse.Namespace) -> Watch:
    """The watch of the pair the arguments name, with the pair's keys as the store will have them (the hosts'
    user@hostname:port, as SSH resolves them; nothing is connected to)."""
    arguments = pair_arguments(args)
    if args.lab:
        from nfstune.lab import LabConfig

        cfg = LabConfig().as_running()
        server_key = f"root@127.0.0.1:{cfg.port('nas')}"
        client_key = f"root@127.0.0.1:{cfg.port('client')}"
        if args.no_server_login:
            server_key = "nfs@nas"
        share = args.share or "/export"
        text = f"the practice lab: {share}"
    else:
        from nfstune.remote.target import resolve, split_spec

        client = resolve(args.client[0])
        client_key = f"{client.user}@{client.hostname}:{client.port}"
        if args.no_server_login:
            server_key = f"nfs@{args.server_address or split_spec(args.server)[0]}"
        else:
            server = resolve(args.server)
            server_key = f"{server.user}@{server.hostname}:{server.port}"
        share = args.share
        text = f"{args.server} → {args.client[0]}: {share}"
    return Watch(args.every or "weekly", tuple(arguments), text, server_key, client_key, share)


# --- systemd --user ---------------------------------------------------------------------------------------------


def user_systemctl() -> Systemctl:
    """`systemctl --user`, when a user manager answers it; else None."""
    systemctl = shutil.which("systemctl")
    if systemctl is None:
        return None

    def run(argv: Sequence[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([systemctl, "--user", *argv], capture_output=True, text=True, timeout=60, check=False)

    try:
        answered = run(["show-environment"]).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        answered = False
    return run if answered else None


def _systemctl_steps(systemctl: Systemctl, steps: Sequence[Sequence[str]], say: Say, otherwise: str) -> None:
    if systemctl is None:
        say(f"systemd --user did not answer here: {otherwise}")
        for step in steps:
            say(f"    systemctl --user {' '.join(step)}")
        return
    for step in steps:
        done = systemctl(step)
        if done.returncode == 0:
            say(f"ran systemctl --user {' '.join(step)}")
        else:
            say(f"systemctl --user {' '.join(step)} failed ({done.returncode}): {' '.join(done.stderr.split())}")


# --- install, uninstall -----------------------------------------------------------------------------------------


def installed(home: Path) -> list[Watch]:
    """The watches installed under `home`, by name."""
    found = []
    for path in sorted(watches_dir(home).glob(f"{PREFIX}-*.json")):
        try:
            found.append(Watch.from_json(path.read_text()))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ConfigError(f"{path} is not a watch's description nfstune wrote ({exc})") from None
    return found


def install(home: Path, command: Path, watch: Watch, systemctl: Systemctl, say: Say) -> None:
    name = watch.name
    units = unit_dir(home)
    files = [
        (units / f"{name}.service", service_text(command, watch).encode()),
        (units / f"{name}.timer", timer_text(watch).encode()),
        (watches_dir(home) / f"{name}.json", watch.to_json().encode()),
    ]
    file_record.write_files(places(home, name), files, lambda path: say(f"wrote {path}"))
    _systemctl_steps(
        systemctl,
        [["daemon-reload"], ["enable", "--now", f"{name}.timer"]],
        say,
        "to start the watch, run in your session",
    )
    say(
        f"watch {name}: a first look at {watch.text}, {watch.every}; stop it with `nfstune watch --uninstall` and "
        "the same host and share arguments"
    )


def uninstall(home: Path, name: str, systemctl: Systemctl, say: Say) -> bool:
    """Stops the watch's timer and removes its files; False when no such watch was installed."""
    record = file_record.read_record(places(home, name))
    if record is None:
        return False
    if systemctl is not None:
        _systemctl_steps(systemctl, [["disable", "--now", f"{name}.timer"]], say, "")
    link = unit_dir(home) / "timers.target.wants" / f"{name}.timer"
    if link.is_symlink() and Path(os.readlink(link)).name == f"{name}.timer":
        link.unlink()  # `enable` run by hand where systemd --user did not answer us
        say(f"removed {link}")
    removal = file_record.remove_files(places(home, name))
    # folders this watch made that others' files still fill: theirs to remove now
    left = [f for f in record.folders if f.is_dir()]
    others = [w.name for w in installed(home)]
    if left and others:
        file_record.adopt_folders(places(home, others[0]), left)
    for path in removal.removed if removal else ():
        say(f"removed {path}")
    for path in removal.kept if removal else ():
        say(f"left {path}: it was changed after nfstune wrote it")
    _systemctl_steps(systemctl, [["daemon-reload"]], say, "to let systemd forget the watch, run")
    return True


# --- status and the service's notification -----------------------------------------------------------------------


def status_lines(home: Path, store_path: Path | None = None) -> list[str]:
    """Each watch: its pair, how often, its last run and any regression still open."""
    watches = installed(home)
    if not watches:
        return [
            "No watch installed. `nfstune watch --install --every weekly` with the host and share arguments of "
            "`nfstune run` starts one."
        ]
    from nfstune.results.trend import day_text
    from nfstune.results.watch_read import pair_by_key, read_pair
    from nfstune.store import Results, open_store

    conn = open_store(store_path) if store_path else open_store()
    lines = []
    try:
        results = Results(conn)
        for watch in watches:
            lines.append(f"{watch.name}: a first look at {watch.text}, {watch.every}")
            pair = pair_by_key(results, watch.server_key, watch.client_key, watch.share)
            last = results.last_session(pair) if pair else None
            if pair is None or last is None:
                lines.append("    last run: none yet")
                continue
            sid, started, state = last
            lines.append(f"    last run: session {sid}, {day_text(started)} ({state})")
            regression = read_pair(results, pair).regression
            lines.append(f"    open regression: {regression.headline}" if regression else "    no open regression")
    finally:
        conn.close()
    return lines


def notify_command(home: Path, name: str, say: Say, store_path: Path | None = None) -> str | None:
    """After a watched first look: a regression not told yet is told (desktop, else the log); what was done."""
    watch = next((w for w in installed(home) if w.name == name), None)
    if watch is None:
        raise ConfigError(f"no watch named {name} under {watches_dir(home)}")
    from nfstune.results.watch_read import pair_by_key, read_pair
    from nfstune.store import Results, open_store

    conn = open_store(store_path) if store_path else open_store()
    try:
        results = Results(conn)
        pair = pair_by_key(results, watch.server_key, watch.client_key, watch.share)
        regression = read_pair(results, pair).regression if pair else None
    finally:
        conn.close()
    told = _notified_file(name)
    if regression is None:
        told.unlink(missing_ok=True)  # closed: the next one is news again
        say(f"{name}: no open regression")
        return None
    if told.is_file() and told.read_text().strip() == str(regression.session_id):
        say(f"{name}: the regression from session {regression.session_id} was told already")
        return None
    how = notify(f"{watch.text} got slower", regression.headline, watch_log(name))
    told.parent.mkdir(parents=True, exist_ok=True)
    told.write_text(f"{regression.session_id}\n")
    say(f"{name}: {regression.headline} ({how})")
    return how


def watch_command(args: argparse.Namespace) -> int:
    home = config_home()
    if args.status:
        for line in status_lines(home):
            print(line)
        return 0
    if args.notify:
        notify_command(home, args.notify, print)
        return 0
    if args.install:
        install(home, nfstune_command(), describe(args), user_systemctl(), print)
        return 0
    names = [w.name for w in installed(home)] if args.all else [watch_name(pair_arguments(args))]
    if not names:
        print(f"no watch installed under {unit_dir(home)}")
    systemctl = user_systemctl()
    for name in names:
        if not uninstall(home, name, systemctl, print):
            print(f"no watch of these hosts and share is installed ({name})")
    return 0
