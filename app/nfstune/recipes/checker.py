"""A parsed recipe document checked key by key and turned into a Recipe, every problem collected with the key it
is about: the recipe's own keys, its rounds and its notes here, in the order a recipe file is written; its
configurations in config_checks.py, their options and conditions in option_checks.py and condition_checks.py."""

from __future__ import annotations

import re
from typing import Any

from nfstune.nfs.option_rules import MOUNT_VALUED, describe, did_you_mean
from nfstune.recipes.condition_checks import read_condition
from nfstune.recipes.config_checks import (
    LABEL_MAX,
    check_host,
    read_configs,
    read_workloads,
    same_filesystems,
    same_load,
)
from nfstune.recipes.key_reader import KeyReader
from nfstune.recipes.model import FACTS, Note, Recipe, Rounds, placeholders
from nfstune.recipes.toml_lines import KeyPath

TITLE_MAX = 60
ROUNDS_LIMIT = 50
WARMUP_LIMIT = 10
MARGIN_MAX = 50  # percent: a wider "no difference that matters" would call almost anything the same
GROW_SPREAD_MAX = 100  # percent: a spread above it is a broken measurement, not one larger files would calm
BUDGET_MAX_MINUTES = 24 * 60
SCALES = ("small", "normal")
# key -> whether it is required
RECIPE_KEYS = {
    "id": True,
    "title": True,
    "summary": True,
    "why": True,
    "changes_host": True,
    "workloads": True,
    "configs": True,
    "baseline": False,
    "rounds": False,
    "repeats": False,
    "warning": False,
    "expectation": False,
    "never_recommend": False,
    "show_negotiated": False,
    "notes": False,
}
ROUNDS_KEYS = {
    "min": False,
    "max": False,
    "warmup": False,
    "margin": False,
    "grow_spread": False,
    "budget_minutes": False,
}
# the table of nfstune 0.x (user recipes still have it): min/max/warmup map across, cv_target is not used any more
REPEATS_KEYS = {"min": False, "max": False, "cv_target": False, "warmup": False}
NOTE_KEYS = {"text": True, "when": False}


class Checker(KeyReader):
    """Turns a parsed TOML document into a Recipe, collecting every problem instead of stopping at the first."""

    def __init__(self, file_stem: str) -> None:
        super().__init__()
        self.file_stem = file_stem

    def recipe(self, data: dict[str, Any]) -> Recipe | None:
        self.table(data, (), RECIPE_KEYS)
        recipe_id = self.text(data, ("id",), max_length=TITLE_MAX)
        if recipe_id is not None and not re.fullmatch(r"[a-z0-9][a-z0-9-]*", recipe_id):
            self.problem(
                ("id",), f"'{recipe_id}' must be lowercase letters, digits and '-' (it is typed on a command line)"
            )
        elif recipe_id is not None and recipe_id != self.file_stem:
            self.problem(("id",), f"'{recipe_id}' differs from the file name: the id must be '{self.file_stem}'")
        title, summary, why = (
            self.text(data, (key,), max_length=TITLE_MAX if key == "title" else None)
            for key in ("title", "summary", "why")
        )
        changes_host = data.get("changes_host")
        if "changes_host" in data and changes_host not in ("client", "server"):
            self.problem(("changes_host",), f"must be 'client' or 'server', not {describe(changes_host)}")
        workloads = read_workloads(self, data, ("workloads",)) if "workloads" in data else ()
        rounds = self.rounds(data)
        shown = []
        for path, name in self.strings(data, ("show_negotiated",)):
            if name in MOUNT_VALUED:
                shown.append(name)
            else:
                hint = did_you_mean(name, MOUNT_VALUED)
                self.problem(path[:-1], f"'{name}' is not a mount option with a value{hint}", at=path)
        notes = self.notes(data.get("notes", []))
        configs = read_configs(self, data.get("configs"), workloads) if "configs" in data else []
        labels = [config.label for config in configs]
        baseline = self.text(data, ("baseline",), max_length=LABEL_MAX) or (labels[0] if labels else "")
        if configs and baseline not in labels:
            self.problem(("baseline",), f"no configuration is labelled '{baseline}'{did_you_mean(baseline, labels)}")
        check_host(self, changes_host, configs)
        same_load(self, configs)
        same_filesystems(self, configs)
        warning, expectation = self.text(data, ("warning",)), self.text(data, ("expectation",))
        never_recommend = self.boolean(data, ("never_recommend",))
        if self.problems or recipe_id is None or title is None or summary is None or why is None:
            return None
        return Recipe(
            id=recipe_id,
            title=title,
            summary=summary,
            why=why,
            changes_host="server" if changes_host == "server" else "client",
            configs=tuple(configs),
            workloads=workloads,
            baseline=baseline,
            rounds=rounds,
            warning=warning,
            expectation=expectation,
            never_recommend=never_recommend,
            show_negotiated=tuple(shown),
            notes=notes,
        )

    def rounds(self, data: dict[str, Any]) -> Rounds:
        if "rounds" in data and "repeats" in data:
            self.problem(("repeats",), "the recipe has [rounds]: remove the older [repeats] table")
            return Rounds()
        old = "rounds" not in data and "repeats" in data
        name = "repeats" if old else "rounds"
        path: KeyPath = (name,)
        table = self.table(data.get(name, {}), path, REPEATS_KEYS if old else ROUNDS_KEYS)
        if table is None:
            return Rounds()
        low = self.integer(table, (*path, "min"), 1 if old else 2, ROUNDS_LIMIT)
        high = self.integer(table, (*path, "max"), 1 if old else 2, ROUNDS_LIMIT)
        warmup = self.integer(table, (*path, "warmup"), 0, WARMUP_LIMIT)
        if old:
            cv_target = table.get("cv_target", 5.0)
            if isinstance(cv_target, bool) or not isinstance(cv_target, int | float) or not 0 < cv_target <= 100:
                self.problem(
                    (*path, "cv_target"), f"must be a percentage above 0 and at most 100, not {describe(cv_target)}"
                )
            # a paired comparison needs two rounds at least
            low, high = (None if v is None else max(2, v) for v in (low, high))
        defaults = Rounds()
        margin = self.number(table, (*path, "margin"), MARGIN_MAX, defaults.margin_percent)
        grow_spread = (
            defaults.grow_spread_percent
            if old
            else self.number(table, (*path, "grow_spread"), GROW_SPREAD_MAX, defaults.grow_spread_percent)
        )
        budgets = dict(defaults.budget_minutes)
        budget_path = (*path, "budget_minutes")
        if "budget_minutes" in table:
            given = self.table(table["budget_minutes"], budget_path, dict.fromkeys(SCALES, False))
            for scale in SCALES:
                if given is not None and scale in given:
                    budgets[scale] = self.number(given, (*budget_path, scale), BUDGET_MAX_MINUTES, budgets[scale])
        # an unset bound follows the one given, so `min = 12` alone is not an error against the default max
        low_value = low if low is not None else min(defaults.min, high or defaults.min)
        high_value = high if high is not None else max(defaults.max, low_value)
        if low_value > high_value:
            self.problem(path, f"min ({low_value}) is larger than max ({high_value})", at=(*path, "min"))
        return Rounds(
            low_value, high_value, defaults.warmup if warmup is None else warmup, margin, grow_spread, budgets
        )

    def notes(self, value: object) -> tuple[Note, ...]:
        path: KeyPath = ("notes",)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem(path, "must be an array of tables: one [[notes]] section per note")
            return ()
        notes = []
        for index, item in enumerate(value):
            self.table(item, (*path, index), NOTE_KEYS)
            text = self.text(item, (*path, index, "text"))
            when = read_condition(self, item.get("when", {}), (*path, index, "when"))
            for name in placeholders(text or ""):
                if name not in FACTS:
                    hint = did_you_mean(name, FACTS)
                    self.problem((*path, index, "text"), f"unknown fact '{{{name}}}'{hint}; known: {', '.join(FACTS)}")
            if text is not None:
                notes.append(Note(text, when))
        return tuple(notes)
