"""What a check of an applied recommendation re-measures, from the session it came from: the workloads whose
verdicts the recommendation rests on (the NFS version its fstab line sets, the nfsd thread count it sets; async is
only ever offered, never applied), each with that session's figures for the configuration recommended and for its
baseline (results/held.Then). A workload measured by several of them is checked once, on the first. Pure."""

from __future__ import annotations

from collections.abc import Mapping

from nfstune.advice.outcome import SessionOutcome
from nfstune.advice.recommend import Recommendation
from nfstune.results.held import Then
from nfstune.statistics.verdict import Verdict


def check_basis(outcome: SessionOutcome, rec: Recommendation) -> list[Then]:
    """Each workload behind `rec`, with the session's figures; [] when it rests on no measured comparison (only
    on defaults and on what the server grants)."""
    measured = outcome.measured
    behind: list[Mapping[str, Verdict]] = []
    if measured.best_version and any(r.option == f"vers={measured.best_version}" for r in rec.fstab_reasons):
        behind.append(measured.version_verdicts)
    if rec.threads is not None and rec.threads.threads is not None and measured.threads is not None:
        behind.append(measured.threads.verdicts)
    found: dict[str, Then] = {}
    for verdicts in behind:
        for workload, verdict in verdicts.items():
            then = _then(outcome, verdict)
            if then is not None and workload not in found:
                found[workload] = then
    return list(found.values())


def _then(outcome: SessionOutcome, verdict: Verdict) -> Then | None:
    recipe, workload, label = verdict.key[:3]
    group = next((g for g in outcome.groups if (g.recipe, g.workload) == (recipe, workload)), None)
    if group is None:
        return None
    config = group.config(label)
    base = group.config(config.against if config is not None and config.against else group.baseline_label)
    if config is None or base is None:
        return None
    return Then(
        recipe,
        workload,
        label,
        base.label,
        group.unit,
        group.higher_is_better,
        dict(config.rounds),
        dict(base.rounds),
        verdict.kind,
        verdict.ratio,
    )
