"""How busy each host's CPUs were while a run's workloads ran: the median of the samplers' `cpu_percent` series, by
run and host, for the diagnosis (a CPU near 100 % may be what holds a figure)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from typing import Any

from nfstune.store import Results

ROLES = ("server", "client")


def busy_cpus(results: Results, session: Mapping[str, Any]) -> dict[tuple[str, str, str], dict[str, float]]:
    """(recipe, workload, configuration) -> {host role: median % of its CPUs busy}, over every sample of its runs."""
    found: dict[tuple[str, str, str], dict[str, float]] = {}
    for run in session["runs"]:
        key = (run["recipe"], run["workload"], run["config_label"])
        for role in ROLES:
            values = [v for _, v in results.samples(run["id"], role, "cpu_percent")]
            if values:
                found.setdefault(key, {})[role] = statistics.median(values)
    return found
