"""The engine's guard rails before it changes a server (issue 9): an appliance's configurations are skipped and
refused, the export edit keeps undecodable bytes and applies `unset`, and what the admin confirms says who is
connected and how long the export runs async. No host is contacted here."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.changes.export import ApplianceRefused
from nfstune.errors import NfstuneError
from nfstune.facts.probe_output import parse_probe_output
from nfstune.nfs.export_edit import ExportOptionEdit, export_edit
from nfstune.nfs.kernel_view import NfsClient
from nfstune.recipes import load_recipes
from nfstune.remote import Host
from nfstune.session.server_change import AsyncStep, ServerChange
from nfstune.session.workflow import Facts, Pair, make_engine, plan_for
from nfstune.store import Journal, Results, open_store

CAPTURES = Path(__file__).parent.parent / "captures" / "probe"


@pytest.fixture(scope="module")
def shipped() -> dict[str, object]:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    return {r.id: r for r in recipes}


def lab_facts(appliance: str | None) -> Facts:
    nas = parse_probe_output((CAPTURES / "lab-nas-root.txt").read_text())
    client = parse_probe_output((CAPTURES / "lab-client-root.txt").read_text())
    return Facts(replace(nas, appliance=appliance), client)


def test_an_appliance_skips_every_server_side_configuration_with_the_vendor_setting(shipped: dict) -> None:
    chosen = [shipped["quick-check"], shipped["block-size"]]
    plan = plan_for(None, lab_facts("OpenMediaVault"), chosen, "small")
    configs = [c for item in plan.recipes for c in item.configs]
    assert configs and all(not c.export for c in configs)  # nothing that writes the appliance's exports
    # quick-check's client-side comparisons run on the export as the appliance has it; block-size is client-side
    assert [item.recipe.id for item in plan.recipes] == ["quick-check", "block-size"]
    assert [c.label for c in plan.recipes[0].configs] == ["baseline", "rsize=128K", "vers=3"]
    assert [s.split(":")[0] for s in plan.skipped] == ["quick-check async", "quick-check no_wdelay"]
    assert all("OpenMediaVault appliance" in s and "'Extra options'" in s for s in plan.skipped)
    assert any("run on the export as the server has it" in note for note in plan.notes)
    plain = plan_for(None, lab_facts(None), chosen, "small")
    assert any(c.export for item in plain.recipes for c in item.configs)


def test_the_engine_refuses_an_appliance_before_touching_it(shipped: dict, tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)
    nowhere = Host("127.0.0.1", port=9, known_hosts=tmp_path / "kh", label="truenas")  # never contacted
    facts = lab_facts("TrueNAS")
    planned = plan_for(None, None, [shipped["quick-check"]], "small")  # as a caller that planned without the facts
    engine = make_engine(
        Pair(nowhere, nowhere, "nas", "/export"),
        facts,
        scale="small",
        results=results,
        journal=journal,
        emit=lambda e: None,
        cancel=threading.Event(),
    )
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["q"])
    with pytest.raises(ApplianceRefused) as info:
        engine.run(sid, planned)
    assert "TrueNAS appliance" in str(info.value) and "'Sync' option" in str(info.value)
    assert "Nothing was changed" in str(info.value)
    assert journal.pending() == [] and conn.execute("SELECT count(*) FROM journal").fetchone()[0] == 0
    assert results.session(sid)["status"] == "failed"


LATIN1 = b"# caf\xe9: the share of the caf\xe9\n/export 10.99.0.0/24(rw,no_wdelay,sync,anonuid=1000) nas(ro)\n"


def test_the_export_edit_keeps_bytes_that_are_not_utf8() -> None:
    files = {"/etc/exports": LATIN1.decode("utf-8", "surrogateescape")}
    file, new, mode = export_edit(files, "/export", ExportOptionEdit(set=("async",)))
    assert file == "/etc/exports" and mode == "async"
    assert new == LATIN1.replace(b"no_wdelay,sync,", b"no_wdelay,async,").replace(b"nas(ro)", b"nas(ro,async)")


def test_unset_is_applied_and_the_mode_read_from_the_result() -> None:
    files = {"/etc/exports": "/export -async 10.99.0.0/24(rw,no_wdelay,anonuid=1000)\n"}
    _, new, mode = export_edit(files, "/export", ExportOptionEdit(unset=("no_wdelay", "anonuid")))
    assert new == b"/export -async 10.99.0.0/24(rw)\n"
    assert mode == "async"  # the "-async" defaults line still applies: the kernel must run it async
    _, new, mode = export_edit(files, "/export", ExportOptionEdit(set=("sync",), unset=("no_wdelay",)))
    assert (new, mode) == (b"/export -async 10.99.0.0/24(rw,anonuid=1000,sync)\n", "sync")


def test_mixed_write_modes_are_refused_before_any_change() -> None:
    files = {"/etc/exports": "/export a(rw,async) b(rw,sync)\n"}
    with pytest.raises(NfstuneError, match=r"/etc/exports line 1: .* would not all run the same write mode") as err:
        export_edit(files, "/export", ExportOptionEdit(unset=("no_wdelay",)))
    assert "rw,async" not in str(err.value)  # the file's text is not the message


def test_what_the_admin_confirms() -> None:
    clients = (
        NfsClient("10.99.0.7:812", "4.2", "Linux NFSv4.2 laptop", "confirmed"),
        NfsClient("10.99.0.2:934", "3 (or another TCP client)", ""),
    )
    steps = (AsyncStep("quick-check async", 3, 5),)  # 3 workloads, visited in 5 rounds
    text = ServerChange("nas", "/export", clients, "10.99.0.2", "client", 5, steps).message()
    assert "/export on nas" in text and "5 server-side" in text
    assert "10.99.0.7:812  NFS 4.2  Linux NFSv4.2 laptop\n" in text + "\n"
    assert "10.99.0.2:934  NFS 3 (or another TCP client) (from client, the client nfstune uses)" in text
    assert "quick-check async: 5 visit(s) of a few workload runs each (15 timed run(s)) at most" in text
    assert "power cut" in text
    assert "No configuration runs the export async" in ServerChange("nas", "/e", clients, None, "c", 1, ()).message()


@pytest.mark.parametrize(
    ("more_fio", "clients", "message"),
    [
        ([True], 4, "the plan needs 4 clients at once and this session has 2: give --client once per client"),
        ([True, False, True], 4, "lab client3 has no fio: several clients start together only through fio's own"),
    ],
)
def test_a_load_from_more_clients_than_can_run_it_is_refused_before_anything(
    shipped: dict, tmp_path: Path, more_fio: list[bool], clients: int, message: str
) -> None:
    conn = open_store(tmp_path / "s.sqlite3")
    results, journal = Results(conn), Journal(conn)

    def nowhere(label: str) -> Host:
        return Host("127.0.0.1", port=9, known_hosts=tmp_path / "kh", label=label)  # never contacted

    facts = lab_facts(None)
    more = [nowhere(f"lab client{k}") for k in range(2, 2 + len(more_fio))]
    facts = replace(
        facts,
        more=tuple(replace(facts.client, fio_version=facts.client.fio_version if fio else None) for fio in more_fio),
    )
    planned = plan_for(None, None, [shipped["many-clients"]], "small")  # every client count tried
    assert max(c.clients or 0 for c in planned.recipes[0].configs) == clients
    engine = make_engine(
        Pair(nowhere("lab nas"), nowhere("lab client"), "nas", "/export", more),
        facts,
        scale="small",
        results=results,
        journal=journal,
        emit=lambda e: None,
        cancel=threading.Event(),
    )
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["m"])
    with pytest.raises(NfstuneError) as info:
        engine.run(sid, planned)
    assert message in str(info.value) and "Nothing was changed" in str(info.value)
    assert conn.execute("SELECT count(*) FROM journal").fetchone()[0] == 0
    assert results.session(sid)["status"] == "failed"


def test_clients_that_write_at_once_share_the_free_space(shipped: dict) -> None:
    facts = lab_facts(None)
    assert facts.server.filesystem is not None
    tight = replace(facts.server, filesystem=replace(facts.server.filesystem, free_bytes=120 * 2**20))
    alone = plan_for(None, replace(facts, server=tight), [shipped["many-clients"]], "small")
    three = plan_for(
        None, replace(facts, server=tight, more=(facts.client, facts.client)), [shipped["many-clients"]], "small"
    )
    assert alone.sizes is not None and three.sizes is not None
    # each of three clients writes its own file: three of them fit where one did
    assert 3 * three.sizes.seq_file_bytes <= alone.sizes.seq_file_bytes + 2**20
    assert 3 * three.sizes.seq_file_bytes <= 60 * 2**20  # never more than half the free space together
