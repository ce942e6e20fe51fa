"""A recipe's conditions (`when`, of a configuration or a note) checked: each fact known, each test one its kind
of fact takes, each value of that kind."""

from __future__ import annotations

from nfstune.nfs.kernel_view import NFS_VERSIONS
from nfstune.nfs.option_rules import describe, did_you_mean, is_integer, version_text
from nfstune.recipes.key_reader import KeyReader
from nfstune.recipes.model import FACTS, Condition, FactKind, FactTest, Scalar
from nfstune.recipes.toml_lines import KeyPath

# what a server_filesystems test may name, and a configuration's filesystem (config_checks.py)
SCRATCH_FILESYSTEMS = ("ext4", "xfs", "btrfs")  # changes/isolated.py makes each
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


def read_condition(keys: KeyReader, value: object, path: KeyPath) -> Condition:
    if not isinstance(value, dict):
        keys.problem(path, f'must be a table of facts such as {{ server_nfs_version = "4.0" }}, not {describe(value)}')
        return Condition()
    tests: list[FactTest] = []
    for fact, test in value.items():
        fact_path = (*path, fact)
        if fact not in FACTS:
            keys.problem(
                path, f"unknown fact '{fact}'{did_you_mean(fact, FACTS)}; known: {', '.join(FACTS)}", at=fact_path
            )
            continue
        kind = FACTS[fact].kind
        if not isinstance(test, dict):
            equals = _read_fact_value(keys, kind, test, fact_path)
            if equals is not None:
                tests.append(FactTest(fact, equals=equals))
            continue
        allowed = TEST_KEYS[kind]
        for name in test:
            if name not in allowed:
                hint = did_you_mean(name, allowed)
                keys.problem(
                    fact_path,
                    f"unknown test '{name}'{hint}; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}",
                    at=(*fact_path, name),
                )
        if not test:
            keys.problem(fact_path, f"empty test; {KIND_NAMES[kind]} fact takes: {', '.join(allowed)}")
        if "not" in test:
            equals = _read_fact_value(keys, kind, test["not"], (*fact_path, "not"))
            if equals is not None:
                tests.append(FactTest(fact, equals=equals, negate=True))
        bounds = {name: test[name] for name in ("at_least", "below") if name in test and name in allowed}
        for name, bound in bounds.items():
            if not is_integer(bound):
                keys.problem((*fact_path, name), f"must be an integer, not {describe(bound)}")
        if bounds and all(is_integer(bound) for bound in bounds.values()):
            tests.append(FactTest(fact, at_least=bounds.get("at_least"), below=bounds.get("below")))
    return Condition(tuple(tests))


def _read_fact_value(keys: KeyReader, kind: FactKind, value: object, path: KeyPath) -> Scalar | None:
    if kind == "versions":
        version = version_text(value)
        if version in NFS_VERSIONS:
            return version
        keys.problem(path, f"must be an NFS version ({', '.join(NFS_VERSIONS)}), not {describe(value)}")
    elif kind == "filesystems":
        if value in SCRATCH_FILESYSTEMS:
            return str(value)
        keys.problem(path, f"must be one of {', '.join(SCRATCH_FILESYSTEMS)}, not {describe(value)}")
    elif kind == "int":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        keys.problem(path, f"must be an integer, not {describe(value)}")
    elif isinstance(value, bool):
        return value
    else:
        keys.problem(path, f"must be true or false, not {describe(value)}")
    return None
