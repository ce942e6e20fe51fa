"""Bash completes what --recipe, --server and --client take: the recipe ids of the nfstune on PATH (shipped and the
user's) and the hosts of ~/.ssh/config (through its Include files, without wildcard patterns) and, with
bash-completion loaded, of known_hosts. The script is sourced in a real bash with a HOME of the test's own, and its
completion function called as bash calls it (COMP_WORDS, COMP_CWORD)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import nfstune

REPO = Path(__file__).resolve().parents[2]
BASH_COMPLETION = Path("/usr/share/bash-completion/bash_completion")  # Debian's bash-completion (make test)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A HOME with an ssh config that Includes others, known hosts, a recipe of the user's, and `nfstune` on PATH
    as this tree's."""
    home = tmp_path / "home"
    ssh = home / ".ssh"
    (ssh / "conf.d").mkdir(parents=True)
    (ssh / "config").write_text(
        "# the NAS at home\n"
        "Host mynas nas-backup\n"
        "    HostName 192.0.2.10\n"
        "    User admin\n"
        "Host *.example.org !jump.example.org\n"
        "    ProxyJump jump.example.org\n"
        "Include conf.d/*.conf\n"
        "Include ~/.ssh/more\n"
        "Host=office-client\n"
    )
    (ssh / "conf.d" / "office.conf").write_text("  host office-nas\n  Port 2222\nHost lab-?\n")
    (ssh / "more").write_text("Host   farm1 farm2\n")
    key = "AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
    (ssh / "known_hosts").write_text(f"seen.example.net ssh-ed25519 {key}\n")
    mine = home / ".local" / "share" / "nfstune" / "recipes"
    mine.mkdir(parents=True)
    shipped = (REPO / "recipes" / "quick-check.toml").read_text()
    (mine / "my-check.toml").write_text(shipped.replace('id = "quick-check"', 'id = "my-check"', 1))
    bin_dir = home / "bin"
    bin_dir.mkdir()
    app = Path(nfstune.__file__).resolve().parents[1]
    (bin_dir / "nfstune").write_text(f'#!/bin/sh\nPYTHONPATH={app} exec {sys.executable} -m nfstune "$@"\n')
    (bin_dir / "nfstune").chmod(0o755)
    script = home / "nfstune.bash"
    script.write_text(
        subprocess.run([bin_dir / "nfstune", "completion", "bash"], capture_output=True, text=True).stdout
    )
    return home


def complete(home: Path, line: str, *, bash_completion: bool = False) -> list[str]:
    """What bash offers for the last word of `line` (a new word when it ends in a blank)."""
    words = line.split(" ")
    probe = (
        (f"source {BASH_COMPLETION}\n" if bash_completion else "")
        + f"source {home / 'nfstune.bash'}\n"
        + f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        + f"COMP_LINE={shlex.quote(line)}; COMP_POINT=${{#COMP_LINE}}\n"
        + '_shtab_nfstune; printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "PYTHON"))}
    env |= {"HOME": str(home), "PATH": f"{home / 'bin'}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", "--norc", "-c", probe], capture_output=True, text=True, cwd=home, env=env)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return sorted(filter(None, done.stdout.split("\n")))


def test_recipe_ids_are_completed_from_the_nfstune_on_path_with_the_users_own(home: Path) -> None:
    shipped = sorted(p.stem for p in (REPO / "recipes").glob("*.toml"))
    assert complete(home, "nfstune run --lab --recipe ") == sorted([*shipped, "my-check"])
    assert complete(home, "nfstune run --recipe quick-check --recipe m") == [
        *[s for s in shipped if s.startswith("m")],
        "my-check",
    ]


def test_hosts_are_completed_from_the_ssh_config_and_its_includes_without_patterns(home: Path) -> None:
    hosts = ["farm1", "farm2", "mynas", "nas-backup", "office-client", "office-nas"]
    for line in ("nfstune run --server ", "nfstune apply 3 --lab --client ", "nfstune watch --install --server "):
        assert complete(home, line) == hosts, line
    assert complete(home, "nfstune run --server nas.invalid --client o") == ["office-client", "office-nas"]
    assert complete(home, "nfstune check 2 --server admin@my") == ["admin@mynas"]


def test_with_bash_completion_the_known_hosts_come_too(home: Path) -> None:
    assert BASH_COMPLETION.is_file(), "bash-completion is not installed (make test installs it)"
    offered = complete(home, "nfstune run --server ", bash_completion=True)
    assert {"seen.example.net", "mynas", "office-nas", "farm2"} <= set(offered)
    assert not any(set("*?!") & set(host) for host in offered)
    started = complete(home, "nfstune run --server se", bash_completion=True)  # /etc/hosts may hold others
    assert "seen.example.net" in started and all(host.startswith("se") for host in started)
    assert complete(home, "nfstune run --recipe quick-", bash_completion=True) == ["quick-check"]
