"""iperf3 3.12 argv and output (text lines live, JSON at the end), from the lab's real runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nfstune.bench.iperf import (
    IperfInterval,
    IperfOutputError,
    IperfResult,
    IperfTextParser,
    iperf_client_argv,
    iperf_server_argv,
    parse_iperf_json,
)

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
MIB = 1024 * 1024


def capture(name: str) -> str:
    return (CAPTURES / name).read_bytes().decode()


def parse_text(text: str) -> tuple[list[IperfInterval], IperfResult]:
    parser = IperfTextParser()
    intervals = parser.feed(text)
    return intervals, parser.result()


def test_argv() -> None:
    assert iperf_server_argv(5299) == ["iperf3", "-s", "-1", "-p", "5299"]
    assert iperf_server_argv() == ["iperf3", "-s", "-1", "-p", "5201"]
    assert iperf_client_argv("10.99.0.1", 5299, 3) == [
        "iperf3", "-c", "10.99.0.1", "-p", "5299", "-t", "3", "-i", "1", "--forceflush",
    ]  # fmt: skip
    assert iperf_client_argv("nas.local", 5299, 3, reverse=True) == [
        "iperf3", "-c", "nas.local", "-p", "5299", "-t", "3", "-i", "1", "--forceflush", "-R",
    ]  # fmt: skip
    assert iperf_client_argv("fe80::1%eth1", 5201, 10, reverse=True, json_output=True) == [
        "iperf3", "-c", "fe80::1%eth1", "-p", "5201", "-t", "10", "-J", "-R",
    ]  # fmt: skip


def test_text_client_to_server() -> None:
    intervals, result = parse_text(capture("iperf-text.txt"))
    # "[  5]   0.00-1.02   sec  43.5 MBytes   357 Mbits/sec    0    901 KBytes"
    assert intervals == [
        IperfInterval(0.0, 1.02, round(43.5 * MIB), 357e6),
        IperfInterval(1.02, 2.01, round(48.6 * MIB), 415e6),
        IperfInterval(2.01, 3.03, round(47.5 * MIB), 389e6),
    ]
    assert result == IperfResult(3.05, 140 * MIB, 140 * MIB, 384e6, retransmits=0)
    # the text rounds to 3 digits: the seconds add up to the sender's total within 1 %
    assert sum(i.bytes for i in intervals) == pytest.approx(result.sent_bytes, rel=0.01)
    assert result.received_bytes * 8 / result.seconds == pytest.approx(result.bits_per_second, rel=0.01)
    assert result.mb_per_s == 48.0


def test_text_reverse_reports_the_server_sending() -> None:
    text = capture("iperf-text-reverse.txt")
    assert "Reverse mode, remote host 10.99.0.1 is sending" in text
    intervals, result = parse_text(text)
    assert [(i.start_s, i.end_s, i.bits_per_second) for i in intervals] == [
        (0.0, 1.01, 297e6), (1.01, 2.0, 313e6), (2.0, 3.0, 379e6),
    ]  # fmt: skip
    assert result == IperfResult(3.0, 119 * MIB, 118 * MIB, 329e6, retransmits=0)
    assert sum(i.bytes for i in intervals) == pytest.approx(result.received_bytes, rel=0.01)


def test_json_results() -> None:
    forward = parse_iperf_json(capture("iperf-json.txt"))
    assert forward == IperfResult(3.061231, 106823680, 106758184, 278994127.52582216, retransmits=0)
    assert forward.received_bytes * 8 / forward.seconds == pytest.approx(forward.bits_per_second)
    reverse = parse_iperf_json(capture("iperf-json-reverse.txt"))
    assert reverse == IperfResult(3.000975, 104726528, 101562656, 270745756.96232057, retransmits=0)
    assert reverse.mb_per_s == pytest.approx(33.843, abs=1e-3)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_chunking_gives_the_same(data: st.DataObject) -> None:
    text = capture("iperf-text.txt")
    cuts = sorted(data.draw(st.sets(st.integers(min_value=1, max_value=len(text) - 1), max_size=30)))
    parser, intervals = IperfTextParser(), []
    for start, end in zip([0, *cuts], [*cuts, len(text)], strict=True):
        intervals += parser.feed(text[start:end])
    assert (intervals, parser.result()) == parse_text(text)


def test_failures() -> None:
    refused = "iperf3: error - unable to connect to server - server may have stopped running or use a different port\n"
    with pytest.raises(IperfOutputError, match="unable to connect"):
        parse_text(refused)
    cut = capture("iperf-text.txt").split("- - -")[0]  # stopped before the summary
    parser = IperfTextParser()
    assert len(parser.feed(cut)) == 3
    with pytest.raises(IperfOutputError, match="no sender/receiver summary"):
        parser.result()
    with pytest.raises(IperfOutputError, match="unable to connect"):
        parse_iperf_json('{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server"}')
    with pytest.raises(IperfOutputError, match="not JSON"):
        parse_iperf_json(capture("iperf-json.txt")[:500])
    with pytest.raises(IperfOutputError, match="lacks 'sum_received'"):
        parse_iperf_json('{"end": {"sum_sent": {}}}')
