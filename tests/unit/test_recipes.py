"""Recipes: the shipped files load; every kind of mistake is reported as file:line: key: message; user override."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nfstune import paths
from nfstune.facts.probe_output import parse_probe_output
from nfstune.nfs.kernel_view import offered_versions
from nfstune.recipes import Condition, FactTest, Recipe, RecipeError, load_recipe_file, load_recipes, recipe_facts
from nfstune.recipes.toml_lines import KeyLines

PROBES = Path(__file__).parent.parent / "captures" / "probe"
SHIPPED = [
    "block-size",
    "first-look",
    "sync-vs-async",
    "no-wdelay",
    "nfs-versions",
    "nconnect",
    "readahead",
    "quick-check",
    "many-clients",
    "filesystems",
    "transport",
]
LAB_ROLES = ("nas-root.txt", "client-root.txt")
LAB_PROBES = tuple(f"lab-{name}" for name in LAB_ROLES)

# A valid client recipe; the error cases below edit it, and their line numbers refer to these lines.
BASE = """\
id = "demo"
title = "Demo"
summary = "A recipe for the tests."
why = "To see the errors."
changes_host = "client"
workloads = ["seq-write"]

[[configs]]
label = "a"
mount = { vers = "4.2" }

[[configs]]
label = "b"
mount = { vers = "3" }
"""
KNOWN_WORKLOADS = "known: seq-write, seq-read, small-files, sync-4k, file-create, file-stat, file-delete, tree-delete"
KNOWN_FACTS = (
    "known: server_nfs_version, server_max_block_size, server_ram_bytes, server_nfsd_threads, "
    "server_disk_rotational, link_speed_mbps, link_mtu, clients_connected, server_filesystems, rdma_both, rdma_software"
)


def edited(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new, 1)


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.toml"
    path.write_text(text)
    return path


def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert [str(e) for e in errors] == []
    return {recipe.id: recipe for recipe in recipes}


# --- the shipped recipes ------------------------------------------------------------------------------------------


def test_every_shipped_recipe_loads_without_errors() -> None:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert [str(error) for error in errors] == []
    assert sorted(r.id for r in recipes) == sorted(SHIPPED)
    for recipe in recipes:
        assert recipe.source == paths.recipes_dir() / f"{recipe.id}.toml"
        assert not recipe.user_provided and recipe.overrides is None
        assert recipe.config(recipe.baseline) in recipe.configs
        assert all(config.workloads for config in recipe.configs)


def test_block_size_requests_8k_to_1m_on_v42_and_shows_the_negotiated_size() -> None:
    recipe = load_recipes([paths.recipes_dir()])[0][0]
    assert recipe.id == "block-size" and recipe.changes_host == "client"
    assert [c.label for c in recipe.configs] == ["rsize=8K", "rsize=32K", "rsize=128K", "rsize=1M"]
    assert [c.mount.render() for c in recipe.configs] == [
        f"vers=4.2,rsize={size},wsize={size}" for size in (8192, 32768, 131072, 1048576)
    ]
    assert recipe.workloads == ("seq-write", "seq-read") and recipe.show_negotiated == ("rsize", "wsize")
    # the lab NAS (about 1 GB of RAM) grants 128 KiB: the capping note shows, with the figure filled in
    facts = recipe_facts(parse_probe_output((PROBES / "lab-nas-root.txt").read_text()), None)
    rendered = [note.render(facts) for note in recipe.notes]
    assert rendered[1] is not None and rendered[1].startswith("This server caps READ and WRITE at 128 KiB")
    assert rendered[1].count("128 KiB") == 2
    assert recipe.notes[1].render({**facts, "server_max_block_size": 1048576}) is None


def test_server_recipes_carry_the_safety_texts() -> None:
    recipes = shipped()
    sync_vs_async = recipes["sync-vs-async"]
    assert sync_vs_async.changes_host == "server"
    assert sync_vs_async.warning is not None
    assert "an unclean server restart (i.e. a crash) can cause data to be lost" in sync_vs_async.warning
    assert sync_vs_async.config("async").export.set == ("async",)
    assert sync_vs_async.config("async").warning
    # the writes async makes faster, and the metadata it makes stable no longer: not stat, which writes nothing
    assert sync_vs_async.workloads == (
        "small-files",
        "sync-4k",
        "seq-write",
        "file-create",
        "file-delete",
        "tree-delete",
    )
    no_wdelay = recipes["no-wdelay"]
    assert [c.export.set for c in no_wdelay.configs] == [("sync", "wdelay"), ("sync", "no_wdelay")]
    assert no_wdelay.never_recommend and not no_wdelay.may_recommend(no_wdelay.configs[1])
    assert no_wdelay.expectation is not None and no_wdelay.expectation.startswith(
        "No measurable difference expected on NFSv3/v4"
    )


def test_nfs_versions_tries_40_only_where_the_server_offers_it() -> None:
    recipe = shipped()["nfs-versions"]
    labels = [c.label for c in recipe.configs]
    assert labels == ["vers=3", "vers=4.0", "vers=4.1", "vers=4.2"]
    v40 = recipe.config("vers=4.0")
    nfs_utils_291 = {"server_nfs_version": offered_versions(frozenset({"3", "4", "4.1", "4.2"}), frozenset({"4.0"}))}
    older = {"server_nfs_version": offered_versions(frozenset({"3", "4", "4.1", "4.2"}), frozenset())}
    assert v40.when.holds(nfs_utils_291) is False
    assert v40.when.holds(older) is True
    assert v40.when.holds({"server_nfs_version": None}) is None  # not root: /proc/fs/nfsd/versions unreadable
    assert all(c.when.holds(nfs_utils_291) is True for c in recipe.configs if c.label != "vers=4.0")


def test_nconnect_readahead_and_quick_check() -> None:
    recipes = shipped()
    nconnect = recipes["nconnect"]
    assert [c.mount.nconnect for c in nconnect.configs] == [1, 2, 4]
    assert {c.mount.vers for c in nconnect.configs} == {"4.2"}
    readahead = recipes["readahead"]
    assert [c.read_ahead_kb for c in readahead.configs] == [128, 1024, 15360]
    assert all(not c.mount.options for c in readahead.configs)
    quick = recipes["quick-check"]
    assert [c.label for c in quick.configs] == ["baseline", "async", "no_wdelay", "rsize=128K", "vers=3"]
    assert (quick.rounds.min, quick.rounds.warmup, quick.rounds.budget_minutes["normal"]) == (3, 1, 15.0)
    # six comparisons: async on small files and synchronous writes, no_wdelay on the latter, rsize on reads, vers=3
    # on small files and reads
    assert sum(len(c.workloads) for c in quick.configs if c.label != quick.baseline) == 6
    assert quick.config("no_wdelay").expect == "same" and quick.config("async").expect is None
    assert not quick.may_recommend(quick.config("no_wdelay")) and quick.may_recommend(quick.config("async"))
    assert quick.config("no_wdelay").workloads == ("sync-4k",)


def test_transport_compares_tcp_nconnect_and_rdma_where_both_hosts_have_it() -> None:
    recipe = shipped()["transport"]
    assert recipe.changes_host == "server" and recipe.baseline == "tcp"
    assert [(c.mount.proto, c.mount.nconnect, c.rdma_port) for c in recipe.configs] == [
        ("tcp", None, None),
        ("tcp", 4, None),
        ("rdma", None, 20049),
    ]
    assert [c.changes_server for c in recipe.configs] == [False, False, True]
    rdma = recipe.config("rdma")
    assert not recipe.may_recommend(rdma) and recipe.may_recommend(recipe.config("tcp, nconnect=4"))
    assert recipe.warning is not None and "restarts the NFS server" in recipe.warning
    # the lab without --rdma: no device, the rdma configuration is skipped and the note says why
    plain = recipe_facts(*(parse_probe_output((PROBES / name).read_text()) for name in LAB_PROBES))
    assert (plain["rdma_both"], plain["rdma_software"]) == (False, False)
    assert rdma.when.holds(plain) is False and "they do not both have" in rdma.when.why_not(plain)
    assert [note.render(plain) is not None for note in recipe.notes] == [False, True]
    # `lab up --rdma`: soft-RoCE on both, so it runs, and the note says what its figures are not
    soft = recipe_facts(*(parse_probe_output((PROBES / f"lab-rdma-{name}").read_text()) for name in LAB_ROLES))
    assert (soft["rdma_both"], soft["rdma_software"]) == (True, True) and rdma.when.holds(soft) is True
    shown = [note.render(soft) for note in recipe.notes]
    assert shown[1] is None and shown[0] is not None and "not the speed of a real RDMA NIC" in shown[0]
    assert recipe_facts(None, None)["rdma_both"] is None  # a dry run: tried, not skipped


# --- errors -------------------------------------------------------------------------------------------------------

ERROR_CASES = [
    pytest.param(
        edited('summary = "A recipe for the tests."', "summary = "),
        "3: TOML syntax: Invalid value (column 11)",
        id="syntax",
    ),
    pytest.param(
        edited('why = "To see the errors."', 'why = """To see the errors.'),
        "14: TOML syntax: Unterminated string",  # tomllib says "at end of document": the last line
        id="syntax-at-end",
    ),
    pytest.param(
        edited('why = "To see the errors."\n', 'why = "To see the errors."\nwhi = 1\n'),
        "5: unknown key 'whi' (did you mean 'why'?)",
        id="unknown-key",
    ),
    pytest.param(edited('why = "To see the errors."\n', ""), "missing required key 'why'", id="missing-top-level-key"),
    pytest.param(edited('label = "b"\n', ""), "12: configs[1]: missing required key 'label'", id="missing-label"),
    pytest.param(
        edited('id = "demo"', 'id = "demo2"'),
        "1: id: 'demo2' differs from the file name: the id must be 'demo'",
        id="id-not-file-name",
    ),
    pytest.param(edited('title = "Demo"', "title = 3"), "2: title: must be a non-empty string, not 3", id="wrong-type"),
    pytest.param(
        BASE + '\n[[configs]]\nlabel = "c"\nmount = { rsise = 8192 }\n',
        "18: configs[2].mount: unknown option 'rsise' (did you mean 'rsize'?)",
        id="unknown-mount-option",
    ),
    pytest.param(
        BASE + '\n[[configs]]\nlabel = "c"\n[configs.mount]\nvers = "4.2"\nrsise = 8192\n',
        "20: configs[2].mount: unknown option 'rsise' (did you mean 'rsize'?)",
        id="mount-subtable",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3", rsize = 512 }'),
        "14: configs[1].mount: 'rsize' must be an integer from 1024 to 1048576, not 512",
        id="rsize-range",
    ),
    pytest.param(
        edited('vers = "3" }', "vers = 3, wsize = 100000 }"),
        "14: configs[1].mount: 'wsize' = 100000 is not a multiple of 1024 (the client would use 99328)",
        id="wsize-multiple",
    ),
    pytest.param(
        edited('vers = "3" }', "vers = 5 }"),
        "14: configs[1].mount: 'vers' must be one of 3, 4, 4.0, 4.1, 4.2, not 5",
        id="vers",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3", nconnect = 17 }'),
        "14: configs[1].mount: 'nconnect' must be an integer from 1 to 16, not 17",
        id="nconnect-range",
    ),
    pytest.param(
        edited('vers = "3" }', "vers = 4.0, nconnect = 4 }"),
        "14: configs[1].mount: nconnect with NFSv4.0: not used (NetApp TR-4067 advises against it)",
        id="nconnect-v40",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3", hard = "yes" }'),
        "14: configs[1].mount: 'hard' is a flag: write hard = true",
        id="flag-value",
    ),
    pytest.param(
        edited('vers = "3" }', "hard = true, soft = true }"),
        "14: configs[1].mount: hard and soft exclude each other: keep one",
        id="exclusive-flags",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3", remount = true }'),
        "14: configs[1].mount: 'remount' is not allowed in a recipe: NFS options cannot be changed by a remount "
        "(nfs(5)); nfstune mounts afresh for each configuration",
        id="refused-mount-option",
    ),
    pytest.param(
        BASE + 'export = { set = ["async"] }\n',
        "15: configs[1].export: changes the server, but changes_host = 'client' (client recipes never touch it)",
        id="client-recipe-changes-export",
    ),
    pytest.param(
        edited('changes_host = "client"', 'changes_host = "server"'),
        "5: changes_host: is 'server' but no configuration changes the server: use 'client'",
        id="server-recipe-without-export",
    ),
    pytest.param(
        edited('changes_host = "client"', 'changes_host = "both"'),
        "5: changes_host: must be 'client' or 'server', not 'both'",
        id="changes-host-value",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = [\n  "sync",\n  "asnyc",\n] }\n',
        "17: configs[1].export.set: unknown option 'asnyc' (did you mean 'async'?)",
        id="unknown-export-option",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["sync", "async"] }\n',
        "15: configs[1].export.set: 'sync' and 'async' exclude each other",
        id="exclusive-export-options",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["fsid=0"] }\n',
        "15: configs[1].export.set: 'fsid' is not allowed in a recipe: "
        "a new fsid under mounted clients makes their file handles stale (ESTALE)",
        id="refused-export-option",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["anonuid=abc"] }\n',
        "15: configs[1].export.set: exportfs would refuse 'anonuid=abc': bad anonuid \"anonuid=abc\"",
        id="export-value",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["anonuid=0,async"] }\n',
        "15: configs[1].export.set: one option per string, without blanks, commas or parentheses: 'anonuid=0,async'",
        id="export-option-list-in-one-string",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["async", "no_root_squash"] }\n',
        "15: configs[1].export.set: 'no_root_squash' is not allowed in a recipe: recipes change only how the "
        "server writes (async, no_subtree_check, no_wdelay, subtree_check, sync, wdelay); access options stay as the "
        "admin wrote them, for changing them could widen who may read or write while the recipe runs",
        id="widening-export-option",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["async"], unset = ["root_squash"] }\n',
        "15: configs[1].export.unset: 'root_squash' is not allowed in a recipe: recipes change only how the "
        "server writes (async, no_subtree_check, no_wdelay, subtree_check, sync, wdelay); access options stay as the "
        "admin wrote them, for changing them could widen who may read or write while the recipe runs",
        id="unsquashing-unset",
    ),
    pytest.param(
        edited('"client"', '"server"') + 'export = { set = ["async"], unset = ["async"] }\n',
        "15: configs[1].export.set: 'async' is both set and unset",
        id="set-and-unset",
    ),
    pytest.param(
        edited('workloads = ["seq-write"]', 'workloads = ["seq-write", "seq-raed"]'),
        f"6: workloads: unknown workload 'seq-raed' (did you mean 'seq-read'?); {KNOWN_WORKLOADS}",
        id="unknown-workload",
    ),
    pytest.param(
        edited('workloads = ["seq-write"]', 'workloads = [\n  "seq-write",  # a comment\n  "tar",\n]'),
        f"8: workloads: unknown workload 'tar'; {KNOWN_WORKLOADS}",
        id="workload-in-multiline-array",
    ),
    pytest.param(
        BASE + "\n[repeats]\nmin = 6\nmax = 3\n", "17: repeats: min (6) is larger than max (3)", id="repeats-order"
    ),
    pytest.param(
        BASE + "\n[repeats]\nmin = 6\nmax = 51\n",
        "18: repeats.max: must be an integer from 1 to 50, not 51",
        id="repeats-range",
    ),
    pytest.param(
        edited('label = "b"', 'label = "b"\nexpect = "faster"'),
        "14: configs[1].expect: must be 'same' (it measures the same as the baseline), not 'faster'",
        id="expect-value",
    ),
    pytest.param(
        BASE + "\n[rounds]\nmin = 1\n", "17: rounds.min: must be an integer from 2 to 50, not 1", id="rounds-min"
    ),
    pytest.param(
        BASE + "\n[rounds]\nmargin = 0\n",
        "17: rounds.margin: must be a number above 0 and at most 50, not 0",
        id="rounds-margin",
    ),
    pytest.param(
        BASE + "\n[rounds]\ngrow_spread = 150\n",
        "17: rounds.grow_spread: must be a number above 0 and at most 100, not 150",
        id="rounds-grow-spread",
    ),
    pytest.param(
        BASE + "\n[rounds]\nbudget_minutes = { quick = 5 }\n",
        "17: rounds.budget_minutes: unknown key 'quick'",
        id="rounds-budget-scale",
    ),
    pytest.param(
        BASE + "\n[rounds]\nmin = 3\n\n[repeats]\nmin = 3\n",
        "19: repeats: the recipe has [rounds]: remove the older [repeats] table",
        id="rounds-and-repeats",
    ),
    pytest.param(
        BASE + "\n[repeats]\ncv_target = 0\n",
        "17: repeats.cv_target: must be a percentage above 0 and at most 100, not 0",
        id="cv-target",
    ),
    pytest.param(
        BASE + 'when = { server_nfs_versoin = "4.0" }\n',
        f"15: configs[1].when: unknown fact 'server_nfs_versoin' (did you mean 'server_nfs_version'?); {KNOWN_FACTS}",
        id="unknown-fact",
    ),
    pytest.param(
        BASE + 'when = { server_nfs_version = "5" }\n',
        "15: configs[1].when.server_nfs_version: must be an NFS version (2, 3, 4, 4.0, 4.1, 4.2), not '5'",
        id="fact-value",
    ),
    pytest.param(
        BASE + "when = { server_max_block_size = { over = 1 } }\n",
        "15: configs[1].when.server_max_block_size: unknown test 'over'; a number fact takes: not, at_least, below",
        id="fact-test",
    ),
    pytest.param(
        edited('label = "b"', 'label = "a"'),
        "13: configs[1].label: 'a' is already the label of configs[0]",
        id="duplicate-label",
    ),
    pytest.param(
        edited('label = "b"', 'label = "a label far too long for a column"'),
        "13: configs[1].label: must be one line of at most 24 characters",
        id="long-label",
    ),
    pytest.param(
        edited('changes_host = "client"\n', 'changes_host = "client"\nbaseline = "c"\n'),
        "6: baseline: no configuration is labelled 'c'",
        id="baseline",
    ),
    pytest.param(
        BASE.split("\n[[configs]]")[0] + "\nconfigs = []\n",
        "8: configs: needs at least one configuration",
        id="no-config",
    ),
    pytest.param(
        edited('vers = "4.2" }', 'vers = "4.2" }\nclients = 1').replace(
            'vers = "3" }', 'vers = "3" }\nclients = 2\nworkloads = ["small-files"]'
        ),
        "16: configs[1].clients: small-files runs on one client at a time: fio's front end starts only seq-write, "
        "seq-read, sync-4k on several at once; list this configuration's workloads without it",
        id="several-clients-small-files",
    ),
    pytest.param(
        edited('vers = "4.2" }', 'vers = "4.2" }\nclients = 1').replace(
            'vers = "3" }', 'vers = "3" }\nclients = 2\nworkloads = ["sync-4k", "file-delete"]'
        ),
        "16: configs[1].clients: file-delete runs on one client at a time: fio's front end starts only seq-write, "
        "seq-read, sync-4k on several at once; list this configuration's workloads without it",
        id="several-clients-metadata",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3" }\nfilesystem = "zfs"'),
        "15: configs[1].filesystem: must be one of ext4, xfs, btrfs, not 'zfs' (did you mean 'xfs'?)",
        id="scratch-filesystem-unknown",
    ),
    pytest.param(
        edited('changes_host = "client"', 'changes_host = "server"').replace(
            'vers = "3" }', 'vers = "3" }\nfilesystem = "xfs"'
        ),
        "8: configs[0]: has no 'filesystem', but configs[1] has: give every configuration its filesystem (each runs "
        "on a scratch filesystem of nfstune's own, never on the share)",
        id="scratch-filesystem-on-one-config-only",
    ),
    pytest.param(
        edited('vers = "4.2" }', 'vers = "4.2" }\nclients = 2'),
        "13: configs[1]: has no 'clients', but configs[0] has: give every configuration its number of clients "
        "(clients = 1 for one client through fio's front end)",
        id="several-clients-on-one-config-only",
    ),
    pytest.param(
        edited('vers = "3" }', 'vers = "3", proto = "rdma" }'),
        "14: configs[1].mount: changes the server, but changes_host = 'client' (client recipes never touch it)",
        id="rdma-changes-the-server",
    ),
    pytest.param(
        edited('vers = "4.2" }', 'vers = "4.2" }\nclients = 0'),
        "11: configs[0].clients: must be an integer from 1 to 16, not 0",
        id="no-clients",
    ),
    pytest.param(
        BASE + "nfsd_threads = 8\n",
        "15: configs[1].nfsd_threads: changes the server, but changes_host = 'client' (client recipes never touch it)",
        id="client-recipe-changes-threads",
    ),
    pytest.param(
        BASE + '\n[[notes]]\ntext = "Caps at {server_block_size}."\n',
        "17: notes[0].text: unknown fact '{server_block_size}' (did you mean 'server_max_block_size'?); " + KNOWN_FACTS,
        id="note-placeholder",
    ),
    pytest.param(
        edited('summary = "A recipe for the tests."', 'summary = """\nnot = a key\n[[configs]]\n"""\ntitel = 1'),
        "7: unknown key 'titel' (did you mean 'title'?)",
        id="key-like-text-in-string",
    ),
]


@pytest.mark.parametrize(("text", "expected"), ERROR_CASES)
def test_a_broken_recipe_gives_file_line_key_message(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "demo", text)
    recipe, errors = load_recipe_file(path)
    assert recipe is None
    separator = ":" if expected[0].isdigit() else ": "
    assert [str(error) for error in errors] == [f"{path}{separator}{expected}"]


def test_the_base_recipe_is_valid(tmp_path: Path) -> None:
    recipe, errors = load_recipe_file(write(tmp_path, "demo", BASE))
    assert errors == [] and recipe is not None
    assert (recipe.baseline, recipe.rounds.min, recipe.rounds.max, recipe.rounds.margin_percent) == ("a", 3, 8, 5.0)
    assert dict(recipe.rounds.budget_minutes) == {"small": 15.0, "normal": 20.0}


def test_rounds_and_the_older_repeats_table(tmp_path: Path) -> None:
    text = (
        BASE
        + "\n[rounds]\nmin = 4\nmax = 9\nwarmup = 2\nmargin = 2.5\ngrow_spread = 25\nbudget_minutes = { small = 7 }\n"
    )
    recipe, errors = load_recipe_file(write(tmp_path, "demo", text))
    assert errors == [] and recipe is not None
    assert recipe.rounds.grow_spread_percent == 25.0
    assert (recipe.rounds.min, recipe.rounds.max, recipe.rounds.warmup, recipe.rounds.margin_percent) == (4, 9, 2, 2.5)
    assert dict(recipe.rounds.budget_minutes) == {"small": 7.0, "normal": 20.0}
    # a user's recipe from before rounds: min/max/warmup map across (a pair needs 2 rounds), cv_target is ignored
    old = BASE + "\n[repeats]\nmin = 1\nmax = 6\ncv_target = 5\nwarmup = 0\n"
    recipe, errors = load_recipe_file(write(tmp_path, "demo", old))
    assert errors == [] and recipe is not None
    assert (recipe.rounds.min, recipe.rounds.max, recipe.rounds.warmup) == (2, 6, 0)


def test_expect_same_on_a_configuration(tmp_path: Path) -> None:
    recipe, errors = load_recipe_file(write(tmp_path, "demo", edited('label = "b"', 'label = "b"\nexpect = "same"')))
    assert errors == [] and recipe is not None
    assert [c.expect for c in recipe.configs] == [None, "same"]


def test_error_fields_and_a_typo_in_a_shipped_recipe(tmp_path: Path) -> None:
    text = (paths.recipes_dir() / "block-size.toml").read_text()
    assert text.count("rsize = 131072") == 1
    path = write(tmp_path / "recipes", "block-size", text.replace("rsize = 131072", "rsise = 131072"))
    _, errors = load_recipe_file(path)
    line = text[: text.index("rsize = 131072")].count("\n") + 1  # the typo's own line
    assert errors == [RecipeError(path, line, "configs[2].mount", "unknown option 'rsise' (did you mean 'rsize'?)")]
    assert str(errors[0]) == f"{path}:{line}: configs[2].mount: unknown option 'rsise' (did you mean 'rsize'?)"


def test_every_error_in_a_file_is_reported_in_line_order(tmp_path: Path) -> None:
    text = edited('vers = "3" }', 'vers = "3", rsise = 1 }').replace("title = ", "titel = ")
    _, errors = load_recipe_file(write(tmp_path, "demo", text))
    assert [(e.line, e.key, e.message) for e in errors] == [
        (None, "", "missing required key 'title'"),
        (2, "", "unknown key 'titel' (did you mean 'title'?)"),
        (14, "configs[1].mount", "unknown option 'rsise' (did you mean 'rsize'?)"),
    ]


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "demo.toml"
    path.write_bytes(BASE.encode().replace(b'"Demo"', b'"D\xe9mo"'))
    assert [str(e) for e in load_recipe_file(path)[1]] == [f"{path}:2: not UTF-8 text"]


def server_side(line: str) -> str:
    """BASE as a server recipe whose second configuration has `line` too (line 15)."""
    return edited('vers = "3" }', f'vers = "3" }}\n{line}').replace(
        'changes_host = "client"', 'changes_host = "server"'
    )


HUGE = "7" * 5000  # more digits than int() reads (sys.get_int_max_str_digits() is 4300)
BEYOND = "an integer beyond TOML's range (-2^63 to 2^63-1)"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(BASE + f"\n[repeats]\nmin = {HUGE}\n", f"17: repeats.min: {BEYOND}", id="decimal"),
        pytest.param(BASE + f"\n[repeats]\nmax = 1_{HUGE}\n", f"17: repeats.max: {BEYOND}", id="underscores"),
        pytest.param(
            edited('vers = "3"', "rsize = 0x" + "f" * 4000), f"14: configs[1].mount.rsize: {BEYOND}", id="hex"
        ),
        pytest.param(
            edited('vers = "3" }', 'vers = "3" }\nwhen = { link_mtu = { at_least = 0o' + "7" * 30 + " } }"),
            f"15: configs[1].when.link_mtu.at_least: {BEYOND}",
            id="octal-in-a-condition",
        ),
        pytest.param(
            server_side('export = { set = ["anonuid=' + HUGE + '"] }'),
            "15: configs[1].export.set: 'anonuid' takes a uid of at most 10 digits, not one of 5000",
            id="anonuid",
        ),
        pytest.param(
            server_side('export = { set = ["anongid=-' + "1" * 11 + '"] }'),
            "15: configs[1].export.set: 'anongid' takes a gid of at most 10 digits, not one of 11",
            id="anongid",
        ),
    ],
)
def test_an_integer_too_long_is_an_error_at_its_key(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "demo", text)
    recipe, errors = load_recipe_file(path)
    assert recipe is None
    assert [str(error) for error in errors] == [f"{path}:{expected}"]


def test_a_user_folder_of_broken_files_costs_only_those_files(two_dirs: tuple[Path, Path]) -> None:
    shipped_dir, user_dir = two_dirs
    huge = write(user_dir, "demo", BASE + f"\n[repeats]\nmin = {HUGE}\n")
    toml = write(user_dir, "bad-toml", "id = [\n")
    latin1 = user_dir / "latin1.toml"
    latin1.write_bytes(b'id = "caf\xe9"\n')
    recipes, errors = load_recipes([shipped_dir, user_dir])
    assert [(r.id, r.user_provided) for r in recipes] == [("demo", False), ("other", False)]
    assert sorted(str(e.file) for e in errors) == sorted(map(str, (huge, toml, latin1)))
    assert all(e.line == (17 if e.file == huge else 1) for e in errors)


# --- shipped and user recipes -------------------------------------------------------------------------------------


@pytest.fixture
def two_dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    shipped_dir, user_dir = tmp_path / "shipped", tmp_path / "user"
    write(shipped_dir, "demo", BASE)
    write(shipped_dir, "other", BASE.replace('id = "demo"', 'id = "other"'))
    yield shipped_dir, user_dir


def test_a_user_recipe_overrides_the_shipped_one_in_its_place(two_dirs: tuple[Path, Path]) -> None:
    shipped_dir, user_dir = two_dirs
    write(user_dir, "demo", BASE.replace('title = "Demo"', 'title = "My demo"'))
    write(user_dir, "mine", BASE.replace('id = "demo"', 'id = "mine"'))
    recipes, errors = load_recipes([shipped_dir, user_dir])
    assert errors == []
    assert [(r.id, r.title, r.user_provided) for r in recipes] == [
        ("demo", "My demo", True),
        ("other", "Demo", False),
        ("mine", "Demo", True),
    ]
    assert recipes[0].source == user_dir / "demo.toml" and recipes[0].overrides == shipped_dir / "demo.toml"
    assert recipes[2].overrides is None


def test_a_broken_user_recipe_keeps_the_shipped_one(two_dirs: tuple[Path, Path]) -> None:
    shipped_dir, user_dir = two_dirs
    broken = write(user_dir, "demo", BASE.replace('workloads = ["seq-write"]', 'workloads = ["fio"]'))
    recipes, errors = load_recipes([shipped_dir, user_dir, shipped_dir / "missing"])
    assert [(r.id, r.user_provided) for r in recipes] == [("demo", False), ("other", False)]
    assert [str(e) for e in errors] == [f"{broken}:6: workloads: unknown workload 'fio'; {KNOWN_WORKLOADS}"]


# --- conditions and facts -----------------------------------------------------------------------------------------


def test_facts_from_the_lab_probes() -> None:
    server = parse_probe_output((PROBES / "lab-nas-root.txt").read_text())
    client = parse_probe_output((PROBES / "lab-client-root.txt").read_text())
    facts = recipe_facts(server, client)
    assert facts["server_nfs_version"] == {"3", "4", "4.0", "4.1", "4.2"}  # "+3 +4 +4.1 +4.2": 4.0 implied
    assert facts["server_max_block_size"] == 131072 and facts["link_mtu"] == 1500
    nobody = recipe_facts(parse_probe_output((PROBES / "lab-nas-nobody.txt").read_text()), None)
    assert nobody["server_nfs_version"] is None and nobody["server_max_block_size"] == 131072


def test_condition_logic() -> None:
    facts = {"server_max_block_size": 524288, "server_nfs_version": frozenset({"3", "4.2"}), "link_mtu": None}
    small = FactTest("server_max_block_size", below=1048576)
    assert Condition((small,)).holds(facts) is True
    assert Condition((small, FactTest("server_nfs_version", equals="4.0"))).holds(facts) is False
    assert Condition((FactTest("server_nfs_version", equals="4.0", negate=True),)).holds(facts) is True
    assert Condition((small, FactTest("link_mtu", at_least=9000))).holds(facts) is None
    assert (
        Condition((FactTest("link_mtu", at_least=9000), FactTest("server_nfs_version", equals="2"))).holds(facts)
        is False
    )
    assert Condition((small, FactTest("server_nfs_version", equals="4.0"))).describe() == (
        "server_max_block_size < 1048576 and server_nfs_version includes 4.0"
    )
    assert Condition().holds({}) is True and Condition().describe() == "always"


# --- the line finder and junk input -------------------------------------------------------------------------------


def test_key_lines_for_headers_dotted_keys_inline_tables_and_arrays() -> None:
    text = """\
# comment with key = 1
a.b = 1
s = '''
x = 2
'''
[t]  # a table
"q.k" = { n = [1,
  {m = 2}] }

[[arr]]
v = 1
[[arr]]
[arr.sub]
w = "}"
"""
    lines = KeyLines(text).lines
    assert tomllib.loads(text)["arr"][1]["sub"]["w"] == "}"
    assert lines[("a",)] == lines[("a", "b")] == 2
    assert ("x",) not in lines
    assert lines[("t",)] == 6 and lines[("t", "q.k")] == lines[("t", "q.k", "n", 0)] == 7
    assert lines[("t", "q.k", "n", 1)] == lines[("t", "q.k", "n", 1, "m")] == 8
    assert lines[("arr",)] == lines[("arr", 0)] == 10 and lines[("arr", 0, "v")] == 11
    assert lines[("arr", 1)] == 12 and lines[("arr", 1, "sub")] == 13 and lines[("arr", 1, "sub", "w")] == 14


KEYS = ["id", "title", "workloads", "configs", "repeats", "label", "mount", "export", "set", "when", "min", "rsize"]
scalars = st.one_of(
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.text(max_size=8),
    st.sampled_from(["4.2", "4.0", "seq-read", "async", "demo", "client", "server", "{link_mtu}"]),
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)
)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"


@st.composite
def recipe_like_documents(draw: st.DrawFn) -> str:
    """Valid TOML shaped like a recipe, with random keys, types and values."""
    tables = st.dictionaries(st.sampled_from(KEYS), values, max_size=5)
    lines = [f"{key} = {toml_value(value)}" for key, value in draw(tables).items()]
    for _ in range(draw(st.integers(0, 3))):
        lines.append(draw(st.sampled_from(["[[configs]]", "[repeats]", "[[notes]]", "[configs.mount]"])))
        lines += [f"{key} = {toml_value(value)}" for key, value in draw(tables).items()]
    return "\n".join(lines) + "\n"


junk = st.lists(
    st.sampled_from(
        ["[", "]", "[[", "]]", "=", '"', "'", '"""', "{", "}", ",", "\n", "#", ".", "\\", "configs", "x = "]
    )
    | st.text(max_size=3)
).map("".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=recipe_like_documents() | junk)
def test_junk_never_crashes_the_loader(tmp_path: Path, text: str) -> None:
    path = tmp_path / "demo.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    recipe, errors = load_recipe_file(path)
    assert (recipe is None) == bool(errors)
    assert all(isinstance(error, RecipeError) and str(error).startswith(str(path)) for error in errors)


def key_paths(value: object, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, item in items:
        yield (*prefix, key)
        yield from key_paths(item, (*prefix, key))


@settings(max_examples=300, deadline=None)
@given(text=recipe_like_documents())
def test_key_lines_finds_every_key_on_a_line_that_names_it(text: str) -> None:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # e.g. a key written twice
    lines, text_lines = KeyLines(text).lines, text.split("\n")
    for path in key_paths(data):
        assert path in lines
        if isinstance(path[-1], str):
            assert path[-1] in text_lines[lines[path] - 1]


def test_a_user_recipe_nested_a_thousand_deep_is_an_error_and_the_others_still_load(tmp_path: Path) -> None:
    """Table headers nested 1000 deep ([k0.k1. ... .k999]) are valid TOML that tomllib reads without recursing;
    every walk over the document after it used to end in RecursionError (exit 70 from every command that loads
    recipes, whichever recipe was asked for)."""
    user = tmp_path / "user"
    deep_header = ".".join(f"k{i}" for i in range(1000))
    deep = write(user, "deep", BASE.replace('id = "demo"', 'id = "deep"') + f"\n[{deep_header}]\nx = 1\n")
    line = deep.read_text().splitlines().index(f"[{deep_header}]") + 1
    # arrays nested deeper than a recipe ever nests, but not so deep that tomllib itself recurses too far
    arrays = write(user, "arrays", BASE.replace('id = "demo"', 'id = "arrays"') + "\nx = " + "[" * 40 + "]" * 40 + "\n")
    recipes, errors = load_recipes([paths.recipes_dir(), user])
    assert sorted(r.id for r in recipes) == sorted(shipped())  # every shipped recipe, none of the two
    by_file = {e.file: e for e in errors}
    assert set(by_file) == {deep, arrays}
    assert by_file[deep].line == line and "nest 1000 deep" in by_file[deep].message
    # the 40 arrays sit in the file's last table, a [[configs]] entry: two levels more
    assert by_file[arrays].line is None and "nest 42 deep" in by_file[arrays].message
