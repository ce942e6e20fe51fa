"""The session script the CLI and the desktop share (session.script): the preflight's refusal, and a run that fails
once the engine runs, which the desktop shows and the CLI raises again. Hosts on a closed loopback port: a
connection to them is refused."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.advice.session import kept_current
from nfstune.errors import ConfigError
from nfstune.recipes import load_recipes
from nfstune.remote import Host
from nfstune.remote.errors import Unreachable
from nfstune.session.engine import Event
from nfstune.session.script import Survey, preflight, refuse_if_blocked, run_session
from nfstune.session.workflow import Pair
from nfstune.store import Journal, Results, open_store
from tests.conftest import free_port
from tests.unit.test_engine_guard import lab_facts

EXPORTS = {"/etc/exports": "/export 10.99.0.0/24(rw,sync,no_subtree_check)\n"}


def closed_pair(tmp_path: Path, share: str) -> Pair:
    port = free_port()  # bound and let go: nothing listens there

    def host(label: str) -> Host:
        return Host("127.0.0.1", port=port, known_hosts=tmp_path / "kh", label=label)

    return Pair(host("nas"), host("client"), "nas", share)


def test_a_share_that_is_not_exported_is_refused_with_every_error_named(tmp_path: Path) -> None:
    found = Survey(lab_facts(None), ["/export"], ["nas:/export on /home/me/nas"], EXPORTS)
    pair = closed_pair(tmp_path, "/srv/notexported")
    problems = preflight(pair, found)
    titles = [p.title for p in problems]
    assert titles[0] == "/srv/notexported is not exported by nas"
    assert "Your own mount of nas at nas:/export on /home/me/nas stays as it is" in titles
    with pytest.raises(ConfigError) as info:
        refuse_if_blocked(problems)
    assert str(info.value) == "preflight: /srv/notexported is not exported by nas. Nothing was changed."
    refuse_if_blocked(preflight(replace(pair, share="/export/"), found))  # the same share as exportfs lists it


def test_a_run_the_engine_cannot_carry_out_is_the_outcome_and_stored_as_failed(tmp_path: Path) -> None:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    client_side = [r for r in recipes if r.id == "block-size"]  # nothing to confirm: the scratch directory first
    conn = open_store(tmp_path / "s.sqlite3")
    results = Results(conn)
    events: list[Event] = []
    outcome = run_session(
        closed_pair(tmp_path, "/export"),
        lab_facts(None),
        client_side,
        scale="small",
        results=results,
        journal=Journal(conn),
        emit=events.append,
        cancel=threading.Event(),
        ceilings=False,
    )
    assert outcome.status == "failed" and isinstance(outcome.error, Unreachable)
    assert outcome.message == str(outcome.error) and "refused the connection" in outcome.message
    assert outcome.recommendation is None
    stored = results.session(outcome.session_id)
    assert (stored["status"], stored["message"]) == ("failed", outcome.message)
    assert (
        stored["recipes"] == ["block-size"] and kept_current(results.stored_session(outcome.session_id)) is None
    )  # nothing read after a failure
