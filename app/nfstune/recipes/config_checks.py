"""A recipe's configurations checked one by one (label, options, condition, workloads, clients, nfsd threads,
scratch filesystem) and against each other (labels, the host they change, how they load the server)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Literal

from nfstune.bench.workloads import FRONT_END_WORKLOADS
from nfstune.nfs.option_rules import describe, did_you_mean
from nfstune.recipes.condition_checks import SCRATCH_FILESYSTEMS, read_condition
from nfstune.recipes.key_reader import KeyReader
from nfstune.recipes.model import WORKLOADS, Condition, Config, FactTest
from nfstune.recipes.option_checks import read_export, read_mount
from nfstune.recipes.toml_lines import KeyPath

LABEL_MAX = 24  # a column heading
READ_AHEAD_KB_MAX = 1048576
CLIENTS_MAX = 16  # clients at once through one fio front end: far more than a small office's machines
NFSD_THREADS_MAX = 1024  # changes/nfsd_threads.MOST
# key -> whether it is required
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


def read_workloads(keys: KeyReader, table: dict[str, Any], path: KeyPath) -> tuple[str, ...]:
    items = keys.strings(table, path)
    if not items and isinstance(table.get(str(path[-1])), list):
        keys.problem(path, f"must name at least one workload: {', '.join(WORKLOADS)}")
    found: list[str] = []
    for item_path, name in items:
        if name not in WORKLOADS:
            message = f"unknown workload '{name}'{did_you_mean(name, WORKLOADS)}; known: {', '.join(WORKLOADS)}"
            keys.problem(path, message, at=item_path)
        elif name in found:
            keys.problem(path, f"'{name}' is listed twice", at=item_path)
        else:
            found.append(name)
    return tuple(found)


def read_configs(keys: KeyReader, value: object, workloads: tuple[str, ...]) -> list[Config]:
    path: KeyPath = ("configs",)
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        keys.problem(path, "must be an array of tables: one [[configs]] section per configuration")
        return []
    if not value:  # one alone is measured, not compared (first-look)
        keys.problem(path, "needs at least one configuration")
    configs: list[Config] = []
    for index, item in enumerate(value):
        config = _read_config(keys, item, (*path, index), workloads)
        if config is None:
            continue
        earlier = [i for i, other in enumerate(value[:index]) if other.get("label") == config.label]
        if earlier:
            keys.problem((*path, index, "label"), f"'{config.label}' is already the label of configs[{earlier[0]}]")
        configs.append(config)
    return configs


def _read_config(keys: KeyReader, value: dict[str, Any], path: KeyPath, workloads: tuple[str, ...]) -> Config | None:
    keys.table(value, path, CONFIG_KEYS)
    label = keys.text(value, (*path, "label"), max_length=LABEL_MAX)
    mount = read_mount(keys, value.get("mount", {}), (*path, "mount"))
    if mount.vers == "4.0" and (mount.nconnect or 1) > 1:
        keys.problem(
            (*path, "mount"),
            "nconnect with NFSv4.0: not used (NetApp TR-4067 advises against it)",
            at=(*path, "mount", "nconnect"),
        )
    config = Config(
        label=label or "",
        mount=mount,
        read_ahead_kb=keys.integer(value, (*path, "read_ahead_kb"), 0, READ_AHEAD_KB_MAX),
        export=read_export(keys, value.get("export", {}), (*path, "export")),
        when=read_condition(keys, value.get("when", {}), (*path, "when")),
        workloads=read_workloads(keys, value, (*path, "workloads")) if "workloads" in value else workloads,
        expectation=keys.text(value, (*path, "expectation")),
        warning=keys.text(value, (*path, "warning")),
        never_recommend=keys.boolean(value, (*path, "never_recommend")),
        expect=_read_expect(keys, value, (*path, "expect")),
        clients=keys.integer(value, (*path, "clients"), 1, CLIENTS_MAX),
        nfsd_threads=keys.integer(value, (*path, "nfsd_threads"), 1, NFSD_THREADS_MAX),
        filesystem=_read_filesystem(keys, value, (*path, "filesystem")),
    )
    if config.clients is not None:
        config = _several_clients(keys, config, path)
    if config.filesystem is not None:
        # skipped, with the reason, on a server without that filesystem's mkfs
        needs = FactTest("server_filesystems", equals=config.filesystem)
        config = replace(config, when=Condition((*config.when.tests, needs)))
    return None if label is None else config


def _several_clients(keys: KeyReader, config: Config, path: KeyPath) -> Config:
    """A configuration run from several clients at once: only fio's workloads, and skipped (with the reason)
    where the session has fewer clients than it needs."""
    assert config.clients is not None
    for alone in (w for w in config.workloads if w not in FRONT_END_WORKLOADS):
        keys.problem(
            (*path, "clients"),
            f"{alone} runs on one client at a time: fio's front end starts only "
            f"{', '.join(FRONT_END_WORKLOADS)} on several at once; list this configuration's workloads without it",
        )
    if config.clients == 1:
        return config
    needs = FactTest("clients_connected", at_least=config.clients)
    return replace(config, when=Condition((*config.when.tests, needs)))


def _read_filesystem(keys: KeyReader, table: dict[str, Any], path: KeyPath) -> str | None:
    value = table.get(str(path[-1]))
    if value is None:
        return None
    if value not in SCRATCH_FILESYSTEMS:
        hint = did_you_mean(str(value), SCRATCH_FILESYSTEMS)
        keys.problem(path, f"must be one of {', '.join(SCRATCH_FILESYSTEMS)}, not {describe(value)}{hint}")
        return None
    return str(value)


def _read_expect(keys: KeyReader, table: dict[str, Any], path: KeyPath) -> Literal["same"] | None:
    value = table.get(str(path[-1]))
    if value is None:
        return None
    if value != "same":
        keys.problem(path, f"must be 'same' (it measures the same as the baseline), not {describe(value)}")
        return None
    return "same"


def check_host(keys: KeyReader, changes_host: object, configs: list[Config]) -> None:
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
            keys.problem(("configs", index, key), message)
    elif changes_host == "server" and configs and not server_changes:
        keys.problem(("changes_host",), "is 'server' but no configuration changes the server: use 'client'")


def same_load(keys: KeyReader, configs: list[Config]) -> None:
    """Every configuration of a recipe from the clients it names, or none: a figure from fio's front end and
    one from a client alone are not measured the same way."""
    _every_or_none(
        keys,
        configs,
        "clients",
        lambda c: c.clients is not None,
        "give every configuration its number of clients (clients = 1 for one client through fio's front end)",
    )


def same_filesystems(keys: KeyReader, configs: list[Config]) -> None:
    """Every configuration on a scratch filesystem of nfstune's own, or none: a figure from the user's export
    and one from a file-backed filesystem beside it do not measure the same disk path."""
    scratch = _every_or_none(
        keys,
        configs,
        "filesystem",
        lambda c: c.filesystem is not None,
        "give every configuration its filesystem (each runs on a scratch filesystem of nfstune's own, never on "
        "the share)",
    )
    for index in scratch:
        if configs[index].clients is not None:
            keys.problem(("configs", index, "clients"), "a scratch filesystem is loaded from one client only")


def _every_or_none(
    keys: KeyReader, configs: list[Config], key: str, has: Callable[[Config], bool], advice: str
) -> list[int]:
    """A key that every configuration of a recipe must have, or none; the indexes of those that have it."""
    having = [index for index, config in enumerate(configs) if has(config)]
    if having and len(having) != len(configs):
        missing = next(index for index, config in enumerate(configs) if not has(config))
        keys.problem(("configs", missing), f"has no '{key}', but configs[{having[0]}] has: {advice}")
    return having
