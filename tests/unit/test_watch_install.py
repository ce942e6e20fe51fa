"""`nfstune watch --install/--uninstall`: the service and timer under a temporary XDG_CONFIG_HOME as systemd reads
them (systemd-analyze verify, where it is installed), one watch per pair, and --uninstall taking out exactly what
was written. No user manager is asked here: the tests never start a timer on the machine running them."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nfstune.cli import watch
from nfstune.cli.parser import parse
from nfstune.cli.watch_units import Watch, exec_argument, run_argv
from nfstune.errors import ConfigError

# a folder with the characters an Exec line's quoting is about (systemd refuses quotes and backslashes in a
# program's path outright: test_a_program_path_systemd_cannot_start_is_refused)
AWKWARD = "my apps $HOME 100% ;x"
PAIR = ["--server", "admin@nas.example:2200", "--client", "me@desk", "--share", "/srv/data"]


def watch_args(*argv: str) -> argparse.Namespace:
    return parse(["watch", *argv])[1]


def fake_command(folder: Path) -> Path:
    """An executable where the service's `nfstune` is: systemd-analyze checks that ExecStart's program exists."""
    folder.mkdir(parents=True)
    command = folder / "nfstune"
    command.write_text("#!/bin/sh\nexit 0\n")
    command.chmod(0o755)
    return command


def installed(home: Path, command: Path, *argv: str) -> list[str]:
    said: list[str] = []
    watch.install(home, command, watch.describe(watch_args("--install", *argv)), None, said.append)
    return said


def verify(units: list[Path], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """systemd-analyze verify as a user's manager would load them (a runtime folder of its own)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
    return subprocess.run(
        ["systemd-analyze", "--user", "verify", "--man=no", *map(str, units)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_install_writes_a_timer_and_service_that_systemd_reads(tmp_path: Path) -> None:
    home, command = tmp_path / "config", fake_command(tmp_path / AWKWARD)
    said = installed(home, command, "--every", "monthly", *PAIR)
    name = watch.watch_name(PAIR)
    units = home / "systemd" / "user"
    service, timer = units / f"{name}.service", units / f"{name}.timer"
    assert f"wrote {service}" in said and f"wrote {timer}" in said
    # no user manager given: it says what to run instead of running it
    assert "    systemctl --user daemon-reload" in said
    assert f"    systemctl --user enable --now {name}.timer" in said
    timer_lines = timer.read_text().splitlines()
    for line in ("OnCalendar=monthly", "Persistent=true", "RandomizedDelaySec=1h", "WantedBy=timers.target"):
        assert line in timer_lines
    exec_start = next(line for line in service.read_text().splitlines() if line.startswith("ExecStart="))
    assert exec_start.endswith(" run " + " ".join(PAIR) + " --recipe first-look")
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt package systemd): the units were not verified")
    done = verify([timer, service], tmp_path)
    # verify checks ExecStart's program exists: it does only if the awkward folder was quoted as systemd reads it
    assert done.returncode == 0, done.stderr
    # and it does fail a unit it cannot read, so the pass above means something
    timer.write_text(timer.read_text().replace("OnCalendar=monthly", "OnCalendar=every blue moon"))
    assert verify([timer, service], tmp_path).returncode != 0


def test_one_watch_per_pair_and_uninstall_takes_out_what_was_written(tmp_path: Path) -> None:
    home, command = tmp_path / "config", fake_command(tmp_path / "bin")
    home.mkdir()
    (home / "systemd" / "user").mkdir(parents=True)
    other = home / "systemd" / "user" / "someone-elses.timer"
    other.write_text("[Timer]\nOnCalendar=daily\n")
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    installed(home, command, "--every", "daily", *PAIR)
    installed(home, command, "--every", "weekly", *PAIR)  # the same pair again: the one watch changes
    installed(home, command, "--lab")
    assert [(w.name, w.every) for w in watch.installed(home)] == [
        (watch.watch_name(PAIR), "weekly"),
        ("nfstune-watch-lab", "weekly"),  # the default
    ]
    said: list[str] = []
    assert watch.uninstall(home, watch.watch_name(PAIR), None, said.append)
    assert [w.name for w in watch.installed(home)] == ["nfstune-watch-lab"]
    assert not watch.uninstall(home, watch.watch_name(PAIR), None, said.append)  # gone already
    assert watch.uninstall(home, "nfstune-watch-lab", None, said.append)
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before  # someone else's timer stays
    assert other.read_text() == "[Timer]\nOnCalendar=daily\n"


def test_a_unit_changed_by_hand_is_left_and_named(tmp_path: Path) -> None:
    home, command = tmp_path / "config", fake_command(tmp_path / "bin")
    installed(home, command, "--lab")
    timer = home / "systemd" / "user" / "nfstune-watch-lab.timer"
    timer.write_text(timer.read_text().replace("OnCalendar=weekly", "OnCalendar=Mon 03:00"))
    said: list[str] = []
    watch.uninstall(home, "nfstune-watch-lab", None, said.append)
    assert f"left {timer}: it was changed after nfstune wrote it" in said and timer.is_file()


def test_an_enable_by_hand_is_undone_by_uninstall(tmp_path: Path) -> None:
    """Where systemd --user did not answer, the admin ran `enable` from the lines printed: its link goes too."""
    home, command = tmp_path / "config", fake_command(tmp_path / "bin")
    installed(home, command, "--lab")
    wants = home / "systemd" / "user" / "timers.target.wants"
    wants.mkdir()
    (wants / "nfstune-watch-lab.timer").symlink_to(home / "systemd" / "user" / "nfstune-watch-lab.timer")
    watch.uninstall(home, "nfstune-watch-lab", None, lambda _line: None)
    assert list(wants.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--install"], "--install needs the hosts and share"),
        (["--uninstall"], "--uninstall needs the hosts and share of the watch to stop, or --all"),
        (["--uninstall", "--all", "--lab"], "--uninstall needs the hosts and share of the watch to stop, or --all"),
        (["--status", "--every", "daily"], "--every goes with --install"),
        (["--install", "--server", "nas"], "--server needs --client and --share too"),
    ],
)
def test_the_command_line_refuses_what_names_no_watch(
    argv: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(["watch", *argv])
    assert exited.value.code == 2 and error in capsys.readouterr().err


def test_exec_arguments_are_quoted_as_systemd_reads_them() -> None:
    assert exec_argument("/usr/bin/nfstune", program=True) == "/usr/bin/nfstune"
    assert exec_argument("a b") == '"a b"'
    assert exec_argument("100%") == "100%%"  # a specifier otherwise
    assert exec_argument("$HOME") == "$$HOME"  # a variable otherwise
    assert exec_argument("/opt/$x/nfstune", program=True) == "/opt/$x/nfstune"  # the program is not expanded
    assert exec_argument('say "x"\\') == '"say \\"x\\"\\\\"'
    with pytest.raises(ConfigError, match="line break"):
        exec_argument("a\nb")


def test_a_program_path_systemd_cannot_start_is_refused(tmp_path: Path) -> None:
    home, command = tmp_path / "config", fake_command(tmp_path / "it's here")
    with pytest.raises(ConfigError, match=r"systemd cannot start .*a quote or a backslash"):
        installed(home, command, "--lab")
    assert not (home / "systemd").exists()


def test_the_service_runs_the_first_look_as_nfstune_run_takes_it() -> None:
    """The first look the service starts is the command line `run` reads: its arguments parse as `nfstune run`."""
    described = Watch("weekly", tuple(PAIR), "x", "k", "c", "/srv/data")
    argv = run_argv(Path("/usr/bin/nfstune"), described)
    args = parse(argv[1:])[1]
    assert (args.command, args.server, args.client, args.share, args.recipe) == (
        "run",
        "admin@nas.example:2200",
        ["me@desk"],
        "/srv/data",
        ["first-look"],
    )
    assert args.scale == "normal"


def test_a_watch_description_that_is_not_ours_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "nfstune" / "watches"
    folder.mkdir(parents=True)
    (folder / "nfstune-watch-lab.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not a watch's description"):
        watch.installed(tmp_path)
