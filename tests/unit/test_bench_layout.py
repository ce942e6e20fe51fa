"""bench/ without an import cycle: workloads.py holds the types, fio.py and fallback.py build on them, and
commands.py is the one module that knows both tools. Read from the source with ast, function bodies included, so
that an import moved into a function to hide a cycle still counts."""

from __future__ import annotations

import ast
from pathlib import Path

import nfstune.bench

BENCH = Path(nfstune.bench.__file__).parent


def bench_imports() -> dict[str, set[str]]:
    """module -> the bench modules it imports, wherever in the file (top level or inside a function)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(BENCH.glob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module == "nfstune.bench":
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nfstune.bench."):
                found.add((node.module or "").split(".")[2])
            elif isinstance(node, ast.Import):
                found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("nfstune.bench.")}
        graph[path.stem] = found - {path.stem}
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as the path that closes it, or None."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str] | None:
        if module in path:
            return [*path[path.index(module) :], module]
        if module in done:
            return None
        for imported in sorted(graph.get(module, ())):
            found = visit(imported, [*path, module])
            if found:
                return found
        done.add(module)
        return None

    return next((c for c in (visit(m, []) for m in sorted(graph)) if c), None)


def test_bench_has_no_import_cycle() -> None:
    graph = bench_imports()
    assert {"workloads", "fio", "fallback", "commands", "runner"} <= set(graph)
    assert cycle(graph) is None


def test_workloads_holds_the_types_and_commands_alone_knows_both_tools() -> None:
    graph = bench_imports()
    assert graph["workloads"] == set()
    assert [m for m, imported in graph.items() if {"fio", "fallback"} <= imported] == ["commands"]


def test_the_cycle_check_finds_a_cycle() -> None:
    graph = {"workloads": {"fio"}, "fio": {"steady", "workloads"}, "steady": set()}
    assert cycle(graph) == ["fio", "workloads", "fio"]
    assert cycle({**graph, "workloads": set()}) is None
