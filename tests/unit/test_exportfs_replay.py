"""The whole exports corpus against what exportfs 2.6.2 said of it on the lab NAS (tests/captures/exportfs,
made by its make_capture.py; tests/lab/test_exports_corpus.py checks that the lab's exportfs still says so)."""

from __future__ import annotations

from tests.exportfs_corpus import Capture, disagreement
from tests.unit.test_exports import corpus_cases


def test_every_case_was_captured_from_its_current_text() -> None:
    cases, capture = corpus_cases(), Capture.load()
    stale = [case.id for case in capture.stale(cases)]
    assert stale == [], f"capture these again (tests/captures/exportfs/make_capture.py): {stale}"
    assert set(capture.results) == {case.id for case in cases}, "the capture holds cases the corpus has no more"


def test_exportfs_read_every_case_as_we_do() -> None:
    cases, run = corpus_cases(), Capture.load().as_run()
    assert len(cases) >= 300
    problems = [p for case in cases if case.id in run.results and (p := disagreement(case, run))]
    assert not problems, f"exportfs and our parser disagree on {len(problems)} cases:\n" + "\n".join(problems)
