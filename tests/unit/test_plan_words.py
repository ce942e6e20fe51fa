"""The plan as the admin reads it (`nfstune run --dry-run`), for every shipped recipe at both scales from one, two
and three clients: numbers with their nouns agreeing ("1 configuration", never "1 configurations"), no range whose
ends are the same ("2 to 2 rounds"), and no name of the code in the prose (a recipe fact such as
clients_connected, a comparison such as ">= 2"). The commands themselves are left as they are: they are exact."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.cli.main import main
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import FACTS

SHIPPED = sorted(p.stem for p in paths.recipes_dir().glob("*.toml"))
SCALES = ("small", "normal")
CLIENTS = (1, 2, 3)
# underscored words an admin does type: the export's and the mount's options (exports(5), nfs(5)) and the sysfs file
# readahead is set in; anything else with an underscore in the prose is a name from the code
ADMIN_WORDS = {"no_wdelay", "no_root_squash", "root_squash", "all_squash", "no_subtree_check", "read_ahead_kb"}
ONE_PLURAL = re.compile(r"(?<![\d.,])\b1 ([a-z]+s)\b")
SAME_ENDS = re.compile(r"\b(\d+) ?(?:to|-|\u2013) ?\1\b")
UNDERSCORED = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z0-9]+)+\b")
PATH = re.compile(r"(?:\S*/\S*)")  # a path or a command's argument, as it is on the host
# nouns that end in s in the singular
SINGULAR_S = {"process", "pass", "class", "bus", "status"}


def plan_lines(text: str) -> list[str]:
    """The plan's lines from its first ("Plan: ..."), below the hosts as resolved that lead a plan on real hosts."""
    lines = text.splitlines()
    return lines[next(n for n, line in enumerate(lines) if line.startswith("Plan:")) :]


def prose_lines(text: str) -> Iterator[str]:
    """The lines of the plan that are words, not a command: a step is its command, then '    # ' and what it does
    (which names files and options as they are)."""
    for line in text.splitlines():
        if "    # " in line:
            continue
        yield PATH.sub("", line)


def wording_problems(text: str) -> list[str]:
    problems = []
    for line in prose_lines(text):
        problems += [f"1 {m.group(1)}: {line}" for m in ONE_PLURAL.finditer(line) if m.group(1) not in SINGULAR_S]
        problems += [f"{m.group(0)}: {line}" for m in SAME_ENDS.finditer(line)]
        problems += [f"{m.group(0)}: {line}" for m in UNDERSCORED.finditer(line) if m.group(0) not in ADMIN_WORDS]
        problems += [f"{sign}: {line}" for sign in (">=", "<=") if sign in line]
    return problems


def test_the_checks_catch_what_the_plan_used_to_say() -> None:
    """Each rule fails on the words of issue 42, and passes their fix."""
    said_before = [
        "many-clients: 1 configurations, 2 to 2 rounds",
        "fio --server is started once on each of the first 1 clients, bound to its address",
        "Skipped: many-clients 2 clients, sync: it runs only where clients_connected >= 2, and here clients_connected "
        "is 1",
    ]
    found = wording_problems("\n".join(said_before))
    assert [p.split(":")[0] for p in found] == [
        "1 configurations",
        "2 to 2",
        "1 clients",
        "clients_connected",
        "clients_connected",
        ">=",
    ]
    fixed = "many-clients: 1 configuration, 2 rounds\nround 1, sync,no_wdelay: seq-write (/proc/fs/nfsd/max_block_size)"
    assert wording_problems(fixed) == []


def dry_run(capsys: pytest.CaptureFixture[str], recipe: str, scale: str, clients: int) -> tuple[int, str]:
    argv = ["run", "--server", "admin@192.0.2.10", "--share", "/export", "--recipe", recipe, "--scale", scale]
    argv += [arg for n in range(clients) for arg in ("--client", f"pc{n + 1}")]
    status = main([*argv, "--dry-run"])
    out, err = capsys.readouterr()
    return status, out + err


@pytest.fixture
def own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))


@pytest.mark.usefixtures("own_folders")
@pytest.mark.parametrize("recipe", SHIPPED)
def test_the_dry_run_of_every_shipped_recipe_reads_as_words(capsys: pytest.CaptureFixture[str], recipe: str) -> None:
    found = []
    for scale in SCALES:
        for clients in CLIENTS:
            status, text = dry_run(capsys, recipe, scale, clients)
            assert status in (0, 2), text
            assert status == 0 or "--client" in text, text  # refused only for want of clients, saying so
            found += [f"{scale}, {clients} client(s): {p}" for p in wording_problems(text)]
    assert found == []


def test_every_condition_of_the_shipped_recipes_is_said_in_words() -> None:
    """What the Recipes page lists beside a configuration ('only with ...') and why the plan skips it."""
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    conditions = [c.when for r in recipes for c in r.configs if c.when.tests]
    assert conditions  # nfs-versions, block-size, transport, many-clients, filesystems have some
    for condition in conditions:
        words = condition.words()
        assert not any(fact in words for fact in FACTS) and "<" not in words and ">" not in words, words
        assert wording_problems(words) == [], words


# --- many-clients asked for with one client ----------------------------------------------------------------------


@pytest.mark.usefixtures("own_folders")
@pytest.mark.parametrize("dry", [True, False])
def test_many_clients_named_with_one_client_stops_before_anything_runs(
    capsys: pytest.CaptureFixture[str], dry: bool
) -> None:
    """Not run as the one-client comparison that is left of it: exit 2, asking for more clients, naming the one."""
    argv = ["run", "--server", "admin@192.0.2.10", "--client", "laptop", "--share", "/export"]
    status = main([*argv, "--recipe", "quick-check", "--recipe", "many-clients", *(["--dry-run"] if dry else [])])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.strip().startswith(
        "nfstune: error: many-clients compares the NAS loaded from 1, 2, 3 and 4 clients at once: give at least 2 "
        "--client hosts (up to 4); you gave one (laptop)"
    ), err
    assert "Nothing was run." in err and "Traceback" not in err
    assert not (paths.data_dir() / "nfstune.sqlite3").exists()  # no session was even stored


@pytest.mark.usefixtures("own_folders")
def test_many_clients_with_two_clients_plans_one_and_two_and_says_why_not_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, text = dry_run(capsys, "many-clients", "normal", 2)
    assert status == 0
    assert "fio --server is started once on each of the 2 clients that load the server together" in text
    assert "many-clients: 5 configurations" in text  # 1 and 2 clients under sync, async and 64 threads
    assert "Skipped: many-clients 3 clients, sync: it needs at least 3 clients at once, and this session has 2" in text


def test_among_other_recipes_many_clients_is_left_out_with_one_plain_reason() -> None:
    """A plan of several recipes from one client: the others run, many-clients is one line of why not."""
    from nfstune.bench.sizing import default_sizes
    from nfstune.recipes.plan import build_plan

    recipes = {r.id: r for r in load_recipes([paths.recipes_dir()])[0]}
    plan = build_plan(
        [recipes["quick-check"], recipes["many-clients"]],
        {"clients_connected": 1, "server_nfsd_threads": 8},
        scale="normal",
        seed=1,
        sizes=default_sizes("normal"),
        fio_available=True,
        share="/export",
        server_address="192.0.2.10",
        scratch_name=".nfstune-1",
    )
    assert [item.recipe.id for item in plan.recipes] == ["quick-check"]
    assert plan.skipped == (
        "many-clients: skipped: it compares the NAS loaded from 1, 2, 3 and 4 clients at once, so it needs at least "
        "2 clients, and this session has 1",
    )


# --- what the times rest on ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("own_folders")
@pytest.mark.parametrize("scale", SCALES)
def test_a_real_nas_dry_run_says_what_its_times_rest_on(capsys: pytest.CaptureFixture[str], scale: str) -> None:
    status, text = dry_run(capsys, "quick-check", scale, 1)
    head = "\n".join(plan_lines(text)[:2])
    assert status == 0 and "the plan's own pace (the practice lab's)" not in head
    if scale == "small":
        assert "\nTimes: the plan's for scale small, measured on the practice lab (" in head, head
    else:
        assert "\nTimes: the plan's for scale normal, made for a gigabit NAS on a spinning disk (" in head, head
    assert head.endswith("(a first run measures other hosts' pace)."), head


@pytest.mark.usefixtures("own_folders")
def test_a_dry_run_on_hosts_that_ran_before_goes_at_their_own_pace(capsys: pytest.CaptureFixture[str]) -> None:
    from nfstune.store import Results, open_store
    from tests.unit.test_summary import SECOND_SESSION, store_session

    paths.data_dir().mkdir(parents=True)
    conn = open_store(paths.data_dir() / "nfstune.sqlite3")
    store_session(Results(conn), SECOND_SESSION)  # sync-vs-async on root@nas:22 and root@client:22, scale small
    conn.close()
    argv = ["run", "--server", "root@nas", "--client", "root@client", "--share", "/export", "--scale", "small"]
    assert main([*argv, "--recipe", "sync-vs-async", "--dry-run"]) == 0
    head = plan_lines(capsys.readouterr().out)[1]
    assert head.startswith("Times: these hosts' own pace in their earlier runs (") and "lab" not in head, head
    assert main([*argv[:4], "root@laptop", *argv[5:], "--recipe", "sync-vs-async", "--dry-run"]) == 0
    assert "measured on the practice lab" in plan_lines(capsys.readouterr().out)[1]  # another client: no pace


def test_numbers_with_their_nouns() -> None:
    from nfstune.words import and_list, count, numbered_span, span

    assert [count(n, "round") for n in (0, 1, 2)] == ["0 rounds", "1 round", "2 rounds"]
    assert count(1, "process", "processes") == "1 process" and count(3, "process", "processes") == "3 processes"
    assert (span(2, 2, "round"), span(3, 8, "round")) == ("2 rounds", "3 to 8 rounds")
    assert (numbered_span(4, 4, "round"), numbered_span(4, 8, "round")) == ("round 4", "rounds 4 to 8")
    assert (and_list(["a"]), and_list(["a", "b"]), and_list(["a", "b", "c"])) == ("a", "a and b", "a, b and c")
