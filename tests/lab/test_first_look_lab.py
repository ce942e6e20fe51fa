"""The first look on the lab (hdd disk, 50mbit link): one mount with the defaults, the ceilings, two short runs of
each workload, and an answer naming what limits these hosts, in the CLI's output, the report and its JSON; nothing
left changed on either host. (Its time is a benchmark's: tools/bench/first_look.py.)"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import jsonschema
import pytest

from nfstune import paths
from nfstune.lab import LabConfig, host
from tests.lab.cli import nfstune_in

pytestmark = pytest.mark.lab

SCHEMA = json.loads((paths.resources_dir() / "schemas" / "report.schema.json").read_text())
NAS_STATE = "sha256sum /etc/exports; exportfs -v 2>&1; ls -A /export; cat /proc/fs/nfsd/threads"
CLIENT_STATE = "grep -v rpc_pipefs /proc/mounts; sha256sum /etc/fstab; ls -A /mnt /var/tmp 2>&1"


def test_the_first_look_ends_in_what_limits_these_hosts_and_changes_nothing(lab: LabConfig, tmp_path: Path) -> None:
    with host(lab, "nas") as nas, host(lab, "client") as client:
        before = nas.run(NAS_STATE, sudo=True).stdout, client.run(CLIENT_STATE, sudo=True).stdout
    env = os.environ | {"XDG_STATE_HOME": str(lab.state_dir.parent.parent), "XDG_DATA_HOME": str(tmp_path / "data")}
    nfstune = nfstune_in(env, timeout=1500)
    run = nfstune("run", "--lab", "--recipe", "first-look", "--scale", "small", "--html", str(tmp_path / "r.html"))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert "first-look: measured in 2 rounds (one configuration: nothing to compare)" in out
    # the answer ends the run: three lines, the limit named or said to be unexplained, and what to run next
    lines = out.rstrip().splitlines()
    assert lines[-1].startswith("report: ")  # --html: where the page went, and before it the answer
    start = len(lines) - 1 - lines[::-1].index("In three lines")
    last = lines[start : start + 4]
    assert all(not line.strip() for line in lines[start + 4 : -1])
    assert last[0] == "In three lines"
    assert [line.split(":")[0].strip() for line in last[1:]] == ["Change", "Gain", "Risk"]
    assert last[1].startswith("  Change: nothing to change from this alone: ")
    assert last[3] == "  Risk: none taken: nothing was compared, and nothing on the hosts was changed."
    # a diagnosis per workload, each against a ceiling measured in this session
    diagnosed = dict(re.findall(r"^  first-look / ([\w-]+): (.+)$", out, re.M))
    assert set(diagnosed) == {"seq-write", "seq-read", "sync-4k", "small-files"}, out[-4000:]
    # against this session's ceilings (the lab's iperf3 can come out below NFS's own figure: then said so)
    against = r"ran at (\d+ % of|[\d.]+ MB/s, above) the (network|server disk)'s [\d.]+ MB/s"
    assert re.match(f"Reads {against}", diagnosed["seq-read"]), diagnosed["seq-read"]
    assert re.match(f"Writes {against}", diagnosed["seq-write"]), diagnosed["seq-write"]
    assert "the server disk's" in diagnosed["sync-4k"] and " ms" in diagnosed["sync-4k"], diagnosed["sync-4k"]

    with host(lab, "nas") as nas, host(lab, "client") as client:
        after = nas.run(NAS_STATE, sudo=True).stdout, client.run(CLIENT_STATE, sudo=True).stdout
    assert after == before, "a host differs after the first look"

    session = re.search(r"^session (\d+): completed$", out, re.M)
    assert session is not None
    report = nfstune("report", session.group(1))
    assert report.returncode == 0 and report.stdout.lstrip().startswith("In three lines"), report.stdout[:500]
    document = json.loads(nfstune("report", session.group(1), "--json", "-").stdout)
    jsonschema.Draft202012Validator(SCHEMA).validate(document)
    shares = {d["workload"]: d["share"] for d in document["diagnosis"]}
    assert all(shares[w] is not None and shares[w] > 0 for w in ("seq-write", "seq-read", "sync-4k")), shares
    assert sorted(row["kind"] for row in document["latencies"]) == ["round-trip", "sync-write"]
    page = (tmp_path / "r.html").read_text()
    assert (
        page.index("<h2>The answer</h2>")
        < page.index("<h2>What limits each workload</h2>")
        < page.index("<h2>Results</h2>")
    )
