"""The import contracts of pyproject.toml (checked by `lint-imports` in `make lint`) cover the whole package: a
forbidden contract checks only the modules it names, so a new top-level module left out of "qt-only-in-ui" could
import Qt unseen."""

from __future__ import annotations

import tomllib
from pathlib import Path

import nfstune

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"
# the desktop itself, and the command line that starts it (its own contract: Qt only through nfstune.ui)
MAY_IMPORT_QT = {"nfstune.ui", "nfstune.cli", "nfstune.__main__"}


def modules(contract_id: str, key: str) -> set[str]:
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    (found,) = [c for c in contracts if c.get("id") == contract_id]
    return set(found[key])


def top_level_modules() -> set[str]:
    package = Path(nfstune.__file__).parent
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    return {f"nfstune.{name}" for name in names}


def test_every_module_outside_the_desktop_is_checked_for_qt() -> None:
    sources = modules("qt-only-in-ui", "source_modules")
    assert {"PySide6", "pyqtgraph", "nfstune.ui"} <= modules("qt-only-in-ui", "forbidden_modules")
    assert sorted(top_level_modules() - MAY_IMPORT_QT - sources) == []  # add the new module to source_modules
    assert sorted(sources - top_level_modules()) == []  # a module that is gone: lint-imports would fail on it
    assert top_level_modules() >= MAY_IMPORT_QT  # these names are still real


def test_the_command_line_is_held_to_its_own_contract() -> None:
    cli = "cli-launches-the-desktop-lazily"
    assert modules(cli, "source_modules") == MAY_IMPORT_QT - {"nfstune.ui"}
    assert {"PySide6", "pyqtgraph"} <= modules(cli, "forbidden_modules")
