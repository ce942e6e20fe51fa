"""A session's ceilings as one rich-text paragraph for the Results page: the throughput ones (MB/s) and the latency
ones (ms) with what they bound, as the text and HTML reports list them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nfstune.results.latencies import LATENCY_NOTE, latency_label, latency_text
from nfstune.session.ceilings import ceiling_label
from nfstune.statistics.stats import format_value
from nfstune.ui.rich_text import rich


def ceilings_html(session: Mapping[str, Any]) -> str:
    """'' for a session that measured none (--no-ceilings, or one stored before they were measured)."""
    baselines, latencies = session.get("baselines") or [], session.get("latencies") or []
    if not baselines and not latencies:
        return ""
    items = [rich(f"{ceiling_label(b)}: {format_value(b['mb_per_s'])} MB/s") for b in baselines]
    items += [rich(f"{latency_label(t)}: {latency_text(t)}") for t in latencies]
    text = "<b>Ceilings</b> (measured before the recipes): " + "; ".join(items) + "."
    if latencies:
        text += "<br>" + rich(LATENCY_NOTE)
    return text
