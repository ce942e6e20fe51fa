"""A comparison from blocks changed by hand (a guided hand change, session/hand_rounds.py): the NAS as it is (A),
then with the admin's change (B), then back, A B A B (A), a few rounds each. Pure.

The unit is the block, not the round: the rounds of one block share the admin's one switch, whatever else that
switch changed (the NAS's caches dropped by re-exporting, a daemon restarted), so they are not independent
measurements of A against B; only blocks are. A block's figure is the mean of its rounds' figures on log scale (their
geometric mean): with two or three rounds a median is no steadier, and the mean keeps the t test's footing.

The test: Student's t on the log block figures with a pooled variance, B blocks against A blocks (df = blocks - 2),
the estimate the ratio of their geometric means. Why not paired differences of adjacent blocks: with A B A B A
there are four, each block but the ends in two of them, so they are not independent and their t would be too sure
of itself; and the A blocks bracket the B blocks, so a drift linear in time moves both means alike and cancels in
their difference, which is what pairing would have bought. Why not Welch's unequal variances, as for two sessions:
with two and three blocks its degrees of freedom fall towards 1 whenever one side happens to agree closely, and
then even a 2x difference goes unsettled (simulated, 10 % noise a round and 5 % a switch: found in 85 % of
sessions with Welch, in all with the pooled t; with none, 3-5 % called an effect either way, at alpha 5 %). On log
scale the two sides' spreads are alike (the same NAS, the same rounds a block, relative noise); where the change
makes the NAS much noisier the pooled t is the bolder of the two. The question joins its recipe's family and is
corrected with the others there (Holm), as every comparison of the program is; it is judged once (no looks): the
admin, not a stop rule, decides when it ends.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.statistics.verdict import Question, by_hand_words

__all__ = ["Block", "block_figures", "block_question", "by_hand_words"]


@dataclass(frozen=True)
class Block:
    """One block: the configuration measured (the NAS as it is, or with the change) and its rounds."""

    label: str
    rounds: tuple[int, ...]


def block_figures(figures: Mapping[int, float], blocks: Sequence[Block], label: str) -> dict[int, float]:
    """Block index -> the geometric mean of the figures of `label`'s rounds in that block (blocks of another
    configuration, or with no figure yet, are left out)."""
    found: dict[int, float] = {}
    for index, block in enumerate(blocks):
        values = [figures[r] for r in block.rounds if r in figures and figures[r] > 0 and math.isfinite(figures[r])]
        if block.label == label and values:
            found[index] = math.exp(sum(math.log(v) for v in values) / len(values))
    return found


def block_question(
    key: tuple[str, ...],
    names: tuple[str, str],
    figures: Mapping[str, Mapping[int, float]],
    blocks: Sequence[Block],
    *,
    higher_is_better: bool,
    margin_percent: float,
    expect_same: bool = False,
    why_same: str = "",
) -> Question:
    """The question of `names` = (the NAS as it is, with the change) judged on their block figures. `figures`:
    label -> round -> figure."""
    base, other = names
    baseline = block_figures(figures.get(base, {}), blocks, base)
    changed = block_figures(figures.get(other, {}), blocks, other)
    return Question(
        key=key,
        baseline=baseline,
        other=changed,
        higher_is_better=higher_is_better,
        names=names,
        margin_percent=margin_percent,
        expect_same=expect_same,
        why_same=why_same,
        paired=False,
        looks=None,
        blocks=len(baseline) + len(changed),
    )
