"""What the README claims, held to the code that makes it true: the recipe list against recipes/, each recipe's time
against its plan, the exit statuses against --help, the data folders against the manual page's FILES (which
tests/unit/test_manual.py holds to the code), the space a run takes against the sizing rules, what nfstune says
without mount.nfs against the preflight, and the three commands on one's own NAS against the parser."""

from __future__ import annotations

import re
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.bench.sizing import (
    GROWTH_MAX,
    MIB,
    RULES,
    Scale,
    SizingError,
    default_sizes,
    files_bytes,
    growth_limits,
    plan_sizes,
    seq_bytes_for_link,
)
from nfstune.cli import exits, manual
from nfstune.cli.main import main
from nfstune.cli.parser import build_parser
from nfstune.errors import ConfigError
from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes.estimate import at_most_seconds, plan_seconds
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe
from nfstune.session.preflight import check
from nfstune.session.script import refuse_if_blocked

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
FLAT = " ".join(README.split())  # the README's prose with its line breaks undone
CAPTURES = REPO / "tests" / "captures" / "probe"


def section(heading: str) -> str:
    start = README.index(f"\n{heading}\n")
    end = README.find("\n## ", start + len(heading) + 2)
    return README[start : end if end > 0 else None]


def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def test_the_recipe_list_is_every_shipped_recipe() -> None:
    (listed,) = re.findall(r"your own go in `~/\.local/share/nfstune/recipes/`\): ((?:`[a-z-]+`(?:, |\.))+)", FLAT)
    ids = re.findall(r"`([a-z-]+)`", listed)
    assert len(ids) == len(set(ids))
    assert sorted(ids) == sorted(shipped())
    assert ids[0] == "first-look"  # the desktop's preselected recipe, named first


def test_each_recipe_time_claimed_is_what_its_plan_takes_at_most() -> None:
    (claim,) = re.findall(r"each shipped recipe fits in (\d+) minutes(.*?)\)", FLAT)
    limit, exceptions = (
        int(claim[0]),
        dict(re.findall(r"\b([a-z]+(?:-[a-z]+)+)\b(?:, which [^,]*,)? in (\d+)", claim[1])),
    )
    recipes = shipped()
    assert set(exceptions) <= set(recipes)
    for recipe_id, recipe in recipes.items():
        claimed = int(exceptions.get(recipe_id, limit))
        most = at_most_seconds(recipe, "normal") / 60
        assert most <= claimed, f"{recipe_id}: up to {most:.0f} min by its plan at normal, the README says {claimed}"
    # the first look, in the three commands: its time by the plan
    (first_look,) = re.findall(r"the recipes worth running next: about (\d+) minutes by the plan", FLAT)
    least = plan_seconds(recipes["first-look"], "normal", recipes["first-look"].rounds.min) / 60
    assert round(least) == int(first_look)


def words(cell: str) -> str:
    return " ".join(cell.replace("\\|", "|").replace("`", "").split())


def test_the_exit_statuses_are_helps_words() -> None:
    table = README[README.index("Exit statuses (") :]
    rows = re.findall(r"^\| (\d+) \| (.*) \|$", table.split("\n\n")[1], re.MULTILINE)
    assert [(int(status), words(meaning)) for status, meaning in rows] == [
        (status, words(meaning)) for status, meaning in exits.STATUSES
    ]
    assert words(exits.GUI_STATUS) + "." in words(table.split("\n\n")[2])
    help_text = " ".join(build_parser().format_help().split("exit status:", 1)[1].split())
    for status, meaning in rows:
        assert f"{status} {meaning.replace(chr(92) + '|', '|')}".replace("`", "") in help_text.replace("`", "")


def test_the_data_folders_are_the_manual_pages_files() -> None:
    table = section("## Where it keeps its data")
    listed = re.findall(r"^\| .* \| `([^`]+)` \|$", table, re.MULTILINE)
    expected = [f"{manual.XDG_DEFAULTS[base]}/{below}" for base, below, _ in manual.FILES]
    assert sorted(listed) == sorted(expected)
    assert "~/.config/nfstune/nfstune.conf" in listed
    for variable in manual.XDG_DEFAULTS:
        assert f"`${variable}`" in table


def test_the_space_a_run_takes_is_the_sizing_rules() -> None:
    text = " ".join(section("## On your own NAS in three commands").split())
    (seq,) = re.findall(
        r"\((\d+) MiB on gigabit Ethernet, (\d+) MiB when the link's speed is unknown, at most (\d+) MiB; (\d+) MiB "
        r"with `--scale small`\), and ([\d.]+) MiB of small files and synchronous writes",
        text,
    )
    gigabit, unknown, most, small, others = seq
    assert int(gigabit) == seq_bytes_for_link(1000) // MIB
    assert int(unknown) == seq_bytes_for_link(None) // MIB
    assert int(most) == RULES[Scale.NORMAL].seq_max // MIB == seq_bytes_for_link(100_000) // MIB
    assert int(small) == default_sizes("small").seq_file_bytes // MIB
    normal = default_sizes("normal", 1000)
    assert float(others) == round((files_bytes(normal) - normal.seq_file_bytes) / MIB, 1)
    (times,) = re.findall(r"up to (\d+) times the planned size and never beyond twice the larger host's memory", text)
    assert int(times) == GROWTH_MAX
    assert growth_limits(normal, 10**15, None).seq_file_bytes == GROWTH_MAX * normal.seq_file_bytes
    assert growth_limits(normal, 1024 * MIB, None).seq_file_bytes == 2 * 1024 * MIB
    # never more than half the free space, and the least free space a run starts with
    (least,) = re.findall(
        r"never takes more than half the share's free space: a share with less than (\d+) MiB free", text
    )
    ram = 64 * 1024 * MIB
    for free in (int(least) * MIB, 1500 * MIB, 9000 * MIB):
        sizing = plan_sizes(ram, ram, free, "normal", 10_000)
        assert sizing.needed_bytes <= free / 2 and growth_limits(sizing.sizes, ram, free).seq_file_bytes <= free / 2
    with pytest.raises(SizingError):
        plan_sizes(ram, ram, (int(least) - 1) * MIB, "normal", 1000)


def test_what_nfstune_says_without_mount_nfs_is_quoted_as_it_is() -> None:
    text = section("## On your own NAS in three commands")
    assert "**The client needs nfs-common** (`mount.nfs`" in text
    (quoted,) = re.findall(r"```text\n(.*?)\n```", text, re.DOTALL)
    nas, client = (parse_probe_output((CAPTURES / f"lab-{n}-root.txt").read_text()) for n in ("nas", "client"))
    without = replace(client, tools=client.tools - {"mount.nfs"})
    problems = check(nas, without, server_label="NAS", client_label="CLIENT", share="/export", exports=("/export",))
    errors = [p for p in problems if p.severity == "error"]
    assert [p.tool for p in errors] == ["mount.nfs"]
    said = [f"{p.severity}: {p.title}\n    {p.detail}" for p in errors]  # as `nfstune run` prints them (cli/run.py)
    with pytest.raises(ConfigError) as refused:
        refuse_if_blocked(problems)
    assert quoted == "\n".join([*said, f"nfstune: error: {refused.value}"])
    assert "nfs-common" in quoted


def test_the_three_commands_are_taken_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    text = section("## On your own NAS in three commands")
    (block,) = re.findall(r"```sh\n(.*?)\n```", text, re.DOTALL)
    commands = [shlex.split(line, comments=True) for line in block.splitlines()]
    assert [c[:2] for c in commands] == [["pipx", "install"], ["nfstune", "run"], ["nfstune", "run"]]
    assert re.fullmatch(r"dist/nfstune-\*-py3-none-any\.whl", commands[0][2])
    dry_run, run = commands[1], commands[2]
    assert dry_run == [*run, "--dry-run"] and run[run.index("--recipe") + 1] == "first-look"
    build_parser().parse_args(run[1:])
    assert main(dry_run[1:]) == 0  # the plan, without connecting
    plan = capsys.readouterr().out
    assert "first-look" in plan and "NAS:/export" in plan


def test_the_developer_commands_stay_first() -> None:
    assert README.index("make demo") < README.index("## On your own NAS in three commands") < README.index("## Install")
