"""`nfstune report N --json`: the session as data for scripts, valid against resources/schemas/report.schema.json,
holding the verdicts with their intervals, the recommendation and every run."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from nfstune.advice.session import CurrentConfig, keep_current
from nfstune.recipes.loader import recipes_by_id
from nfstune.report.json_report import FORMAT, NOTHING_MEASURED, finite, session_document
from nfstune.store import Results
from tests.unit.test_cli import nfstune
from tests.unit.test_cli_scripts import store
from tests.unit.test_summary import FIRST_SESSION, store_session

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "resources" / "schemas" / "report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
EXPORTS = "# the NAS\n/export 192.168.1.0/24(rw,fsid=7,async,no_subtree_check)\n/private 10.0.0.9(rw)\n"
FSTAB = "nas:/export /srv/nas nfs vers=4.2,noatime 0 0\n//fileserver/x /mnt/x cifs password=HUNTER2 0 0\n"


def test_the_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def measured(results: Results, plan: str | None = None) -> int:
    """FIRST_SESSION (sync vs async, block size with a configuration that never completed), its ceilings, and the
    configuration it kept to recommend from."""
    sid = store_session(results, FIRST_SESSION, plan=plan)
    results.add_baseline(sid, kind="network", direction="to-server", mb_per_s=112.0, seconds=10, size=10**9, raw="{}")
    keep_current(results, sid, CurrentConfig({"/etc/exports": EXPORTS}, FSTAB), server="nas")
    return sid


def by_key(document: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(v["recipe"], v["workload"], v["config"]): v for v in document["verdicts"]}


def test_report_json_holds_the_verdicts_the_recommendation_and_every_run(tmp_path: Path) -> None:
    sid = measured(store(tmp_path))
    result = nfstune(tmp_path, "report", str(sid), "--json", "-")
    assert result.returncode == 0 and result.stderr == ""
    document = json.loads(result.stdout)
    VALIDATOR.validate(document)
    assert document["format"] == FORMAT and document["session"]["id"] == sid
    assert document["session"]["server"] == "nas" and document["session"]["client"] == "client"

    verdicts = by_key(document)
    sync = verdicts[("sync-vs-async", "small-files", "sync")]
    assert sync["is_baseline"] and sync["verdict"] is None and sync["median"] == pytest.approx(8.95)
    fast = verdicts[("sync-vs-async", "small-files", "async")]
    assert (fast["unit"], fast["higher_is_better"], fast["n"]) == ("s", False, 4)
    assert (fast["min"], fast["max"], fast["baseline"]) == (1.9, 2.2, "sync")
    v = fast["verdict"]
    assert v["kind"] == "faster" and 1 < v["ci_low"] < v["ratio"] < v["ci_high"]
    assert v["ratio"] == pytest.approx(8.95 / 2.05, rel=0.05) and v["family"] == 2  # sync-vs-async's own two
    assert v["text"].startswith("async is 4.") and "faster than sync" in v["text"]
    never = verdicts[("block-size", "seq-read", "rsize=32K")]
    assert (never["n"], never["median"], never["verdict"], never["status"]) == (0, None, None, "failed")
    big = verdicts[("block-size", "seq-read", "rsize=1M")]
    assert big["requested"] == "vers=4.2,rsize=1048576,wsize=1048576" and "rsize=1048576" in big["negotiated"]

    (ceiling,) = document["ceilings"]
    assert ceiling["label"] == "network (iperf3, client → server)" and ceiling["mb_per_s"] == 112.0

    rec = document["recommendation"]
    assert rec["why_none"] is None
    assert rec["exports_line"] == "/export 192.168.1.0/24(rw,fsid=7,sync,no_subtree_check)"
    assert rec["exports_before"] == "/export 192.168.1.0/24(rw,fsid=7,async,no_subtree_check)"
    assert any(r["option"] == "sync" for r in rec["exports_reasons"])
    assert rec["fstab_line"] == "nas:/export /srv/nas nfs vers=4.2,noatime 0 0"
    assert "async" in rec["async_alternative"]["line"] and "exports(5)" not in rec["async_alternative"]["line"]
    assert "violate the NFS protocol" in rec["async_alternative"]["warning"]

    assert len(document["runs"]) == len(FIRST_SESSION)
    assert sum(len(run["repeats"]) for run in document["runs"]) == sum(1 + len(r[-1]) for r in FIRST_SESSION)
    assert document["caveats"] == []
    assert any("never uses more than 1 MiB" in note for note in document["notes"]["block-size"])  # the shipped recipe's
    # the admin's other exports and fstab lines (a password) stay in the private store
    assert "HUNTER2" not in result.stdout and "/private" not in result.stdout and "admin_config" not in result.stdout


def test_without_the_recipes_no_note_is_made_up_and_the_first_configuration_is_the_baseline(tmp_path: Path) -> None:
    results = store(tmp_path)
    sid = measured(results)
    document = session_document(results, sid, {})
    VALIDATOR.validate(document)
    assert document["notes"] == {"sync-vs-async": [], "block-size": []}
    assert by_key(document)[("sync-vs-async", "small-files", "async")]["verdict"]["kind"] == "faster"
    assert by_key(document)[("block-size", "seq-read", "rsize=1M")]["baseline"] == "rsize=8K"  # the first that ran
    known = session_document(results, sid, {"block-size": recipes_by_id()["block-size"]})
    assert by_key(known)[("block-size", "seq-read", "rsize=8K")]["baseline"] == "rsize=1M"  # the recipe's own


def test_a_session_without_a_server_login_says_what_its_figures_lack(tmp_path: Path) -> None:
    results = store(tmp_path)
    sid = measured(results, plan=json.dumps({"server_login": False}))
    document = session_document(results, sid, {})
    VALIDATOR.validate(document)
    assert document["session"]["paired"] and document["session"]["plan"] == {"server_login": False}
    assert any("could not log in to the server" in c for c in document["caveats"])


def test_a_session_that_measured_nothing_says_why_there_is_no_recommendation(tmp_path: Path) -> None:
    results = store(tmp_path)
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    document = session_document(results, sid, {})
    VALIDATOR.validate(document)
    assert document["recommendation"] == {"why_none": NOTHING_MEASURED}
    assert document["session"]["status"] == "running" and document["session"]["ended"] is None
    assert document["verdicts"] == [] and document["runs"] == [] and document["aa_checks"]["summary"] is None


def test_the_answer_and_the_diagnosis_are_in_the_document_and_the_schema_holds_them_to_their_shape(
    tmp_path: Path,
) -> None:
    results = store(tmp_path)
    document = session_document(results, measured(results), {})
    assert set(document["answer"]) == {"change", "gain", "risk"} and all(document["answer"].values())
    assert all(set(d) >= {"recipe", "workload", "bottleneck", "share", "text", "levers"} for d in document["diagnosis"])
    VALIDATOR.validate(document)
    assert not VALIDATOR.is_valid(document | {"extra": 1})
    for key in ("verdicts", "recommendation", "runs", "answer", "diagnosis"):
        assert not VALIDATOR.is_valid({k: v for k, v in document.items() if k != key}), key
    assert not VALIDATOR.is_valid(document | {"answer": ["keep sync", "", ""]})
    assert not VALIDATOR.is_valid(document | {"diagnosis": [{"finding": "the disk is the ceiling"}]})
    broken = copy.deepcopy(document)
    broken["verdicts"][1]["verdict"]["kind"] = "better"
    assert not VALIDATOR.is_valid(broken)


def test_json_gets_no_nan_or_infinity() -> None:
    assert finite({"cv": math.inf, "values": [1.0, math.nan], "n": 3, "t": (float("-inf"),)}) == {
        "cv": None,
        "values": [1.0, None],
        "n": 3,
        "t": [None],
    }
