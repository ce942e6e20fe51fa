"""A guided hand change, as planned: where nfstune cannot change the server (no login, or an appliance that owns its
NFS settings), a configuration whose only server change is the export's options, something the admin can set in the
NAS's own interface, is measured in blocks instead of interleaved visits. A block of rounds on the NAS as it is
(A), then the admin is asked to make the change and a block is measured with it (B), then asked to put it back, and
so on: A B A B A, two switches each way, so that the A blocks bracket the B blocks (statistics/blocks.py says why
that matters for the verdict). Pure: the planner (plan.py) lays the visits out by these blocks, the engine
(session/hand_rounds.py) asks at each switch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nfstune.facts.appliance import async_setting_hint, async_settings, server_setting_hint
from nfstune.recipes.model import Config, Recipe
from nfstune.statistics.blocks import Block

BLOCKS = 5  # A B A B A: two switches each way, and an A block either side of each B block
LEAST_BLOCK_ROUNDS = 2  # a block's figure is the mean of its rounds: one round alone leaves a visit's luck in it
# What the plan allows for each switch beside the measurements: opening the NAS's page, a rule's dialog, saving,
# and the NAS re-exporting (a guess: the admin's time is the admin's, and the plan says so)
SWITCH_S = 90.0
BULLET = "• "  # a line of `place`, one vendor's: the desktop shows the lines as they are, the terminal indents them


@dataclass(frozen=True)
class HandChange:
    """One configuration changed by hand against the NAS as it is."""

    as_is: str  # the label of the configuration measured on the NAS as it is (the recipe's baseline)
    changed: str  # the label of the configuration the admin makes by hand
    change: str  # what to change, in the admin's words
    back: str  # how to put it back
    place: str  # where on the NAS it is set
    rounds_per_block: int
    blocks: int = BLOCKS

    def labels(self) -> tuple[str, ...]:
        """The configuration of each block in turn: the NAS as it is first and last."""
        return tuple(self.as_is if i % 2 == 0 else self.changed for i in range(self.blocks))

    def rounds_of(self, block: int) -> tuple[int, ...]:
        """The rounds (1-based, one visit each) of block `block` (0-based)."""
        first = block * self.rounds_per_block + 1
        return tuple(range(first, first + self.rounds_per_block))

    def as_blocks(self) -> list[Block]:
        """Every block as the verdict judges it (statistics/blocks.py)."""
        return [Block(label, self.rounds_of(block)) for block, label in enumerate(self.labels())]

    @property
    def rounds(self) -> int:
        return self.blocks * self.rounds_per_block

    @property
    def switches(self) -> int:
        return self.blocks - 1

    def prompt(self, block: int) -> str:
        """What the admin is asked to do before block `block` (> 0): the change, or putting it back (where: `place`)."""
        if self.labels()[block] == self.changed:
            return f"Make this change: {self.change}."
        return f"Put it back: {self.back}."

    def leave_note(self, changed: bool) -> str:
        """How the NAS runs now (`changed`: with the admin's change, by the admin's word) and what the choice of how
        to leave it means: the admin makes it, nfstune cannot."""
        now = f"with your change ({self.changed})" if changed else f"as it was ({self.as_is})"
        choices = (
            f"with the change, or as it was ({self.as_is})"
            if changed
            else f"as it was, or with the change ({self.changed})"
        )
        return (
            f"The NAS now runs {now}. Choose how to leave it: {choices} — nfstune does not change it either way; "
            "you do, in the NAS's interface."
        )


def hand_change(base: Config, config: Config, place: str, rounds_per_block: int) -> HandChange:
    """The hand change of `config`'s export options against `base`, the recipe's baseline, set `place`."""
    edit = config.export
    parts = [f"set {', '.join(edit.set)}"] if edit.set else []
    parts += [f"remove {', '.join(edit.unset)}"] if edit.unset else []
    change = f"on the share's NFS export, {' and '.join(parts)}"
    back = "undo that change, so that the export is as it was"
    if base.export.set:
        back += f" ({', '.join(base.export.set)})"
    return HandChange(base.label, config.label, change, back, place, max(LEAST_BLOCK_ROUNDS, rounds_per_block))


def hand_plan_lines(change: HandChange, block_s: float) -> list[str]:
    """The plan's lines for a hand change: the blocks, the prompts, the time."""
    lines = [
        f"  guided hand change: {change.blocks} blocks of {change.rounds_per_block} rounds, "
        f"{' '.join('A' if label == change.as_is else 'B' for label in change.labels())} "
        f"(A: {change.as_is}, the NAS as it is; B: {change.changed}, changed by you); about "
        f"{block_s / 60:.0f} min a block, and {change.switches} changes by you in between",
        "    where you make the change: " + change.place.replace("\n", "\n      "),
    ]
    for block, label in enumerate(change.labels()):
        rounds = change.rounds_of(block)
        if block:
            lines.append(f"    you are asked: {change.prompt(block)} Then Continue (or Stop).")
        lines.append(f"    block {block + 1}: {label}, rounds {rounds[0]}-{rounds[-1]}")
    lines.append("    you may stop after any block; at the end you choose how the NAS is left")
    return lines


def by_hand(
    recipe: Recipe,
    baseline: Config | None,
    configs: Sequence[Config],
    candidates: Sequence[tuple[Config, str]],
    appliance: str | None,
    ask_admin: bool,
    skipped: list[str],
) -> HandChange | None:
    """The hand change the recipe runs (its first candidate), or None with every candidate's skip in `skipped`. Only
    a recipe of the baseline and configurations the admin must make runs one: a block holds one configuration, so a
    recipe with other client-side configurations runs those interleaved and skips its hand ones, as before."""
    if not candidates:
        return None
    runs_alone = [c.label for c in configs] == [recipe.baseline]
    if not ask_admin or not runs_alone or baseline is None:
        why = (
            "no one can be asked to make the change by hand here (no terminal, no desktop)"
            if not ask_admin
            else "a guided hand change runs only in a recipe of its baseline and the change"
        )
        skipped += [f"{text}; {why}" for _, text in candidates]
        return None
    config, _ = candidates[0]
    skipped += [
        f"{recipe.id} {other.label}: skipped (one guided hand change a recipe: {config.label} runs)"
        for other, _ in candidates[1:]
    ]
    if appliance is not None:
        hint = async_setting_hint(appliance) if "async" in config.export.set else None
        place = f"in the {appliance}'s own interface" + (f" ({hint})" if hint else ", its NFS share settings")
    elif "async" in config.export.set:  # the NAS's make unknown: each vendor's place on a line of its own
        place = "in the NAS's own interface, depending on its make:" + "".join(
            f"\n{BULLET}{vendor}: {where}" for vendor, where in async_settings()
        )
    else:
        place = vendor_place(config)
    return hand_change(baseline, config, place, recipe.rounds.min)


def vendor_place(config: Config) -> str:
    """Where a NAS nfstune cannot log in to sets what `config` changes on the server."""
    place = server_setting_hint(config.export.set)
    return f"in the NAS's own interface ({place})" if "async" in config.export.set else place
