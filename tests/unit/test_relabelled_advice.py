"""Advice from what ran, never from labels (issue 38): quick-check with every label renamed, and the recipe's id too
(an admin's own copy), stores the same figures with the same options in force; its recommendation, three-line
answer and findings are quick-check's, but for the names.

On the lab, async renamed "fast-writes" measured 3.4x faster on small-files: the answer said async "only as an
opt-in", yet the recommendation below it had no opt-in block and no no_wdelay note, which quick-check's own run
prints (advice/session.py found async and no_wdelay by their labels)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from nfstune.advice.outcome import session_findings
from nfstune.advice.recommend import Recommendation
from nfstune.advice.session import CurrentConfig, keep_current, kept_recommendation
from nfstune.paths import recipes_dir
from nfstune.recipes import Recipe, load_recipes
from nfstune.store import Results, open_store
from tests.unit.test_summary import _repeat

NAMES = {
    "quick-check": "my-check",
    "baseline": "as-we-had-it",
    "async": "fast-writes",
    "no_wdelay": "gathering-off",
    "rsize=128K": "reads-128k",
    "vers=3": "old-protocol",
}
PLAN = '{"seed": 1, "recipes": [{"id": "%s", "rounds": {"min": 3, "max": 8, "warmup": 1, "margin_percent": 5}}]}'
IN_FORCE = ",hide,no_subtree_check,sec=sys,rw,secure,root_squash,no_all_squash"
EXPORTS = {"baseline": "sync,wdelay", "async": "async,wdelay", "no_wdelay": "sync,no_wdelay"}
NEGOTIATED = "rw,relatime,vers={},rsize={},wsize={},namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys"
# label (quick-check's) -> workload -> the figure of each round: async 3.4x faster on small-files and sync-4k,
# no_wdelay the same as the baseline, vers=3 and rsize=128K within a percent or two
FIGURES = {
    "baseline": {
        "small-files": [26.0, 25.8, 26.3, 26.1, 25.9],
        "sync-4k": [4.1, 4.2, 4.0, 4.15, 4.05],
        "seq-read": [80.0, 81.0, 79.5, 80.5, 80.2],
    },
    "async": {"small-files": [7.6, 7.7, 7.5, 7.8, 7.6], "sync-4k": [1.2, 1.25, 1.18, 1.22, 1.2]},
    "no_wdelay": {"sync-4k": [4.12, 4.18, 4.02, 4.16, 4.04]},
    "rsize=128K": {"seq-read": [79.6, 80.9, 79.9, 80.1, 80.4]},
    "vers=3": {"small-files": [26.2, 25.7, 26.1, 26.4, 25.8], "seq-read": [80.3, 80.8, 79.9, 80.2, 80.4]},
}


def relabelled(tmp_path: Path) -> Recipe:
    """quick-check as an admin's own recipe file with every label (and its id) renamed."""
    text = (recipes_dir() / "quick-check.toml").read_text()
    for old, new in NAMES.items():
        text = re.sub(rf'^(label|baseline|id) = "{re.escape(old)}"$', rf'\1 = "{new}"', text, flags=re.M)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my-check.toml").write_text(text)
    loaded, errors = load_recipes([folder])
    assert errors == [] and [c.label for c in loaded[0].configs] == [NAMES[c] for c in FIGURES]
    return loaded[0]


def stored(results: Results, recipe: Recipe, names: dict[str, str]) -> int:
    """The same figures and options in force, under `recipe`'s names; its configuration as the engine stores it."""
    sid = results.start_session(
        server_host=results.upsert_host("root@nas:22", "nas", None),
        client_host=results.upsert_host("root@client:22", "client", None),
        share="/export",
        scale="small",
        recipes=[recipe.id],
        plan=PLAN % recipe.id,
    )
    for label, by_workload in FIGURES.items():
        config = recipe.config(names[label])
        vers = "3" if label == "vers=3" else "4.2"
        block = "131072" if label == "rsize=128K" else "1048576"
        for workload, values in by_workload.items():
            run = results.start_run(
                sid,
                recipe=recipe.id,
                config_label=config.label,
                config={"mount": config.mount.render(), "export_set": list(config.export.set), "expect": config.expect},
                workload=workload,
            )
            results.set_run_options(
                run,
                requested=config.mount.render(),
                negotiated=NEGOTIATED.format(vers, block, block),
                export=EXPORTS.get(label, "sync,wdelay") + IN_FORCE,
            )
            results.add_repeat(run, 0, warmup=True, values=_repeat(workload, values[0] * 2))
            for number, value in enumerate(values, start=1):
                results.add_repeat(run, number, warmup=False, values=_repeat(workload, value))
            results.end_run(run, "completed")
    results.end_session(sid, "completed")
    current = CurrentConfig({"/etc/exports": "/export client(rw,sync,no_subtree_check)\n"}, None)
    keep_current(results, sid, current, server="nas")
    return sid


def own_names(text: str) -> str:
    """The relabelled session's words with quick-check's names put back (the longest first)."""
    for old, new in sorted(NAMES.items(), key=lambda n: -len(n[1])):
        text = text.replace(new, old)
    return text


@pytest.fixture
def results(tmp_path: Path) -> Results:
    return Results(open_store(tmp_path / "s.sqlite3"))


def test_renamed_labels_give_the_same_advice(tmp_path: Path, results: Results) -> None:
    shipped = {r.id: r for r in load_recipes([recipes_dir()])[0]}
    mine = relabelled(tmp_path)
    ours = stored(results, shipped["quick-check"], {label: label for label in FIGURES})
    theirs = stored(results, mine, NAMES)
    ours_rec = kept_recommendation(results, ours, shipped)
    theirs_rec = kept_recommendation(results, theirs, {**shipped, mine.id: mine})
    assert isinstance(ours_rec, Recommendation) and isinstance(theirs_rec, Recommendation)
    # quick-check's own run: async as the opt-in it is, and the no_wdelay note
    assert ours_rec.async_alternative is not None and any("no_wdelay" in n for n in ours_rec.notes)
    assert own_names(repr(theirs_rec)) == repr(ours_rec)
    ours_found = session_findings(results, ours, shipped)
    theirs_found = session_findings(results, theirs, {**shipped, mine.id: mine})
    assert "async" in ours_found.answer.change and "opt-in" in ours_found.answer.change
    assert own_names(repr(theirs_found)) == repr(ours_found)
