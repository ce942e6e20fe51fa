"""A parsed recipe document checked key by key and turned into a Recipe, every problem collected with the key it
is about. One class on purpose (over 400 lines): each check sits beside the key it reads, in the order a recipe
file is written, and shares the problem list and the helpers for tables, strings and numbers."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from nfstune.bench.workloads import FRONT_END_WORKLOADS
from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.export_options import FLAG_OPTIONS
from nfstune.nfs.kernel_view import NFS_VERSIONS
from nfstune.nfs.mount_options import MountOption, MountOptions
from nfstune.nfs.option_rules import (
    EXPORT_NAMES,
    EXPORT_REFUSED,
    EXPORT_TUNABLE,
    MOUNT_EXCLUSIVE,
    MOUNT_VALUED,
    NOT_TUNABLE,
    check_export_option,
    check_mount_option,
    describe,
    did_you_mean,
    is_integer,
    version_text,
)
from nfstune.recipes.model import (
    FACTS,
    WORKLOADS,
    Condition,
    Config,
    FactKind,
    FactTest,
    Note,
    Recipe,
    Rounds,
    Scalar,
    placeholders,
)
from nfstune.recipes.toml_lines import KeyPath

LABEL_MAX = 24  # a column heading
TITLE_MAX = 60
ROUNDS_LIMIT = 50
WARMUP_LIMIT = 10
MARGIN_MAX = 50  # percent: a wider "no difference that matters" would call almost anything the same
GROW_SPREAD_MAX = 100  # percent: a spread above it is a broken measurement, not one larger files would calm
BUDGET_MAX_MINUTES = 24 * 60
SCALES = ("small", "normal")
READ_AHEAD_KB_MAX = 1048576
CLIENTS_MAX = 16  # clients at once through one fio front end: far more than a small office's machines
NFSD_THREADS_MAX = 1024  # changes/nfsd_threads.MOST
SCRATCH_FILESYSTEMS = ("ext4", "xfs", "btrfs")  # changes/isolated.py makes each


@dataclass(frozen=True)
class Problem:
    key: KeyPath  # what the message is about
    at: KeyPath  # where its line is looked for (the offending key itself, when there is one)
    message: str


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
CONFIG_KEYS = {
    "label": True,
    "mount": False,
    "read_ahead_kb": False,
    "export": False,
    "when": False,
    "workloads": False,
    "expectation": False,
    "warning": False,
    "never_recommend": False,
    "expect": False,
    "clients": False,
    "nfsd_threads": False,
    "filesystem": False,
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
EXPORT_KEYS = {"set": False, "unset": False}
NOTE_KEYS = {"text": True, "when": False}
TEST_KEYS: dict[FactKind, tuple[str, ...]] = {
    "versions": ("not",),
    "filesystems": ("not",),
    "bool": ("not",),
    "int": ("not", "at_least", "below"),
}
KIND_NAMES: dict[FactKind, str] = {
    "versions": "an NFS version",
    "filesystems": "a filesystem",
    "bool": "a true/false",
    "int": "a number",
}


class Checker:
    """Turns a parsed TOML document into a Recipe, collecting every problem instead of stopping at the first."""

    def __init__(self, file_stem: str) -> None:
        self.file_stem = file_stem
        self.problems: list[Problem] = []

    def problem(self, key: KeyPath, message: str, at: KeyPath | None = None) -> None:
        self.problems.append(Problem(key, key if at is None else at, message))

    def table(self, value: object, path: KeyPath, keys: dict[str, bool]) -> dict[str, Any] | None:
        """`value` as a table with only `keys` (name -> required) in it."""
        if not isinstance(value, dict):
            self.problem(path, f"must be a table, not {describe(value)}")
            return None
        for name in value:
            if name not in keys:
                self.problem(path, f"unknown key '{name}'{did_you_mean(name, keys)}", at=(*path, name))
        for name, required in keys.items():
            if required and name not in value:
                self.problem(path, f"missing required key '{name}'")
        return value

    def text(self, table: dict[str, Any], path: KeyPath, *, max_length: int | None = None) -> str | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem(path, f"must be a non-empty string, not {describe(value)}")
            return None
        if max_length is not None and ("\n" in value.strip() or len(value.strip()) > max_length):
            self.problem(path, f"must be one line of at most {max_length} characters")
            return None
        return value.strip()

    def integer(self, table: dict[str, Any], path: KeyPath, low: int, high: int) -> int | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.problem(path, f"must be an integer from {low} to {high}, not {describe(value)}")
            return None
        return value

    def boolean(self, table: dict[str, Any], path: KeyPath) -> bool:
        value = table.get(str(path[-1]), False)
        if not isinstance(value, bool):
            self.problem(path, f"must be true or false, not {describe(value)}")
            return False
        return value

    def strings(self, table: dict[str, Any], path: KeyPath) -> list[tuple[KeyPath, str]]:
        """An array of strings, each with its own path for the line."""
        value = table.get(str(path[-1]), [])
        if not isinstance(value, list):
            self.problem(path, f"must be an array of strings, not {describe(value)}")
            return []
        items = []
        for index, item in enumerate(value):
            if isinstance(item, str):
                items.append(((*path, index), item))
            else:
                self.problem(path, f"must hold strings only, not {describe(item)}", at=(*path, index))
        return items

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
        workloads = self.workloads(data, ("workloads",)) if "workloads" in data else ()
        rounds = self.rounds(data)
        shown = []
        for path, name in self.strings(data, ("show_negotiated",)):
            if name in MOUNT_VALUED:
                shown.append(name)
            else:
                hint = did_you_mean(name, MOUNT_VALUED)
                self.problem(path[:-1], f"'{name}' is not a mount option with a value{hint}", at=path)
        notes = self.notes(data.get("notes", []))
        configs = self.configs(data.get("configs"), workloads) if "configs" in data else []
        labels = [config.label for config in configs]
        baseline = self.text(data, ("baseline",), max_length=LABEL_MAX) or (labels[0] if labels else "")
        if configs and baseline not in labels:
            self.problem(("baseline",), f"no configuration is labelled '{baseline}'{did_you_mean(baseline, labels)}")
        self.check_host(changes_host, configs)
        self.same_load(configs)
        self.same_filesystems(configs)
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

    def check_host(self, changes_host: object, configs: list[Config]) -> None:
        server_changes = [index for index, config in enumerate(configs) if config.changes_server]
        if changes_host == "client":
            for index in server_changes:
                config = configs[index]
                key = (
                    "export"
                    if config.export
                    else "filesystem"
                    if config.filesystem
                    else "nfsd_threads"
                    if config.nfsd_threads is not None
                    else "mount"
                )
                message = "changes the server, but changes_host = 'client' (client recipes never touch it)"
                self.problem(("configs", index, key), message)
        elif changes_host == "server" and configs and not server_changes:
            self.problem(("changes_host",), "is 'server' but no configuration changes the server: use 'client'")

    def workloads(self, table: dict[str, Any], path: KeyPath) -> tuple[str, ...]:
        items = self.strings(table, path)
        if not items and isinstance(table.get(str(path[-1])), list):
            self.problem(path, f"must name at least one workload: {', '.join(WORKLOADS)}")
        found: list[str] = []
        for item_path, name in items:
            if name not in WORKLOADS:
                message = f"unknown workload '{name}'{did_you_mean(name, WORKLOADS)}; known: {', '.join(WORKLOADS)}"
                self.problem(path, message, at=item_path)
            elif name in found:
                self.problem(path, f"'{name}' is listed twice", at=item_path)
            else:
                found.append(name)
        return tuple(found)

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

    def number(self, table: dict[str, Any], path: KeyPath, high: float, default: float) -> float:
        """A positive number (integer or float) at most `high`; `default` when absent or wrong."""
        value = table.get(str(path[-1]))
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= high:
            self.problem(path, f"must be a number above 0 and at most {high:g}, not {describe(value)}")
            return default
        return float(value)

    def configs(self, value: object, workloads: tuple[str, ...]) -> list[Config]:
        path: KeyPath = ("configs",)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem(path, "must be an array of tables: one [[configs]] section per configuration")
            return []
        if not value:  # one alone is measured, not compared (first-look)
            self.problem(path, "needs at least one configuration")
        configs: list[Config] = []
        for index, item in enumerate(value):
            config = self.config(item, (*path, index), workloads)
            if config is None:
                continue
            earlier = [i for i, other in enumerate(value[:index]) if other.get("label") == config.label]
            if earlier:
                self.problem((*path, index, "label"), f"'{config.label}' is already the label of configs[{earlier[0]}]")
            configs.append(config)
        return configs

    def config(self, value: dict[str, Any], path: KeyPath, workloads: tuple[str, ...]) -> Config | None:
        self.table(value, path, CONFIG_KEYS)
        label = self.text(value, (*path, "label"), max_length=LABEL_MAX)
        mount = self.mount(value.get("mount", {}), (*path, "mount"))
        if mount.vers == "4.0" and (mount.nconnect or 1) > 1:
            self.problem(
                (*path, "mount"),
                "nconnect with NFSv4.0: not used (NetApp TR-4067 advises against it)",
                at=(*path, "mount", "nconnect"),
            )
        config = Config(
            label=label or "",
            mount=mount,
            read_ahead_kb=self.integer(value, (*path, "read_ahead_kb"), 0, READ_AHEAD_KB_MAX),
            export=self.export(value.get("export", {}), (*path, "export")),
            when=self.condition(value.get("when", {}), (*path, "when")),
            workloads=self.workloads(value, (*path, "workloads")) if "workloads" in value else workloads,
            expectation=self.text(value, (*path, "expectation")),
            warning=self.text(value, (*path, "warning")),
            never_recommend=self.boolean(value, (*path, "never_recommend")),
            expect=self.expect(value, (*path, "expect")),
            clients=self.integer(value, (*path, "clients"), 1, CLIENTS_MAX),
            nfsd_threads=self.integer(value, (*path, "nfsd_threads"), 1, NFSD_THREADS_MAX),
            filesystem=self.filesystem(value, (*path, "filesystem")),
        )
        if config.clients is not None:
            config = self.several_clients(config, path)
        if config.filesystem is not None:
            # skipped, with the reason, on a server without that filesystem's mkfs
            needs = FactTest("server_filesystems", equals=config.filesystem)
            config = replace(config, when=Condition((*config.when.tests, needs)))
        return None if label is None else config

    def several_clients(self, config: Config, path: KeyPath) -> Config:
        """A configuration run from several clients at once: only fio's workloads, and skipped (with the reason)
        where the session has fewer clients than it needs."""
        assert config.clients is not None
        for alone in (w for w in config.workloads if w not in FRONT_END_WORKLOADS):
            self.problem(
                (*path, "clients"),
                f"{alone} runs on one client at a time: fio's front end starts only "
                f"{', '.join(FRONT_END_WORKLOADS)} on several at once; list this configuration's workloads without it",
            )
        if config.clients == 1:
            return config
        needs = FactTest("clients_connected", at_least=config.clients)
        return replace(config, when=Condition((*config.when.tests, needs)))

    def filesystem(self, table: dict[str, Any], path: KeyPath) -> str | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if value not in SCRATCH_FILESYSTEMS:
            hint = did_you_mean(str(value), SCRATCH_FILESYSTEMS)
            self.problem(path, f"must be one of {', '.join(SCRATCH_FILESYSTEMS)}, not {describe(value)}{hint}")
            return None
        return str(value)

    def every_or_none(self, configs: list[Config], key: str, has: Callable[[Config], bool], advice: str) -> list[int]:
        """A key that every configuration of a recipe must have, or none; the indexes of those that have it."""
        having = [index for index, config in enumerate(configs) if has(config)]
        if having and len(having) != len(configs):
            missing = next(index for index, config in enumerate(configs) if not has(config))
            self.problem(("configs", missing), f"has no '{key}', but configs[{having[0]}] has: {advice}")
        return having

    def same_filesystems(self, configs: list[Config]) -> None:
        """Every configuration on a scratch filesystem of nfstune's own, or none: a figure from the user's export
        and one from a file-backed filesystem beside it do not measure the same disk path."""
        scratch = self.every_or_none(
            configs,
            "filesystem",
            lambda c: c.filesystem is not None,
            "give every configuration its filesystem (each runs on a scratch filesystem of nfstune's own, never on "
            "the share)",
        )
        for index in scratch:
            if configs[index].clients is not None:
                self.problem(("configs", index, "clients"), "a scratch filesystem is loaded from one client only")

    def same_load(self, configs: list[Config]) -> None:
        """Every configuration of a recipe from the clients it names, or none: a figure from fio's front end and
        one from a client alone are not measured the same way."""
        self.every_or_none(
            configs,
            "clients",
            lambda c: c.clients is not None,
            "give every configuration its number of clients (clients = 1 for one client through fio's front end)",
        )

    def expect(self, table: dict[str, Any], path: KeyPath) -> Literal["same"] | None:
        value = table.get(str(path[-1]))
        if value is None:
            return None
        if value != "same":
            self.problem(path, f"must be 'same' (it measures the same as the baseline), not {describe(value)}")
            return None
        return "same"

    def mount(self, value: object, path: KeyPath) -> MountOptions:
        if not isinstance(value, dict):
            self.problem(path, f"must be a table of mount options such as {{ vers = 4.2 }}, not {describe(value)}")
            return MountOptions()
        options = []
        for name, option_value in value.items():
            rendered, error = check_mount_option(name, option_value)
            if error:
                self.problem(path, error, at=(*path, name))
            else:
                options.append(MountOption(name, rendered))
        for group in MOUNT_EXCLUSIVE:
            present = [name for name in group if name in value]
            if len(present) > 1:
                self.problem(path, f"{' and '.join(present)} exclude each other: keep one", at=(*path, present[1]))
        return MountOptions(tuple(options))

    def export(self, value: object, path: KeyPath) -> ExportOptionEdit:
        table = self.table(value, path, EXPORT_KEYS)
        if table is None:
            return ExportOptionEdit()
        to_set, to_unset = self.strings(table, (*path, "set")), self.strings(table, (*path, "unset"))
        for item_path, item in to_set:
            error = check_export_option(item)
            if error:
                self.problem(item_path[:-1], error, at=item_path)
        for item_path, name in to_unset:
            if name not in EXPORT_NAMES or name in EXPORT_REFUSED:
                message = f"unset takes option names: '{name}' is not one{did_you_mean(name, EXPORT_NAMES)}"
                self.problem(item_path[:-1], message, at=item_path)
            elif name not in EXPORT_TUNABLE:
                self.problem(item_path[:-1], f"'{name}' is not allowed in a recipe: {NOT_TUNABLE}", at=item_path)
        set_names = [(item_path, item.partition("=")[0]) for item_path, item in to_set]
        for position, (item_path, name) in enumerate(set_names):
            for _, other in set_names[:position]:
                if name in FLAG_OPTIONS and other in FLAG_OPTIONS and other != name:
                    (bit, on), (other_bit, other_on) = FLAG_OPTIONS[name], FLAG_OPTIONS[other]
                    if bit == other_bit and on != other_on:
                        self.problem(item_path[:-1], f"'{other}' and '{name}' exclude each other", at=item_path)
            if name in (unset for _, unset in to_unset):
                self.problem(item_path[:-1], f"'{name}' is both set and unset", at=item_path)
        return ExportOptionEdit(tuple(item for _, item in to_set), tuple(name for _, name in to_unset))

    def condition(self, value: object, path: KeyPath) -> Condition:
        if not isinstance(value, dict):
            self.problem(
                path, f'must be a table of facts such as {{ server_nfs_version = "4.0" }}, not {describe(value)}'
            )
            return Condition()
        tests: list[FactTest] = []
        for fact, test in value.items():
            fact_path = (*path, fact)
            if fact not in FACTS:
                self.problem(
                    path, f"unknown fact '{fact}'{did_you_mean(fact, FACTS)}; known: {', '.join(FACTS)}", at=fact_path
                )
                continue
            kind = FACTS[fact].kind
            if not isinstance(test, dict):
                equals = self.fact_value(kind, test, fact_path)
                if equals is not None:
                    tests.append(FactTest(fact, equals=equals))
                continue
            allowed = TEST_KEYS[kind]
            for name in test:
                if name not in allowed:
                    hint = did_you_mean(name, allowed)
                    self.problem(
                        fact_path,
                        f"unknown test '{name}'{hint}; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}",
                        at=(*fact_path, name),
                    )
            if not test:
                self.problem(fact_path, f"empty test; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}")
            if "not" in test:
                equals = self.fact_value(kind, test["not"], (*fact_path, "not"))
                if equals is not None:
                    tests.append(FactTest(fact, equals=equals, negate=True))
            bounds = {name: test[name] for name in ("at_least", "below") if name in test and name in allowed}
            for name, bound in bounds.items():
                if not is_integer(bound):
                    self.problem((*fact_path, name), f"must be an integer, not {describe(bound)}")
            if bounds and all(is_integer(bound) for bound in bounds.values()):
                tests.append(FactTest(fact, at_least=bounds.get("at_least"), below=bounds.get("below")))
        return Condition(tuple(tests))

    def fact_value(self, kind: FactKind, value: object, path: KeyPath) -> Scalar | None:
        if kind == "versions":
            version = version_text(value)
            if version in NFS_VERSIONS:
                return version
            self.problem(path, f"must be an NFS version ({', '.join(NFS_VERSIONS)}), not {describe(value)}")
        elif kind == "filesystems":
            if value in SCRATCH_FILESYSTEMS:
                return str(value)
            self.problem(path, f"must be one of {', '.join(SCRATCH_FILESYSTEMS)}, not {describe(value)}")
        elif kind == "int":
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            self.problem(path, f"must be an integer, not {describe(value)}")
        elif isinstance(value, bool):
            return value
        else:
            self.problem(path, f"must be true or false, not {describe(value)}")
        return None

    def notes(self, value: object) -> tuple[Note, ...]:
        path: KeyPath = ("notes",)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem(path, "must be an array of tables: one [[notes]] section per note")
            return ()
        notes = []
        for index, item in enumerate(value):
            self.table(item, (*path, index), NOTE_KEYS)
            text = self.text(item, (*path, index, "text"))
            when = self.condition(item.get("when", {}), (*path, index, "when"))
            for name in placeholders(text or ""):
                if name not in FACTS:
                    hint = did_you_mean(name, FACTS)
                    self.problem((*path, index, "text"), f"unknown fact '{{{name}}}'{hint}; known: {', '.join(FACTS)}")
            if text is not None:
                notes.append(Note(text, when))
        return tuple(notes)
