"""iperf3 3.12 argv and its JSON output, from the lab's real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.bench.iperf import (
    IperfOutputError,
    IperfResult,
    iperf_client_argv,
    iperf_server_argv,
    parse_iperf_json,
)

CAPTURES = Path(__file__).parent.parent / "captures" / "bench"
MIB = 1024 * 1024


def capture(name: str) -> str:
    return (CAPTURES / name).read_bytes().decode()


def test_argv() -> None:
    assert iperf_server_argv(5299) == ["iperf3", "-s", "-1", "-p", "5299"]
    assert iperf_server_argv() == ["iperf3", "-s", "-1", "-p", "5201"]
    assert iperf_client_argv("10.99.0.1", 5299, 3) == [
        "iperf3",
        "-c",
        "10.99.0.1",
        "-p",
        "5299",
        "-t",
        "3",
        "-i",
        "1",
        "--forceflush",
    ]
    assert iperf_client_argv("nas.local", 5299, 3, reverse=True) == [
        "iperf3",
        "-c",
        "nas.local",
        "-p",
        "5299",
        "-t",
        "3",
        "-i",
        "1",
        "--forceflush",
        "-R",
    ]
    assert iperf_client_argv("fe80::1%eth1", 5201, 10, reverse=True, json_output=True) == [
        "iperf3",
        "-c",
        "fe80::1%eth1",
        "-p",
        "5201",
        "-t",
        "10",
        "-J",
        "-R",
    ]


def test_json_results() -> None:
    forward = parse_iperf_json(capture("iperf-json.txt"))
    assert forward == IperfResult(3.061231, 106823680, 106758184, 278994127.52582216, retransmits=0)
    assert forward.received_bytes * 8 / forward.seconds == pytest.approx(forward.bits_per_second)
    reverse = parse_iperf_json(capture("iperf-json-reverse.txt"))
    assert reverse == IperfResult(3.000975, 104726528, 101562656, 270745756.96232057, retransmits=0)
    assert reverse.mb_per_s == pytest.approx(33.843, abs=1e-3)


def test_failures() -> None:
    with pytest.raises(IperfOutputError, match="unable to connect"):
        parse_iperf_json('{"start": {}, "intervals": [], "end": {}, "error": "unable to connect to server"}')
    with pytest.raises(IperfOutputError, match="not JSON"):
        parse_iperf_json(capture("iperf-json.txt")[:500])
    with pytest.raises(IperfOutputError, match="lacks 'sum_received'"):
        parse_iperf_json('{"end": {"sum_sent": {}}}')
