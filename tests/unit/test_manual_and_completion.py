"""`nfstune manpage` and `nfstune completion bash`, made from the parser when asked: bash completes with the script
(the manual page: tests/unit/test_manual.py)."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest

from nfstune.cli.main import main
from nfstune.cli.parser import build_parser


def commands(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], list[str]]:
    """Each command path ((), ('lab',), ('lab', 'up'), ...) and its option strings."""
    found = {prefix: [s for a in parser._actions for s in a.option_strings]}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found |= commands(child, (*prefix, name))
    return found


def printed(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


def complete(script: Path, line: str, cwd: Path) -> list[str]:
    """What bash offers for the last word of `line`, with the completion script loaded."""
    words = line.split(" ")
    probe = (
        f"source {script}\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}\n"
        '_shtab_nfstune; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "-c", probe], capture_output=True, text=True, cwd=cwd, check=True)
    assert done.stderr == ""
    return sorted(filter(None, done.stdout.split("\n")))


def test_bash_completes_commands_options_and_choices(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "nfstune.bash"
    script.write_text(printed(["completion", "bash"], capsys))
    (tmp_path / "report.html").write_text("")
    parser_commands = sorted(path[0] for path in commands(build_parser()) if len(path) == 1)
    assert complete(script, "nfstune ", tmp_path) == parser_commands
    assert complete(script, "nfstune desktop-entry --", tmp_path) == ["--help", "--install", "--uninstall"]
    assert complete(script, "nfstune lab ", tmp_path) == ["build", "down", "ssh", "status", "up"]
    assert complete(script, "nfstune run --scale ", tmp_path) == ["normal", "small"]
    assert complete(script, "nfstune report 3 --html rep", tmp_path) == ["report.html"]
    assert complete(script, "nfstune completion ", tmp_path) == ["bash"]
