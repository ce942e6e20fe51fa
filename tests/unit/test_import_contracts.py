"""The import contracts of pyproject.toml (checked by `lint-imports` in `make lint`) cover the whole package: the
layers contract checks only the packages it names, so a new top-level package left out of it could import the
desktop (and through it Qt) unseen."""

from __future__ import annotations

import tomllib
from pathlib import Path

import nfstune

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"
# the modules at the top that every layer may use: they import nothing of nfstune's but each other
SHARED = {"nfstune.errors", "nfstune.paths", "nfstune.logs", "nfstune.signals", "nfstune.shell_text", "nfstune.words"}


def contract(contract_id: str) -> dict[str, object]:
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c.get("id") == contract_id]
    return dict(found)


def top_level_modules() -> set[str]:
    package = Path(nfstune.__file__).parent
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    return {f"nfstune.{name}" for name in names}


def layered_modules() -> set[str]:
    layers = contract("layers")["layers"]
    assert isinstance(layers, list)
    return {name.strip() for layer in layers for name in layer.replace(":", "|").split("|")}


def test_every_package_has_its_layer() -> None:
    assert sorted(top_level_modules() - SHARED - layered_modules()) == []  # add the new package to a layer
    assert sorted(layered_modules() - top_level_modules()) == []  # a package that is gone: lint-imports would fail
    assert top_level_modules() >= SHARED  # these names are still real


def test_qt_is_protected_by_package_not_by_a_list() -> None:
    qt = contract("qt-only-in-ui")
    assert qt["type"] == "protected"
    assert qt["allowed_importers"] == ["nfstune.ui"]
    assert {"PySide6", "pyqtgraph"} <= set(qt["protected_modules"])  # type: ignore[call-overload]


def test_the_command_line_is_held_to_its_own_contract() -> None:
    cli = contract("cli-launches-the-desktop-lazily")
    assert set(cli["source_modules"]) == {"nfstune.__main__", "nfstune.cli"}  # type: ignore[call-overload]
    assert {"PySide6", "pyqtgraph"} <= set(cli["forbidden_modules"])  # type: ignore[call-overload]
