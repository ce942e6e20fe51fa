"""What a session's figures lack, said wherever they are shown (the report's text and HTML): a session run without
a login on the server measured the client's side alone. Read from the plan the session stored. Pure."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from nfstune.words import count

WITHOUT_SERVER = "Without the server's side"


def caveats(session: Mapping[str, Any]) -> list[str]:
    """The figures' caveats, each a sentence; [] for a session with a login on the server (or one stored before
    sessions kept whether they had one)."""
    try:
        plan = json.loads(session.get("plan") or "{}")
    except ValueError:
        return []
    if not isinstance(plan, dict) or plan.get("server_login", True):
        return []
    found = [
        "nfstune could not log in to the server: every figure here is what the client measured; nothing ran or "
        "changed on the server.",
        "Reads: the server's page cache could not be dropped, so a read may have come from the server's memory "
        "rather than its disks. Every configuration read the same file in the same round, so they compare fairly "
        "with each other; the figures do not say what the server's disks can do.",
        "No server disk ceiling (neither its rate nor its synchronous write latency), no network ceiling but the "
        "round trip (iperf3 needs a login on the server; ping runs on the client alone) and no server samples (its "
        "CPU, disks and network while the workloads ran).",
    ]
    skipped = [text for text in plan.get("skipped", []) if "cannot log in to the server" in text]
    if skipped:
        verb = "changes" if len(skipped) == 1 else "change"
        found.append(
            f"Not measured: {count(len(skipped), 'configuration')} that {verb} the server; each says where to change "
            "it yourself: " + " | ".join(skipped)
        )
    return found
