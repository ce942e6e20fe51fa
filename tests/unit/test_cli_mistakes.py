"""The mistakes a new user makes on the command line, as they make them (the real `nfstune` in a subprocess, with
state folders of its own): each is exit 2 with the usage of the command it belongs to and a message that names
the mistake and what to give instead; and where the recipe ids are listed, and the user's recipe that replaces a
shipped one, said where recipes are shown."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nfstune.cli.parser import build_parser

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (REPO / "recipes").glob("*.toml"))


def nfstune(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "COLUMNS": "120",
    }
    command = [sys.executable, "-m", "nfstune", *args]
    return subprocess.run(command, capture_output=True, text=True, env=environ | env, timeout=60)


def refused(result: subprocess.CompletedProcess[str], command: str) -> str:
    """The error's text, once it is certain to be exit 2 with `command`'s usage (not nfstune's own) first."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert result.stderr.startswith(f"usage: nfstune {command} "), result.stderr
    assert "Traceback" not in result.stderr
    prefix = f"nfstune {command}: error: "
    assert prefix in result.stderr, result.stderr
    return result.stderr.split(prefix, 1)[1]


def leaf_commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += leaf_commands(child, (*path, name))
    return found or [path]


def every_action(parser: argparse.ArgumentParser, path: str = "nfstune") -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        found.append((path, action))
        if isinstance(action, argparse._SubParsersAction):
            found += [(path, choice) for choice in action._choices_actions]  # each command's line in --help
            for name, child in action.choices.items():
                found += every_action(child, f"{path} {name}")
    return found


def test_every_command_option_and_argument_has_its_help() -> None:
    without = [
        f"{path}: {'/'.join(a.option_strings) or a.dest}" for path, a in every_action(build_parser()) if not a.help
    ]
    assert without == []


def test_run_help_says_where_the_recipe_ids_are_and_they_are_listed_there(tmp_path: Path) -> None:
    helped = nfstune(tmp_path, "run", "--help").stdout
    options = " ".join(helped.split("\noptions:\n", 1)[1].split())
    recipe_help = options.split("--recipe RECIPE ", 1)[1].split(" --scale ", 1)[0]
    assert "`nfstune recipes` lists them" in recipe_help and "nfstune info" not in recipe_help
    assert nfstune(tmp_path, "recipes", "--ids").stdout.split() == SHIPPED
    table = nfstune(tmp_path, "recipes").stdout
    assert all(re.search(rf"^{name} ", table, re.MULTILINE) for name in SHIPPED)
    info = nfstune(tmp_path, "info").stdout
    assert re.search(r"^recipes +" + re.escape(", ".join(SHIPPED)) + "$", info, re.MULTILINE), info
    assert json.loads(nfstune(tmp_path, "info", "--json").stdout)["recipes"] == SHIPPED


@pytest.mark.parametrize("given", ["quick-check.toml", "Quick-Check", "QUICK-CHECK.toml"])
def test_a_recipe_named_by_its_file_or_in_capitals_is_that_recipe(tmp_path: Path, given: str) -> None:
    result = nfstune(tmp_path, "run", "--lab", "--recipe", given, "--dry-run")
    assert result.returncode == 0, result.stderr
    assert re.search(r"^quick-check\b", result.stdout, re.MULTILINE), result.stdout


@pytest.mark.parametrize(("given", "meant"), [("quick-chek", "quick-check"), ("Quik-Check", "quick-check")])
def test_a_misspelt_recipe_gets_the_one_meant_and_does_not_run(tmp_path: Path, given: str, meant: str) -> None:
    said = refused(nfstune(tmp_path, "run", "--lab", "--recipe", given, "--dry-run"), "run")
    assert said.startswith(f"unknown recipe {given}; did you mean {meant}?")
    assert "nfstune recipes" in said


def test_a_recipe_like_none_lists_them_all(tmp_path: Path) -> None:
    said = refused(nfstune(tmp_path, "run", "--lab", "--recipe", "zzz", "--dry-run"), "run")
    assert said.startswith("unknown recipe zzz") and all(name in said for name in SHIPPED)


def test_an_unknown_option_is_said_before_what_is_then_missing(tmp_path: Path) -> None:
    args = ["--sever", "nas", "--client", "c.invalid", "--share", "/srv", "--recipe", "quick-check"]
    said = refused(nfstune(tmp_path, "run", *args), "run")
    assert said.startswith("unknown option --sever; did you mean --server?"), said
    assert "required" not in said


def command_parser(path: list[str]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        chooser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = chooser.choices[name]
    return parser


@pytest.mark.parametrize("command", [" ".join(path) for path in leaf_commands(build_parser())])
def test_every_command_names_an_unknown_option_with_its_own_usage(tmp_path: Path, command: str) -> None:
    said = refused(nfstune(tmp_path, *command.split(), "--sever", "x"), command)
    assert said.startswith("unknown option --sever"), said
    if "--server" in command_parser(command.split())._option_string_actions:
        assert said.startswith("unknown option --sever; did you mean --server?"), said


def test_a_command_option_before_the_command_is_said_so(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "--sever", "nas", "run")
    assert result.returncode == 2 and result.stderr.startswith("usage: nfstune [-h]")
    said = result.stderr.split("nfstune: error: ", 1)[1]
    assert "did you mean --server?" in said and "goes after the command" in said and "run" in said


def test_a_word_left_over_is_said_with_its_command_usage(tmp_path: Path) -> None:
    assert refused(nfstune(tmp_path, "info", "extra"), "info").startswith("unexpected argument: extra")


@pytest.mark.parametrize(
    ("args", "command", "wanted"),
    [
        (["run", "--server", "nas.invalid", "--share", "/srv", "--recipe", "quick-check"], "run", ["--client HOST"]),
        (
            ["run", "--server", "nas.invalid", "--client", "c.invalid", "--recipe", "quick-check"],
            "run",
            ["--share PATH"],
        ),
        (["run", "--server", "nas.invalid", "--recipe", "quick-check"], "run", ["--client HOST", "--share PATH"]),
        (
            ["run", "--client", "c.invalid", "--share", "/srv", "--recipe", "quick-check"],
            "run",
            ["--lab", "--server HOST"],
        ),
        (["run", "--lab"], "run", ["--recipe RECIPE"]),
        (["apply", "3", "--server", "nas.invalid"], "apply", ["--client HOST"]),
        (["apply", "3", "--client", "c.invalid"], "apply", ["--lab", "--server HOST"]),
        (["check", "3", "--server", "nas.invalid"], "check", ["--client HOST"]),
        (["watch", "--install", "--server", "nas.invalid", "--client", "c.invalid"], "watch", ["--share PATH"]),
        (["desktop-entry"], "desktop-entry", ["--install", "--uninstall"]),
    ],
)
def test_a_missing_option_is_named_with_what_it_wants_under_its_command_usage(
    tmp_path: Path, args: list[str], command: str, wanted: list[str]
) -> None:
    said = refused(nfstune(tmp_path, *args), command)
    assert "required" not in said
    for form in wanted:
        # the option as it is given, then what it is, on its own line
        line = next((line for line in said.splitlines() if line.strip().startswith(form + " ")), None)
        assert line is not None, (form, said)
        assert len(line.split(form, 1)[1].strip().split()) >= 3, line  # words saying what it wants
    assert re.search(r"; add (it|them|one):\n", said), said
    assert not any((tmp_path / name).exists() for name in ("state", "data", "cache"))


def test_an_unknown_qt_platform_is_exit_2_naming_the_variable_and_the_platforms_qt_has(tmp_path: Path) -> None:
    import PySide6

    plugins = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms"
    shipped = sorted(re.sub(r"^libq(.+)\.so$", r"\1", p.name) for p in plugins.glob("libq*.so"))
    assert "xcb" in shipped and "offscreen" in shipped
    env = {"QT_QPA_PLATFORM": "foo", "DISPLAY": ":63", "WAYLAND_DISPLAY": ""}
    for args in ([], ["gui"]):
        result = nfstune(tmp_path, *args, **env)
        assert result.returncode == 2, (result.returncode, result.stderr)
        said = result.stderr
        assert "QT_QPA_PLATFORM is 'foo'" in said and "Traceback" not in said
        assert f"(it has {', '.join(shipped)})" in said


def test_a_platform_list_with_one_qt_has_is_left_to_qt() -> None:
    from nfstune.cli import display

    assert display.check({"QT_QPA_PLATFORM": "foo;offscreen"}) is None


def test_a_user_recipe_that_replaces_a_shipped_one_is_said_wherever_recipes_are_shown(tmp_path: Path) -> None:
    mine = tmp_path / "data" / "nfstune" / "recipes"
    mine.mkdir(parents=True)
    shipped = REPO / "recipes" / "quick-check.toml"
    text = shipped.read_text()
    (mine / "quick-check.toml").write_text(re.sub(r'(?m)^title = ".*"$', 'title = "My quick check"', text, count=1))
    (mine / "my-check.toml").write_text(re.sub(r'(?m)^id = ".*"$', 'id = "my-check"', text, count=1))

    table = nfstune(tmp_path, "recipes").stdout
    assert re.search(r"^quick-check\* +My quick check ", table, re.MULTILINE), table
    assert re.search(r"^my-check +", table, re.MULTILINE), table  # the user's own id replaces nothing
    note = table.split("\n* ", 1)[1]
    assert note.startswith("yours, replaces the shipped one")
    assert str(mine / "quick-check.toml") in note and str(shipped) in note and "my-check" not in note

    rows = {r["id"]: r for r in json.loads(nfstune(tmp_path, "recipes", "--json").stdout)}
    assert rows["quick-check"]["replaces"] == str(shipped) and rows["my-check"]["replaces"] is None

    info = nfstune(tmp_path, "info").stdout
    assert f"quick-check: yours, replaces the shipped one: {mine / 'quick-check.toml'}" in info
    assert str(shipped) in info
    listed = json.loads(nfstune(tmp_path, "info", "--json").stdout)
    assert {r["id"]: r["replaces"] for r in listed["user_recipes"]} == {"my-check": None, "quick-check": str(shipped)}

    planned = nfstune(tmp_path, "run", "--lab", "--recipe", "quick-check", "--dry-run")
    assert planned.returncode == 0, planned.stderr
    assert f"warning: quick-check is yours ({mine / 'quick-check.toml'}): it replaces the shipped one" in planned.stdout
