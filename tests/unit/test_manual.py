"""`nfstune manpage` as a packager reads it: groff and man render it without a warning and within 80 columns, with the
sections a manual page has (FILES, ENVIRONMENT, EXAMPLES, SEE ALSO among them); every command and option of the
parser is there; its exit statuses are --help's; its FILES cover every folder and file the code uses, under the XDG
variable each follows; its ENVIRONMENT names every variable the code reads; its examples parse."""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from nfstune import logs, paths
from nfstune.cli import desktop_entry, exits, integration, watch
from nfstune.cli.main import main
from nfstune.cli.parser import build_parser
from tests.unit.test_manual_and_completion import commands

APP = Path(__file__).resolve().parents[2] / "app" / "nfstune"
SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES"]
SECTIONS += ["EXAMPLES", "SEE ALSO"]
XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("man") / "nfstune.1"
    out.write_text(integration.manpage(build_parser()))  # what `nfstune manpage` prints
    return out


def plain(rendered: str) -> str:
    """groff's terminal output without its overstriking (bold, underline)."""
    return re.sub(".\b", "", rendered)


def groff(page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["groff", "-man", "-Tutf8", "-ww", str(page)], capture_output=True, text=True, check=True)


def test_groff_renders_it_without_a_warning_within_80_columns(page: Path) -> None:
    done = groff(page)
    assert done.stderr == ""
    text = plain(done.stdout)
    long = [line for line in text.splitlines() if len(line) > 80]
    assert long == []
    headings = re.findall(r"^([A-Z][A-Z ]+)$", text, re.MULTILINE)
    assert headings == SECTIONS
    assert "nfstune - measure NFS export and mount options" in text


@pytest.mark.skipif(shutil.which("man") is None, reason="needs man (make test installs man-db)")
def test_man_at_80_columns_shows_every_line_whole(page: Path) -> None:
    env = os.environ | {"MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0", "LC_ALL": "C.UTF-8"}
    done = subprocess.run(["man", "-l", str(page)], capture_output=True, text=True, env=env, check=True)
    assert done.stderr == ""
    long = [line for line in plain(done.stdout).splitlines() if len(line) > 80]
    assert long == [] and "\nEXIT STATUS\n" in plain(done.stdout)


def test_every_command_and_option_is_in_its_section(page: Path) -> None:
    source = page.read_text().replace("\\-", "-")
    sections: dict[str, str] = {}
    for part in source.split("\n.SS ")[1:]:
        heading, _, body = part.partition("\n")
        sections[heading.strip('"').removeprefix("nfstune ")] = body.split("\n.SH ")[0]
    top = source.split("\n.SH OPTIONS\n")[1].split("\n.SH ")[0]
    for path, options in commands(build_parser()).items():
        body = sections[" ".join(path)] if path else top
        for option in set(options) - {"-h", "--help"}:
            assert f"\\fB{option}\\fR" in body, (path, option)
    assert len(sections) == len(commands(build_parser())) - 1


def test_the_exit_statuses_are_the_ones_help_prints(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = capsys.readouterr().out
    epilog = " ".join(help_text.split("exit status:\n", 1)[1].split())
    rendered = plain(groff(page).stdout)
    shown = " ".join(rendered.split("\nEXIT STATUS\n", 1)[1].split("\nENVIRONMENT\n")[0].split())
    assert exits.STATUSES and all(f"{status} {meaning}" in epilog for status, meaning in exits.STATUSES)
    for status, meaning in exits.STATUSES:
        assert f"{status} {meaning.replace('`', '')}" in shown
    assert shown.endswith(exits.GUI_STATUS)
    # the SIGPIPE one, worded alike in both (issue 42)
    assert "141 the program reading the output stopped reading (`nfstune history | head -1`)" in epilog


def code_locations(home: Path) -> list[Path]:
    """Every folder and file of this computer the code keeps something in, asked of the code itself."""
    from nfstune.lab.config import LabConfig
    from nfstune.recipes.loader import default_recipe_dirs
    from nfstune.store import default_path

    config = watch.config_home()
    data = desktop_entry.data_home()
    lab = LabConfig()
    found = [
        paths.config_dir(),
        paths.settings_file(),
        paths.data_dir(),
        paths.cache_dir(),
        paths.state_dir(),
        paths.log_dir(),
        logs.log_dir(),
        paths.known_hosts(),
        default_path(),
        default_recipe_dirs()[1],
        watch.watches_dir(config),
        watch.places(config, "nfstune-watch-x").record,
        watch.unit_dir(config) / "nfstune-watch-x.timer",
        watch.watch_log("nfstune-watch-x"),
        lab.state_dir,
        lab.cache_dir,
        desktop_entry.record_path(data),
        paths.cache_dir() / "help",
        paths.data_dir() / "demo-report.html",
    ]
    found += [path for path, _ in desktop_entry.entry_files(data, home / "bin" / "nfstune")]
    assert all(p.is_relative_to(home) for p in found), found
    return found


def covered(location: Path, env: dict[str, str]) -> bool:
    from nfstune.cli import manual

    for base, below, _ in manual.FILES:
        pattern = env[base] + "/" + below
        if fnmatch.fnmatchcase(str(location), pattern.rstrip("/")):
            return True
        if below.endswith("/") and str(location).startswith(pattern):
            return True
    # a folder that holds listed ones (~/.config/nfstune)
    return any((env[base] + "/" + below).startswith(f"{location}/") for base, below, _ in manual.FILES)


@pytest.mark.parametrize("xdg_set", [False, True])
def test_files_covers_every_place_the_code_uses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg_set: bool) -> None:
    from nfstune.cli import manual

    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("NFSTUNE_LOG_DIR", raising=False)
    env = {base: str(home / default.removeprefix("~/")) for base, default in manual.XDG_DEFAULTS.items()}
    for base in XDG:
        if xdg_set:  # each variable somewhere else: each place must follow its own
            env[base] = str(home / base.lower())
            monkeypatch.setenv(base, env[base])
        else:
            monkeypatch.delenv(base, raising=False)
    missing = [str(p) for p in code_locations(home) if not covered(p, env)]
    assert missing == []


def test_environment_names_every_variable_the_code_reads(page: Path) -> None:
    read = set()
    for source in APP.rglob("*.py"):
        found = re.findall(r"\b(?:environ|env)\.get\(\s*\"([A-Z][A-Z0-9_]+)\"", source.read_text())
        found += re.findall(r"\benviron\[\s*\"([A-Z][A-Z0-9_]+)\"\]", source.read_text())
        read.update(found)
    read.add(logs.LOG_DIR_ENV)
    read -= {"HOME"}
    source = page.read_text().replace("\\-", "-")
    environment = source.split("\n.SH ENVIRONMENT\n")[1].split("\n.SH ")[0]
    named = set(re.findall(r"\\fB([A-Z][A-Z0-9_]+)\\fR", environment))
    assert {"QT_QPA_PLATFORM", "DISPLAY", "XDG_CONFIG_HOME", "NFSTUNE_LOG_DIR"} <= read
    assert read - named == set()


def test_each_example_is_a_command_the_parser_takes(page: Path) -> None:
    source = page.read_text().split("\n.SH EXAMPLES\n")[1].split("\n.SH ")[0]
    blocks = re.findall(r"\n\.nf\n(.*?)\n\.fi", source, re.DOTALL)
    lines = [
        line.replace("\\-", "-")
        for block in blocks
        for line in block.replace("\\e\n", " ").replace("\\e", "\\").splitlines()
    ]
    assert len(lines) >= 8
    for line in lines:
        command = shlex.split(line.split(" | ")[0])
        assert command[0] == "nfstune"
        build_parser().parse_args(command[1:])  # exits 2 on a mistake


def test_see_also_names_the_pages_an_nfs_admin_reads(page: Path) -> None:
    rendered = plain(groff(page).stdout)
    see_also = rendered.split("\nSEE ALSO\n")[1]
    for name in ("ssh_config(5)", "exports(5)", "nfs(5)", "fio(1)"):
        assert name in see_also
