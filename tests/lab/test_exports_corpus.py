"""The exports corpus against the real nfs-utils on the lab NAS (tests/exportfs_corpus.py says how a case is
run and when it agrees). The whole corpus is replayed from its capture by tests/unit/test_exportfs_replay.py; here
exportfs runs a sample of it, and every case added or edited since the capture, to show that the capture is
still what the lab's exportfs says and that new cases are read as we do."""

from __future__ import annotations

import shlex
import time

import pytest

from nfstune.lab import LabConfig, host
from nfstune.nfs.exportfs_view import parse_exportfs_s
from nfstune.nfs.exports import parse
from nfstune.remote import Host
from tests.exportfs_corpus import EXPORT_DIRS, NFS_UTILS, Capture, b64, disagreement, host_names, run_on_nas, unb64
from tests.unit.test_exports import corpus_cases

pytestmark = pytest.mark.lab

SAMPLE_EVERY = 12  # every 12th case of the corpus (29 of 340), spread over its three files


def present(nas: Host) -> list[str]:
    """Which of the corpus's export directories exist on the NAS (one command: each costs ~0.4 s in the lab)."""
    script = "".join(f"[ -e {shlex.quote(d)} ] && echo {b64(d)}\n" for d in EXPORT_DIRS) + "true"
    return [unb64(line) for line in nas.run(script).stdout.split()]


def test_exportfs_still_says_what_the_capture_holds(lab: LabConfig) -> None:
    cases, capture = corpus_cases(), Capture.load()
    stale = capture.stale(cases)
    sample = [case for n, case in enumerate(cases) if n % SAMPLE_EVERY == 0 and case not in stale]
    assert len(sample) >= 20
    started = time.monotonic()
    with host(lab, "nas") as nas:
        before = nas.run("cat /etc/exports; exportfs -s").stdout
        existed = present(nas)
    names = host_names([parse(case.text, NFS_UTILS) for case in cases])
    with run_on_nas(lab, [*sample, *stale], names) as run:
        assert set(run.results) == {case.id for case in [*sample, *stale]}, "some cases did not run"
        assert run.answers == capture.answers, "the lab resolves the corpus's names otherwise than in the capture"
        changed = [case.id for case in sample if run.results[case.id] != capture.results[case.id][1]]
        problems = [p for case in [*sample, *stale] if (p := disagreement(case, run))]
        exported_any = sum(1 for result in run.results.values() if parse_exportfs_s(result[2]))
        print(
            f"\n{len(run.results)} cases in {time.monotonic() - started:.0f} s ({len(stale)} not captured yet, "
            f"{exported_any} export something): {len(changed)} differ from the capture, {len(problems)} disagree"
        )
    assert not changed, f"exportfs no longer says what the capture holds; make it again: {changed}"
    assert not problems, "exportfs and our parser disagree:\n" + "\n".join(problems)
    with host(lab, "nas") as nas:
        assert nas.run("cat /etc/exports; exportfs -s").stdout == before, "the NAS's exports were not restored"
        now = present(nas)
    assert now == existed, "directories made for the test are left on the NAS"
