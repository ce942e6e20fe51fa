"""Recipes in plain words (recipe_info.py), from the shipped recipe files: what varies, what changes where, how
how long
it takes in words (the time itself: test_estimate.py)."""

from __future__ import annotations

import pytest

from nfstune import paths
from nfstune.recipes.info import describe, format_duration, size_text
from nfstune.recipes.loader import load_recipes
from nfstune.recipes.model import Recipe


@pytest.fixture(scope="module")
def shipped() -> dict[str, Recipe]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def test_server_side_recipe_says_the_server_changes_and_how_they_are_restored(shipped: dict[str, Recipe]) -> None:
    info = describe(shipped["quick-check"])
    assert info.host == "server"
    assert "server" in info.changes and "/etc/exports" in info.changes and "journaled" in info.changes
    assert "restored at the end, on cancel, on failure, or at the next start after a crash" in info.changes
    assert info.risks is not None and "exports(5)" in info.risks  # the async window
    assert info.varies == (
        "each against the baseline: export async; export no_wdelay; rsize/wsize 128 KiB; NFS version 3"
    )


def test_client_side_recipes_leave_the_server_and_the_users_mounts_alone(shipped: dict[str, Recipe]) -> None:
    info = describe(shipped["block-size"])
    assert info.host == "client" and info.risks is None
    assert "nosharecache" in info.changes and "your own mounts are untouched" in info.changes
    assert "/etc/exports" not in info.changes and "server's configuration is not touched" in info.changes
    readahead = describe(shipped["readahead"])
    assert "read_ahead_kb of nfstune's own mount only" in readahead.changes
    assert "read_ahead_kb" not in info.changes


def test_varies_is_built_from_the_configurations(shipped: dict[str, Recipe]) -> None:
    block = describe(shipped["block-size"]).varies
    assert "8 KiB" in block and "1 MiB" in block and block.startswith("rsize/wsize")
    assert describe(shipped["sync-vs-async"]).varies == "export sync vs async"
    assert describe(shipped["no-wdelay"]).varies == "export wdelay vs no_wdelay"
    assert describe(shipped["nconnect"]).varies == "nconnect 1, 2, 4"
    assert describe(shipped["readahead"]).varies == "client readahead 128 KiB, 1 MiB, 15 MiB"
    versions = describe(shipped["nfs-versions"]).varies
    assert (
        versions.startswith("NFS version 3, 4.0, 4.1, 4.2")
        and "vers=4.0 only with a server that offers NFS 4.0" in versions
    )


def test_format_duration() -> None:
    assert format_duration((240, 420)) == "about 4\u20137 min"
    assert format_duration(300) == "about 5 min"
    assert format_duration(20) == "under a minute"
    assert format_duration((2400, 7200)) == "about 40 min\u20132 h"
    assert format_duration((5400, 9000)) == "about 1.5\u20132.5 h"


def test_size_text() -> None:
    assert [size_text(n) for n in (8192, 1048576, 15 << 20, 1000, 1536)] == [
        "8 KiB",
        "1 MiB",
        "15 MiB",
        "1000 bytes",
        "1.5 KiB",
    ]


def test_many_clients_says_its_axes_and_what_it_starts_on_every_client(shipped: dict[str, Recipe]) -> None:
    info = describe(shipped["many-clients"])
    assert info.varies == "export sync vs async; clients at once 1 … 4, 4 steps; nfsd threads the server's own vs 64"
    assert "fio's server for the session, listening on that client's address towards the server only" in info.changes
    assert "/proc/fs/nfsd/threads" in info.changes and "nfs.conf is not touched" in info.changes
    assert "skipped" in info.changes and info.host == "server" and info.risks is not None
