"""iperf3: the network ceiling between the two hosts.

The server side is a one-shot `iperf3 -s -1` the engine starts and stops. The client prints one text line a
second with `-i 1 --forceflush` (live), or one JSON document at the end with `-J`; iperf3 3.12 (Debian 12) has
no `--json-stream`. In the text, byte amounts are binary (1 MBytes = 2^20 bytes) and rates decimal
(1 Mbits/sec = 10^6 bit/s), as iperf3's unit_snprintf() prints them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from nfstune.errors import NfstuneError

DEFAULT_PORT = 5201
_BYTE_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_BIT_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
# "[  5]   0.00-1.00   sec  1.12 MBytes  9.38 Mbits/sec    0   56.6 KBytes" (Retr and Cwnd only when sending)
# "[  5]   0.00-3.00   sec  3.62 MBytes  10.1 Mbits/sec    0             sender"
# a number float() and int() take: ASCII digits, at most one point, far fewer digits than int()'s limit
_NUM = r"[0-9]{1,20}(?:\.[0-9]{1,20})?"
LINE = re.compile(
    rf"^\[\s*(?P<stream>\d+|SUM)\]\s+(?P<start>{_NUM})-(?P<end>{_NUM})\s+sec\s+"
    rf"(?P<amount>{_NUM})\s+(?P<byte_unit>[KMGT]?)Bytes\s+(?P<rate>{_NUM})\s+(?P<bit_unit>[KMGT]?)bits/sec"
    r"(?:\s+(?P<retr>[0-9]{1,20}))?.*?(?P<role>sender|receiver)?\s*$"
)


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
class IperfInterval:
    start_s: float
    end_s: float
    bytes: int  # from 3 significant digits in the text: a rounded figure
    bits_per_second: float


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


def _interval(match: re.Match[str]) -> IperfInterval:
    amount = float(match["amount"]) * _BYTE_UNITS[match["byte_unit"]]
    rate = float(match["rate"]) * _BIT_UNITS[match["bit_unit"]]
    return IperfInterval(float(match["start"]), float(match["end"]), round(amount), rate)


class IperfTextParser:
    """feed() the client's text output as it comes: one IperfInterval a second; result() from the summary."""

    def __init__(self) -> None:
        self._partial = ""
        self._raw: list[str] = []
        self._sender: re.Match[str] | None = None
        self._receiver: re.Match[str] | None = None
        self._errors: list[str] = []

    def feed(self, chunk: str) -> list[IperfInterval]:
        self._raw.append(chunk)
        lines = (self._partial + chunk).split("\n")
        self._partial = lines.pop()
        return [interval for line in lines if (interval := self._line(line.strip())) is not None]

    def _line(self, line: str) -> IperfInterval | None:
        if line.startswith("iperf3: error"):
            self._errors.append(line)
        match = LINE.match(line)
        if match is None:
            return None
        if match["role"] == "sender":
            self._sender = match
        elif match["role"] == "receiver":
            self._receiver = match
        elif match["stream"] != "SUM":  # one stream: its own lines are the intervals
            return _interval(match)
        return None

    def result(self) -> IperfResult:
        if self._partial:
            self._line(self._partial.strip())
            self._partial = ""
        if self._sender is None or self._receiver is None:
            problem = "; ".join(self._errors) or "no sender/receiver summary (iperf3 failed or was stopped)"
            raise IperfOutputError(f"iperf3: {problem}")
        sent, received = _interval(self._sender), _interval(self._receiver)
        retr = self._sender["retr"]
        return IperfResult(
            received.end_s, sent.bytes, received.bytes, received.bits_per_second, None if retr is None else int(retr)
        )


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
