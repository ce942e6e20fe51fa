"""The `nfstune` command as a user runs it (a subprocess, its own state folders)."""

from __future__ import annotations

import getpass
import os
import subprocess
import sys
from pathlib import Path

import pytest


def nfstune(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    return subprocess.run([sys.executable, "-m", "nfstune", *args], capture_output=True, text=True, env=env, timeout=60)


def test_version(tmp_path: Path) -> None:
    from nfstune import __version__

    assert nfstune(tmp_path, "--version").stdout.strip() == f"nfstune {__version__}"


def test_status_when_the_lab_is_down(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "lab", "status")
    assert result.returncode == 3
    rows = result.stdout.splitlines()[1:]
    assert [r.split()[0] for r in rows] == ["nas", "client"]
    assert all(r.split()[2] == "down" for r in rows)


def test_stale_pid_file_is_not_taken_for_a_running_vm(tmp_path: Path) -> None:
    lab_state = tmp_path / "state" / "nfstune" / "lab"
    lab_state.mkdir(parents=True)
    (lab_state / "nas.pid").write_text(f"{os.getpid()}\n")  # alive, but not our qemu
    (lab_state / "client.pid").write_text("999999999\n")  # gone
    assert "down" in nfstune(tmp_path, "lab", "status").stdout.splitlines()[1]
    result = nfstune(tmp_path, "lab", "down")
    assert result.returncode == 0 and "stale pid file" in result.stdout
    assert not list(lab_state.glob("*.pid"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nas-port", "80"], "nas port 80 is out of range"),
        (["--nas-port", "4000", "--client-port", "4000"], "ports must differ"),
        (["--memory", "64"], "too little memory"),
        # client2 would take the NAS's port
        (["--clients", "2", "--client-port", "4000", "--nas-port", "4001"], "ports must differ"),
    ],
)
def test_bad_input_is_a_clear_error_and_changes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    result = nfstune(tmp_path, "lab", "up", *args)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("nfstune: error:") and message in result.stderr
    assert not (tmp_path / "state").exists() and not (tmp_path / "cache").exists()


def test_unknown_profile_is_refused_by_the_parser(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "lab", "up", "--link", "10gbit")
    assert result.returncode == 2 and "invalid choice: '10gbit'" in result.stderr


def test_lab_help_states_the_limits(tmp_path: Path) -> None:
    text = nfstune(tmp_path, "lab", "--help").stdout
    assert "emulated" in text and "12 MB/s" in text and "98.6 % of that" in text
    for name in ("hdd", "ssd", "100mbit", "50mbit", "20mbit"):
        assert name in text


def test_history_and_report_from_a_terminal_without_display(tmp_path: Path) -> None:
    from nfstune.store import Results, open_store

    results = Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    run = results.start_run(sid, recipe="sync-vs-async", config_label="sync", config={}, workload="seq-write")
    for i, mbs in enumerate([10.0, 11.0, 10.5]):
        results.add_repeat(
            run, i, warmup=False, values={"tool": "fio", "bytes": 8 << 20, "seconds": 0.8, "mb_per_s": mbs}
        )
    results.end_session(sid, "completed")
    env_cut = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    listing = nfstune(tmp_path, "history")
    assert listing.returncode == 0 and "completed" in listing.stdout and "/export" in listing.stdout
    out = tmp_path / "r.html"
    result = subprocess.run(
        [sys.executable, "-m", "nfstune", "report", str(sid), "--html", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env_cut | {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    assert result.returncode == 0, result.stderr
    assert out.read_text().count("<svg xmlns") == 1  # the workload's chart, drawn without a display
    missing = nfstune(tmp_path, "report", "999")
    assert missing.returncode == 2 and "there is no session 999" in missing.stderr


# --- bad arguments stop before anything is created or contacted ---------------------------------------------------

# names that no resolver answers (RFC 2606 .invalid): they appear only as text, nothing is contacted
REMOTE = ["--server", "nas.invalid", "--client", "client.invalid", "--recipe", "quick-check"]


def nothing_created(tmp_path: Path) -> bool:
    return not any((tmp_path / name).exists() for name in ("state", "data", "cache"))


@pytest.mark.parametrize(
    ("args", "argument", "message"),
    [
        (["--share", "relative/path"], "--share", "'relative/path': a share path must be absolute"),
        (["--share", "/srv/a\nb"], "--share", "a share path cannot contain an unprintable character (U+000A)"),
        (["--share", "/srv", "--server-address", "x y"], "--server-address", "'x y' is not a host name"),
        (["--share", "/srv", "--server-address", "[2001:db8::1"], "--server-address", "is not a host name"),
        (["--share", "/srv", "--server-address", "[nas]"], "--server-address", "not an IPv6 address in brackets"),
        (["--share", "/srv", "--html", "/nonexistent/dir/x.html"], "--html", "the folder /nonexistent/dir does not"),
    ],
)
def test_run_refuses_a_bad_argument_before_anything(
    tmp_path: Path, args: list[str], argument: str, message: str
) -> None:
    result = nfstune(tmp_path, "run", *REMOTE, *args)
    assert result.returncode == 2, result.stderr
    assert f"error: argument {argument}: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr
    assert nothing_created(tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server", "nas.invalid", "--recipe", "quick-check"], "--server needs --client and --share too"),
        (["--lab", "--client", "c", "--recipe", "quick-check"], "--lab uses the lab's own client and its address"),
        (
            [
                "--server",
                "nas.invalid",
                "--client",
                "a.invalid",
                "--client",
                "b.invalid",
                "--client",
                "a.invalid",
                "--share",
                "/srv",
                "--recipe",
                "many-clients",
            ],
            "--client a.invalid is given twice: give each client once",
        ),
    ],
)
def test_run_refuses_a_missing_or_ignored_argument_before_anything(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = nfstune(tmp_path, "run", *args)
    assert result.returncode == 2 and message in result.stderr
    assert nothing_created(tmp_path)


@pytest.mark.parametrize(
    "address", ["nas.example.org", "nas", "10.99.0.1", "2001:db8::1", "[2001:db8::1]", "fe80::1%eth0"]
)
def test_server_addresses_that_are_accepted(address: str) -> None:
    from nfstune.cli.parser import build_parser

    args = build_parser().parse_args(["run", *REMOTE, "--share", "/srv", "--server-address", address])
    assert args.server_address == address.strip("[]")  # the brackets are written back where a mount needs them


def test_a_session_number_beyond_the_database_is_no_session(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "report", "99999999999999999999999")
    assert result.returncode == 2 and "there is no session 99999999999999999999999" in result.stderr
    assert "Traceback" not in result.stderr and nothing_created(tmp_path)


@pytest.fixture
def one_session(tmp_path: Path) -> int:
    from nfstune.store import Results, open_store

    results = Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    results.end_session(sid, "completed")
    return sid


@pytest.mark.parametrize(
    ("option", "target", "message"),
    [
        ("--html", "/nonexistent/dir/x.html", "the folder /nonexistent/dir does not exist"),
        ("--csv", "{tmp}", "is a folder: give a file name in it"),
        ("--json", "{tmp}/missing/x.json", "/missing does not exist"),
    ],
)
def test_report_checks_its_output_paths_first(
    tmp_path: Path, one_session: int, option: str, target: str, message: str
) -> None:
    result = nfstune(
        tmp_path, "report", str(one_session), "--json", str(tmp_path / "ok.json"), option, target.format(tmp=tmp_path)
    )
    assert result.returncode == 2 and f"error: argument {option}: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "ok.json").exists()  # nothing written when one output is wrong


def test_broken_user_recipes_are_warnings_and_the_run_goes_on(tmp_path: Path) -> None:
    user = tmp_path / "data" / "nfstune" / "recipes"
    user.mkdir(parents=True)
    (user / "huge.toml").write_text(f'id = "huge"\n[repeats]\nmin = {"7" * 5000}\n')
    (user / "broken.toml").write_text('id = "broken"\ntitle = [\n')
    (user / "latin1.toml").write_bytes(b'id = "caf\xe9"\n')
    result = nfstune(tmp_path, "run", *REMOTE[:4], "--share", "/srv", "--recipe", "no-such-recipe")
    assert result.returncode == 2, result.stderr
    assert "unknown recipe no-such-recipe" in result.stderr and "Traceback" not in result.stderr
    # beside the error, for one of them may be the recipe meant
    assert f"warning: {user / 'huge.toml'}:3: repeats.min: an integer beyond TOML's range" in result.stderr
    assert f"warning: {user / 'broken.toml'}:" in result.stderr
    assert f"warning: {user / 'latin1.toml'}:1: not UTF-8 text" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--timeout", "nan"],
        ["--timeout", "inf"],
        ["--timeout", "-5"],
        ["--timeout", "0"],
        ["--memory", "10" + "0" * 9],
        ["--clients", "0"],
        ["--clients", "5"],
        ["--clients", "two"],
    ],
)
def test_lab_up_refuses_a_limit_it_could_only_fail_on_after_building(args: list[str]) -> None:
    from nfstune.cli.parser import build_parser

    with pytest.raises(SystemExit) as stop:  # parsing only: nothing is built or started
        build_parser().parse_args(["lab", "up", *args])
    assert stop.value.code == 2


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ("nas name", "'nas name': a host name cannot contain a blank"),
        ("nas:" + "2" * 5000, "the port after ':' must be a number from 1 to 65535"),
        ("nas:\u00b2", "the port after ':' must be a number from 1 to 65535"),  # isdigit() holds; int() refuses
        ("nas:99999", "the port after ':' must be a number from 1 to 65535"),
    ],
)
def test_run_refuses_a_host_ssh_could_not_take(tmp_path: Path, server: str, message: str) -> None:
    result = nfstune(tmp_path, "run", "--server", server, *REMOTE[2:], "--share", "/srv")
    assert result.returncode == 2 and "error: argument --server: " in result.stderr and message in result.stderr
    assert "Traceback" not in result.stderr and nothing_created(tmp_path)


def test_a_host_that_cannot_be_reached_is_said_in_plain_words_then_the_details(tmp_path: Path) -> None:
    from tests.conftest import free_port

    closed = free_port()  # on loopback: nothing leaves this machine
    result = nfstune(
        tmp_path,
        "run",
        "--server",
        f"127.0.0.1:{closed}",
        "--client",
        "client.invalid",
        "--share",
        "/srv",
        "--recipe",
        "quick-check",
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    error, details = result.stderr.strip().splitlines()[-2:]
    assert error == (
        f"nfstune: error: server {getpass.getuser()}@127.0.0.1:{closed} refused the connection: nothing listens on "
        f"port {closed} there. Check that sshd runs on that host (systemctl status ssh), that it listens on port "
        f"{closed} (the port given here or in ~/.ssh/config), and that no firewall rejects the connection."
    )
    assert details == f"  details: 127.0.0.1 port {closed}: ConnectionRefusedError: [Errno 111] Connection refused"


def test_dry_run_prints_the_interleaved_plan_and_touches_no_host(tmp_path: Path) -> None:
    # the lab is not up here, and nas.invalid resolves nowhere: a dry run that connected would fail
    result = nfstune(tmp_path, "run", "--lab", "--recipe", "quick-check", "--scale", "small", "--dry-run")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    orders = [line.split(": ", 1)[1].split(", ") for line in out.splitlines() if line.startswith("  round ")]
    assert len(orders) >= 3
    assert all(sorted(o) == sorted(["baseline", "async", "no_wdelay", "rsize=128K", "vers=3"]) for o in orders[:3])
    assert orders[0] != orders[1] != orders[2]
    assert "  warm-up: baseline (not counted)" in out
    assert "sudo mount -t nfs -o nosharecache,vers=3 nas:/export /mnt/nfstune/" in out
    assert "server$ sudo sh -c 'exportfs -ra && exportfs -f'" in out  # the undo of an export change
    assert "fio assumed on the client" in out and "no host was contacted" in out
    assert nothing_created(tmp_path)
    remote = nfstune(tmp_path, "run", *REMOTE, "--share", "/srv/nfs", "--scale", "small", "--dry-run")
    assert remote.returncode == 0, remote.stderr
    assert "nas.invalid:/srv/nfs /mnt/nfstune/" in remote.stdout and nothing_created(tmp_path)


def test_the_scale_defaults_to_the_quick_setting_on_the_lab_only(tmp_path: Path) -> None:
    lab = nfstune(tmp_path, "run", "--lab", "--recipe", "quick-check", "--dry-run")
    assert lab.returncode == 0, lab.stderr
    assert "\n\nPlan: scale small," in lab.stdout  # after the hosts
    remote = nfstune(tmp_path, "run", *REMOTE, "--share", "/srv/nfs", "--dry-run")
    assert remote.returncode == 0, remote.stderr
    assert "\n\nPlan: scale normal," in remote.stdout


def test_the_time_left_says_the_most_it_can_take() -> None:
    from nfstune.cli.run import eta_text

    assert eta_text(7 * 60, 13 * 60) == "about 7 min left, at most 13"
    assert eta_text(7 * 60, 7 * 60 + 10) == "about 7 min left"  # the same minute: said once
    assert eta_text(7 * 60, None) == "about 7 min left"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--lab"], "give a session to apply, or --undo (not both)"),
        (["3", "--undo", "--lab"], "give a session to apply, or --undo (not both)"),
        (["3", "--server", "nas.invalid"], "--server needs --client too"),
        (
            ["3", "--server", "nas.invalid", "--client", "a.invalid", "--client", "b.invalid"],
            "apply writes one client's /etc/fstab: give --client once",
        ),
        (["3", "--lab", "--mount-point", "mnt/nas"], "--mount-point: 'mnt/nas' is not an absolute path below /"),
        (["3", "--lab", "--mount-point", "/"], "argument --mount-point: '/' is not an absolute path below /"),
        (["x", "--lab"], "'x' is not a session number"),
    ],
)
def test_apply_refuses_bad_arguments_before_anything(tmp_path: Path, args: list[str], message: str) -> None:
    result = nfstune(tmp_path, "apply", *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert nothing_created(tmp_path)


def test_apply_of_a_session_that_does_not_exist_contacts_no_host(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "apply", "41", "--server", "nas.invalid", "--client", "client.invalid")
    assert result.returncode == 2 and "there is no session 41" in result.stderr, result.stderr


def test_a_results_folder_that_is_a_dangling_symlink_is_exit_2_with_the_link_named(tmp_path: Path) -> None:
    """The data folder on a disk that is not mounted: a clear error, not a traceback and "this is a bug"."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "nfstune").symlink_to(tmp_path / "unmounted" / "nfstune")
    result = nfstune(tmp_path, "history")
    assert result.returncode == 2, result.stdout + result.stderr
    said = result.stdout + result.stderr
    assert f"{tmp_path / 'data' / 'nfstune'} is a symbolic link to {tmp_path / 'unmounted' / 'nfstune'}" in said
    assert "Traceback" not in said and "bug" not in said
    assert not (tmp_path / "unmounted").exists()
