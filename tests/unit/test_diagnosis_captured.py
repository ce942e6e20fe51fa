"""The diagnosis and the answer on sessions captured from the practice lab (tests/captures/sessions): a first look on
a 50mbit link and an hdd disk, where reads and writes run at the network's limit and every synchronous write waits
for the disk's flush; and a quick-check without a login on the NAS, where no ceiling could be measured."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nfstune.advice.answer import answer
from nfstune.recipes.loader import recipes_by_id
from nfstune.results.ceilings import ceilings_of
from nfstune.results.diagnosis import FLUSH, NETWORK, diagnose
from nfstune.results.summary import summarize_session

SESSIONS = Path(__file__).parent.parent / "captures" / "sessions"
RECIPES = recipes_by_id()


def captured(name: str) -> dict[str, Any]:
    session: dict[str, Any] = json.loads((SESSIONS / name).read_text())
    return session


def test_the_lab_first_look_is_held_by_the_network_and_the_disks_flush() -> None:
    data = captured("first-look-lab-50mbit-hdd.json")
    files = json.loads(data["plan"])["sizes"]["small_file_count"]
    groups = summarize_session(data, RECIPES)
    found = {d.workload: d for d in diagnose(groups, ceilings_of(data), files=files)}
    for workload in ("seq-write", "seq-read"):
        assert found[workload].bottleneck == "network" and found[workload].levers == NETWORK
        assert 0.8 <= (found[workload].share or 0) <= 1.1
    assert found["seq-read"].text.startswith("Reads ran at 98 % of the network's 5.88 MB/s (server → client)")
    sync = found["sync-4k"]
    assert sync.bottleneck == "disk flush" and sync.levers == FLUSH
    assert "the network round trip (1.5 ms) and the server disk's flush (58 ms)" in sync.text
    assert found["small-files"].bottleneck == "disk flush"
    three = answer(groups, list(found.values()), RECIPES)
    assert three.change.startswith("nothing to change from this alone: these hosts are held by the network (")
    assert three.gain.startswith("run next: sync-vs-async (")


def test_the_lab_session_without_a_login_says_what_it_could_not_measure() -> None:
    data = captured("quick-check-lab-no-login.json")
    groups = summarize_session(data, RECIPES)
    found = {d.workload: d for d in diagnose(groups, ceilings_of(data))}
    read = found["seq-read"]
    assert read.bottleneck is None and read.share is None
    assert "no network or server disk ceiling could be measured: nfstune had no login on the server" in read.text
    # nothing settled in 8 rounds, and nothing holds a figure: the answer says it is not settled yet
    three = answer(groups, list(found.values()), RECIPES)
    assert three.change == "nothing yet: no setting tried was measured faster with confidence."
    assert three.gain.startswith("not settled; the closest: ")
