"""Benchmark table: two stop rules' tallies of the same cells side by side, from verdict_simulation.py --raw files
(the same sessions: they depend only on the seed, the cell and the session's number). For a rule that the code no
longer has, run verdict_simulation.py from this tree with an older tree's app/ on PYTHONPATH and --rule-as:

    git archive <old commit> app | tar -x -C /tmp/old-tree
    PYTHONPATH=/tmp/old-tree/app python tools/bench/verdict_simulation.py --cells robust --sessions 2000 \\
        --rules sequential --rule-as sequential=t-before --raw /tmp/old.jsonl
    PYTHONPATH=app python tools/bench/verdict_simulation.py --cells robust --sessions 2000 --rules sequential \\
        --raw /tmp/new.jsonl
    PYTHONPATH=app python tools/bench/verdict_side_by_side.py /tmp/old.jsonl /tmp/new.jsonl

Prints a Markdown table: per cell, each rule's family-wise false positives (A/A; and among the others in an effect
cell of several comparisons) and its power (effect cells), with exact binomial 95 % intervals. Asserts nothing.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from verdict_simulation import Cell, Tally, _order, load_raw, rate  # this folder is on sys.path when a tool runs


def side_by_side(results: Sequence[tuple[Cell, dict[str, Tally]]], rules: Sequence[str]) -> str:
    head = "| truth | comparisons | cap | noise | disturbance | " + " | ".join(
        f"{rule}: false positive, % | {rule}: right verdict, %" for rule in rules
    )
    lines = [head + " |", "|" + "---|" * (5 + 2 * len(rules))]
    for cell, found in sorted(results, key=lambda r: _order(r[0])):
        parts = cell.label.split(" | ")
        label = " | ".join([*parts[:4], parts[4] if len(parts) > 4 and parts[4] else "none"])
        cells = []
        for rule in rules:
            t = found.get(rule)
            if t is None:
                cells += ["-", "-"]
                continue
            fp = rate(t.false_positive, t.sessions) if cell.effect == 1 or cell.comparisons > 1 else "-"
            power = rate(t.right, t.sessions) if cell.effect != 1 else "-"
            cells += [fp, power]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("raw", type=Path, nargs="+", help="verdict_simulation.py --raw files")
    args = parser.parse_args(argv)
    merged: dict[str, tuple[Cell, dict[str, Tally]]] = {}
    rules: list[str] = []
    for path in args.raw:
        for cell, found in load_raw(path)[0]:
            merged.setdefault(cell.name, (cell, {}))[1].update(found)
            rules += [r for r in found if r not in rules]
    print(side_by_side(list(merged.values()), rules))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
