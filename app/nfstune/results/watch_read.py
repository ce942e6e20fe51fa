"""A pair's change points and open regression read from the store: what History's banner and Trend, `nfstune watch
--status` and a watch's notification all read (results/watch.py judges; this only gathers the sessions)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nfstune.recipes.model import Recipe
from nfstune.results.trend import WorkloadTrend, workload_trends
from nfstune.results.watch import SessionChange, open_regression, session_changes
from nfstune.store import HostPair, Results

# the newest sessions of a pair read: years of weekly watches (History's Trend draws as many)
SHOWN_SESSIONS = 500


@dataclass(frozen=True)
class PairWatch:
    pair: HostPair
    trends: list[WorkloadTrend]
    changes: list[SessionChange]

    @property
    def regression(self) -> SessionChange | None:
        return open_regression(self.changes)


def read_pair(results: Results, pair: HostPair, recipes: Mapping[str, Recipe] | None = None) -> PairWatch:
    sessions = results.pair_sessions(pair, last=SHOWN_SESSIONS)
    trends = workload_trends(sessions, recipes)
    return PairWatch(pair, trends, session_changes(sessions, trends))


def open_regressions(results: Results, recipes: Mapping[str, Recipe] | None = None) -> list[PairWatch]:
    """Every pair with a regression still open, the pair used last first."""
    found = (read_pair(results, pair, recipes) for pair in results.host_pairs())
    return [watch for watch in found if watch.regression is not None]


def pair_by_key(results: Results, server_key: str, client_key: str, share: str) -> HostPair | None:
    return next((p for p in results.host_pairs() if p.key == (server_key, client_key, share)), None)
