"""A NAS nfstune cannot log in to, as the client sees it (session/nas_view.py) and as everything after reads it: the
trial mounts' output replayed from the lab client, the facts the recipes' conditions read, the preflight, the plan,
the recommendation and the report's caveats."""

from __future__ import annotations

import json
from pathlib import Path

from nfstune import paths
from nfstune.advice.recommend import NOT_READ, Measured, recommend
from nfstune.bench.workloads import MIB, WorkloadSizes
from nfstune.facts.probe_output import parse_probe_output
from nfstune.recipes import load_recipes
from nfstune.recipes.model import recipe_facts
from nfstune.recipes.plan import build_plan
from nfstune.recipes.plan_text import plan_json
from nfstune.results.caveats import caveats
from nfstune.session.nas_view import facts_seen, parse_showmount, parse_versions
from nfstune.session.preflight import check

CAPTURES = Path(__file__).parent.parent / "captures"
SIZES = WorkloadSizes(seq_file_bytes=64 * MIB, small_file_count=50, small_file_bytes=4096, sync_4k_count=100)


def capture(name: str) -> str:
    return (CAPTURES / "nas-view" / name).read_text()


def client_facts():  # type: ignore[no-untyped-def]
    return parse_probe_output((CAPTURES / "probe" / "lab-client-root.txt").read_text())


def test_the_versions_that_mounted_are_what_the_recipes_conditions_read() -> None:
    served, refused = parse_versions(capture("versions-lab-export.txt"))
    assert served == {"4.2", "4.1", "4.0", "3"} and refused == {}
    facts = facts_seen("nas", capture("versions-lab-export.txt"))
    assert facts.nfs_server_active is True and facts.hostname == "nas"
    assert recipe_facts(facts, client_facts())["server_nfs_version"] == {"3", "4", "4.0", "4.1", "4.2"}
    # nothing the client cannot see is guessed
    assert (facts.mem_total_bytes, facts.filesystem, facts.nfsd_threads, facts.appliance) == (None, None, None, None)


def test_a_server_without_the_first_minor_version_offers_the_others_only() -> None:
    tried = "vers 4.2 yes\nvers 4.1 yes\nvers 4.0 no mount.nfs: Protocol not supported\nvers 3 no mount.nfs: refused\n"
    offered = recipe_facts(facts_seen("nas", tried), client_facts())["server_nfs_version"]
    assert offered == {"4", "4.1", "4.2"}  # "4": any 4.x


def test_a_share_no_version_mounts_is_an_error_that_names_the_share_and_says_why() -> None:
    facts = facts_seen("nas", capture("versions-lab-not-exported.txt"))
    assert facts.nfs_server_active is False and facts.nfsd_versions_enabled is None
    assert "vers=3: mount.nfs: access denied by server while mounting nas:/srv/nothing" in str(facts.nfs_server_state)
    problems = check(
        facts,
        client_facts(),
        server_label="nas (no login)",
        client_label="client",
        share="/srv/nothing",
        exports=["/export"],
        server_login=False,
    )
    errors = [p.title for p in problems if p.severity == "error"]
    assert "The client cannot mount /srv/nothing from nas (no login)" in errors
    assert "/srv/nothing is not exported by nas (no login)" in errors


def test_the_preflight_says_what_is_lost_and_nothing_it_could_not_see() -> None:
    facts = facts_seen("nas", capture("versions-lab-export.txt"))
    problems = check(
        facts,
        client_facts(),
        server_label="nas (no login)",
        client_label="client",
        share="/export",
        exports=parse_showmount(capture("showmount-lab.txt")),
        server_login=False,
    )
    assert not [p for p in problems if p.severity == "error"]
    (lost,) = [p for p in problems if p.title == "No login on nas (no login): the client's side alone"]
    assert "page cache cannot be dropped" in lost.detail and lost.detail.startswith("nfstune cannot log in")
    # what only a login would read is not reported as missing on the server
    assert not [p for p in problems if p.host == "server" and p.title != lost.title]


def test_showmount_lists_each_path_once_in_its_order() -> None:
    assert parse_showmount(capture("showmount-lab.txt")) == ["/export"]
    listed = "/srv/my share 10.0.0.0/24\n/export *\n/export 10.0.0.5\nclnt_create: RPC: timed out\n"
    assert parse_showmount(listed) == ["/srv/my share", "/export"]


def test_without_a_login_the_plan_changes_nothing_on_the_server_and_says_where_to_instead() -> None:
    recipes, errors = load_recipes([paths.recipes_dir()])
    assert errors == []
    by_id = {r.id: r for r in recipes}
    plan = build_plan(
        [by_id["quick-check"]],
        {},
        scale="small",
        seed=5,
        sizes=SIZES,
        fio_available=True,
        share="/volume1/data",
        server_address="192.0.2.10",
        scratch_name=".nfstune-77",
        server_login=False,
    )
    item = plan.recipes[0]
    # the client-side comparisons run on the export as it is (the recipe pins sync only where it may write)
    assert [c.label for c in item.configs] == ["baseline", "rsize=128K", "vers=3"]
    assert not any(c.export or item.recipe.config(c.label).export for c in item.configs)  # what the engine reads
    assert plan.notes == (
        "quick-check: baseline, rsize=128K, vers=3 run on the export as the server has it, not with sync, without "
        "no_wdelay (nfstune does not change the export here), so every comparison among them is on that same export",
    )
    skipped = [s for s in plan.skipped if "cannot log in to the server" in s]
    assert [s.split(":")[0] for s in skipped] == ["quick-check async", "quick-check no_wdelay"]
    assert "Synology DSM: Control Panel" in skipped[0] and "Synology" not in skipped[1]
    steps = [*plan.session.do, *plan.session.undo, *(s for v in item.visits for s in (*v.setup, *v.run, *v.undo))]
    assert {s.host for s in steps} == {"client"}
    (make,) = plan.session.do
    assert "mount -t nfs -o nosharecache 192.0.2.10:/volume1/data" in make.argv[2]
    assert 'd="$m"/.nfstune-77; if mkdir -m 0700 "$d"' in make.argv[2] and 'mkdir -m 0700 "$d"/files' in make.argv[2]
    assert json.loads(plan_json(plan))["server_login"] is False


def test_the_report_says_what_a_session_without_login_lacks() -> None:
    assert caveats({"plan": json.dumps({"server_login": True})}) == []
    assert caveats({"plan": None}) == []  # a session from before
    skipped = ["quick-check async: skipped (nfstune cannot log in to the server, so ...)", "x: skipped: a condition"]
    found = caveats({"plan": json.dumps({"server_login": False, "skipped": skipped})})
    assert any("page cache could not be dropped" in c for c in found)
    assert found[-1].startswith("Not measured: 1 configuration that changes the server")


def test_without_a_login_the_recommendation_is_the_fstab_line_alone() -> None:
    fstab = "# /etc/fstab\nnas:/export /mnt/nas nfs ro,vers=4.1 0 0\n"
    rec = recommend(share="/export", server="nas", measured=Measured(), exports=None, fstab=fstab, server_login=False)
    assert rec.exports_line == "" and rec.exports_reasons == () and rec.async_alternative is None
    assert NOT_READ in rec.notes
    assert rec.fstab_before == "nas:/export /mnt/nas nfs ro,vers=4.1 0 0" and ",ro," in f",{rec.fstab_line.split()[3]},"
