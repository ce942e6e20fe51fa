"""What a recipe's configuration sets checked: its mount options, and the export options it sets and unsets,
each against the rules of nfs/option_rules.py and against the others it gives."""

from __future__ import annotations

from nfstune.nfs.export_edit import ExportOptionEdit
from nfstune.nfs.export_options import FLAG_OPTIONS
from nfstune.nfs.mount_options import MountOption, MountOptions
from nfstune.nfs.option_rules import (
    EXPORT_NAMES,
    EXPORT_REFUSED,
    EXPORT_TUNABLE,
    MOUNT_EXCLUSIVE,
    NOT_TUNABLE,
    check_export_option,
    check_mount_option,
    describe,
    did_you_mean,
)
from nfstune.recipes.key_reader import KeyReader
from nfstune.recipes.toml_lines import KeyPath

EXPORT_KEYS = {"set": False, "unset": False}


def read_mount(keys: KeyReader, value: object, path: KeyPath) -> MountOptions:
    if not isinstance(value, dict):
        keys.problem(path, f"must be a table of mount options such as {{ vers = 4.2 }}, not {describe(value)}")
        return MountOptions()
    options = []
    for name, option_value in value.items():
        rendered, error = check_mount_option(name, option_value)
        if error:
            keys.problem(path, error, at=(*path, name))
        else:
            options.append(MountOption(name, rendered))
    for group in MOUNT_EXCLUSIVE:
        present = [name for name in group if name in value]
        if len(present) > 1:
            keys.problem(path, f"{' and '.join(present)} exclude each other: keep one", at=(*path, present[1]))
    return MountOptions(tuple(options))


def read_export(keys: KeyReader, value: object, path: KeyPath) -> ExportOptionEdit:
    table = keys.table(value, path, EXPORT_KEYS)
    if table is None:
        return ExportOptionEdit()
    to_set, to_unset = keys.strings(table, (*path, "set")), keys.strings(table, (*path, "unset"))
    for item_path, item in to_set:
        error = check_export_option(item)
        if error:
            keys.problem(item_path[:-1], error, at=item_path)
    for item_path, name in to_unset:
        if name not in EXPORT_NAMES or name in EXPORT_REFUSED:
            message = f"unset takes option names: '{name}' is not one{did_you_mean(name, EXPORT_NAMES)}"
            keys.problem(item_path[:-1], message, at=item_path)
        elif name not in EXPORT_TUNABLE:
            keys.problem(item_path[:-1], f"'{name}' is not allowed in a recipe: {NOT_TUNABLE}", at=item_path)
    set_names = [(item_path, item.partition("=")[0]) for item_path, item in to_set]
    for position, (item_path, name) in enumerate(set_names):
        for _, other in set_names[:position]:
            if name in FLAG_OPTIONS and other in FLAG_OPTIONS and other != name:
                (bit, on), (other_bit, other_on) = FLAG_OPTIONS[name], FLAG_OPTIONS[other]
                if bit == other_bit and on != other_on:
                    keys.problem(item_path[:-1], f"'{other}' and '{name}' exclude each other", at=item_path)
        if name in (unset for _, unset in to_unset):
            keys.problem(item_path[:-1], f"'{name}' is both set and unset", at=item_path)
    return ExportOptionEdit(tuple(item for _, item in to_set), tuple(name for _, name in to_unset))
