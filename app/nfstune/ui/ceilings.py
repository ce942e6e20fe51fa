"""A session's ceilings as one rich-text paragraph for the Results page: the throughput ones (MB/s) and the latency
ones (ms) with what they bound, as the text and HTML reports list them."""

from __future__ import annotations

from dataclasses import asdict

from nfstune.results.latencies import LATENCY_NOTE, latency_label, latency_text
from nfstune.session.ceilings import ceiling_name
from nfstune.statistics.stats import format_value
from nfstune.store import StoredSession
from nfstune.ui.rich_text import rich


def ceilings_html(session: StoredSession) -> str:
    """'' for a session that measured none (--no-ceilings, or one stored before they were measured)."""
    if not session.ceilings and not session.latencies:
        return ""
    # the labels are shared with the reports, which name a ceiling's fields as the store's columns do
    items = [rich(f"{ceiling_name(c.kind, c.direction)}: {format_value(c.mb_per_s)} MB/s") for c in session.ceilings]
    items += [rich(f"{latency_label(asdict(t))}: {latency_text(asdict(t))}") for t in session.latencies]
    text = "<b>Ceilings</b> (measured before the recipes): " + "; ".join(items) + "."
    if session.latencies:
        text += "<br>" + rich(LATENCY_NOTE)
    return text
