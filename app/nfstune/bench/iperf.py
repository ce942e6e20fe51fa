"""iperf3: the network ceiling between the two hosts.

The server side is a one-shot `iperf3 -s -1` the engine starts and stops. The client prints one JSON document
at the end with `-J` (what nfstune reads; iperf3 3.12, Debian 12, has no `--json-stream`), or without it one
text line a second with `-i 1 --forceflush` (kept for recording captures; nfstune parses no text).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from nfstune.errors import NfstuneError

DEFAULT_PORT = 5201


def iperf_server_argv(port: int = DEFAULT_PORT) -> list[str]:
    """One test, then exit (-1): nothing stays listening if the engine is stopped between the two steps."""
    return ["iperf3", "-s", "-1", "-p", str(port)]


def iperf_client_argv(
    address: str, port: int = DEFAULT_PORT, seconds: int = 10, *, reverse: bool = False, json_output: bool = False
) -> list[str]:
    """Client to server by default; `reverse` (-R) has the server send, i.e. measures NFS reads' direction."""
    argv = ["iperf3", "-c", address, "-p", str(port), "-t", str(seconds)]
    argv += ["-J"] if json_output else ["-i", "1", "--forceflush"]
    return argv + (["-R"] if reverse else [])


class IperfOutputError(NfstuneError):
    pass


@dataclass(frozen=True)
class IperfResult:
    seconds: float
    sent_bytes: int
    received_bytes: int
    bits_per_second: float  # as received: what actually crossed
    retransmits: int | None = None  # sender's TCP retransmits, when the sender is this side or JSON says

    @property
    def mb_per_s(self) -> float:
        return self.bits_per_second / 8 / 1e6


def parse_iperf_json(text: str) -> IperfResult:
    """The document `iperf3 -J` prints at the end (sum_sent, sum_received)."""
    try:
        document: Any = json.loads(text[text.find("{") :])
    except (ValueError, RecursionError) as exc:  # ValueError also for an integer of more digits than int() takes
        raise IperfOutputError(f"iperf3 -J output is not JSON ({exc})") from None
    if not isinstance(document, dict):
        raise IperfOutputError(f"iperf3 -J output is not a JSON object: {text.strip()[:40]!r}")
    if "error" in document:
        raise IperfOutputError(f"iperf3: {document['error']}")
    try:
        sent, received = document["end"]["sum_sent"], document["end"]["sum_received"]
        retransmits = sent.get("retransmits")
        return IperfResult(
            _number(float, received["seconds"]),
            _number(int, sent["bytes"]),
            _number(int, received["bytes"]),
            _number(float, received["bits_per_second"]),
            None if retransmits is None else _number(int, retransmits),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise IperfOutputError(f"iperf3 -J output lacks {exc}") from None


def _number(kind: type[int] | type[float], value: object) -> Any:
    """A JSON number as int or float; a string, a bool, an infinity or a NaN is no result."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise IperfOutputError(f"iperf3 -J output holds {value!r:.40} where a number belongs")
    return kind(value)
