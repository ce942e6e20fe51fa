"""The `nfstune` command as a script uses it: its output read through a pipe, its exit statuses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from nfstune.cli import exits
from nfstune.store import Results, open_store
from tests.unit.test_cli import nfstune

REPO = Path(__file__).resolve().parents[2]


def store(tmp_path: Path) -> Results:
    """The store `nfstune` opens with the state folders tests.unit.test_cli.nfstune gives it."""
    return Results(open_store(tmp_path / "data" / "nfstune" / "nfstune.sqlite3"))


def piped(tmp_path: Path, command: str) -> tuple[str, str, int]:
    """`nfstune <command> | head -1` through a real shell: head's output, nfstune's stderr and nfstune's status."""
    env = os.environ | {
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    status, stderr = tmp_path / "status", tmp_path / "stderr"
    script = f'( "{sys.executable}" -m nfstune {command} 2>"{stderr}"; echo $? >"{status}" ) | head -1'
    shown = subprocess.run(["sh", "-c", script], capture_output=True, text=True, env=env, timeout=120, check=True)
    return shown.stdout, stderr.read_text(), int(status.read_text())


def test_a_reader_that_stops_early_ends_nfstune_quietly_with_141(tmp_path: Path) -> None:
    results = store(tmp_path)
    share = "/export/" + "x" * 400  # 500 lines of ~460 bytes: far more than a pipe holds (64 KiB on Linux)
    for _ in range(500):
        results.end_session(
            results.start_session(server_host=None, client_host=None, share=share, scale="small", recipes=["x"]),
            "completed",
        )
    first, stderr, status = piped(tmp_path, "history")
    assert first.startswith(" 500  ") and share in first
    assert stderr == ""  # no traceback, no "this is a bug", no "Exception ignored"
    assert status == exits.READER_GONE == 141


def test_output_that_fits_the_pipe_ends_with_0(tmp_path: Path) -> None:
    first, stderr, status = piped(tmp_path, "--help")
    assert first.startswith("usage: nfstune") and stderr == "" and status == 0


def test_the_exit_statuses_are_in_the_help_and_the_readme(tmp_path: Path) -> None:
    text = nfstune(tmp_path, "--help").stdout
    assert "exit status:" in text
    readme = (REPO / "README.md").read_text()
    for code in (0, 1, 2, 3, 70, 130, 141):
        assert f"\n  {code:3}  " in text, code
        assert f"\n| {code} |" in readme, code


def one_session(tmp_path: Path) -> int:
    results = store(tmp_path)
    sid = results.start_session(server_host=None, client_host=None, share="/export", scale="small", recipes=["x"])
    run = results.start_run(sid, recipe="sync-vs-async", config_label="sync", config={}, workload="seq-write")
    for i, mbs in enumerate([10.0, 11.0, 10.5]):
        results.add_repeat(
            run, i, warmup=False, values={"tool": "fio", "bytes": 8 << 20, "seconds": 0.8, "mb_per_s": mbs}
        )
    results.end_session(sid, "completed")
    return sid


def test_a_dash_writes_a_report_to_standard_output_and_nothing_else(tmp_path: Path) -> None:
    sid = one_session(tmp_path)
    csv_out = nfstune(tmp_path, "report", str(sid), "--csv", "-")
    assert csv_out.returncode == 0 and csv_out.stderr == ""
    assert csv_out.stdout == store(tmp_path).csv_text(sid).replace("\r\n", "\n")  # text=True reads \r\n as \n
    html_out = nfstune(tmp_path, "report", str(sid), "--html", "-", "--csv", str(tmp_path / "r.csv"))
    assert html_out.returncode == 0
    assert html_out.stdout.startswith("<!doctype html>") and html_out.stdout.rstrip().endswith("</html>")
    assert html_out.stderr == f"wrote {tmp_path / 'r.csv'}\n"  # the other lines keep off the page
    assert (tmp_path / "r.csv").read_text() == csv_out.stdout
    assert not (tmp_path / "-").exists()


def test_a_file_named_dash_is_written_as_dot_slash_dash(tmp_path: Path) -> None:
    sid = one_session(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "nfstune", "report", str(sid), "--csv", "./-"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=os.environ | {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    assert result.returncode == 0 and result.stdout == "wrote -\n"
    assert (tmp_path / "-").read_text().startswith("session,recipe,config,")


def test_two_reports_cannot_both_go_to_standard_output(tmp_path: Path) -> None:
    sid = one_session(tmp_path)
    result = nfstune(tmp_path, "report", str(sid), "--json", "-", "--html", "-")
    assert result.returncode == 2 and result.stdout == ""
    assert "error: --html and --json both go to standard output (-)" in result.stderr
    assert "Traceback" not in result.stderr


def test_run_with_the_page_on_standard_output_prints_everything_else_on_standard_error(tmp_path: Path) -> None:
    result = nfstune(tmp_path, "run", "--lab", "--recipe", "quick-check", "--dry-run", "--html", "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""  # a dry run writes no page; its plan is not taken for one
    assert "Dry run: no host was contacted" in result.stderr


def test_history_as_json_lists_every_session_the_latest_first(tmp_path: Path) -> None:
    import datetime
    import json

    first = one_session(tmp_path)
    results = store(tmp_path)
    second = results.start_session(server_host=None, client_host=None, share="/srv", scale="normal", recipes=["a", "b"])
    results.end_session(second, "failed", "the NAS went away")
    third = results.start_session(server_host=None, client_host=None, share="/srv", scale="small", recipes=["a"])
    result = nfstune(tmp_path, "history", "--json")
    assert result.returncode == 0 and result.stderr == ""
    rows = json.loads(result.stdout)
    schema("history").validate(rows)
    assert [r["id"] for r in rows] == [third, second, first]
    assert rows[1] | {"started": None, "started_at": None, "ended": None, "ended_at": None} == {
        "id": second,
        "started": None,
        "started_at": None,
        "ended": None,
        "ended_at": None,
        "status": "failed",
        "message": "the NAS went away",
        "server": None,
        "client": None,
        "share": "/srv",
        "scale": "normal",
        "recipes": ["a", "b"],
    }
    started = datetime.datetime.fromisoformat(rows[1]["started"])
    assert started.tzinfo is not None and started.timestamp() == int(rows[1]["started_at"])
    assert rows[1]["ended_at"] >= rows[1]["started_at"]
    assert rows[0]["status"] == "running" and rows[0]["ended"] is None and rows[0]["ended_at"] is None
    assert json.loads(nfstune(tmp_path / "empty", "history", "--json").stdout) == []


def test_recipes_lists_each_one_with_what_it_changes_and_its_time_at_both_scales(tmp_path: Path) -> None:
    import json

    user = tmp_path / "data" / "nfstune" / "recipes"
    user.mkdir(parents=True)
    (user / "broken.toml").write_text("id = 3\n")
    result = nfstune(tmp_path, "recipes", "--json")
    assert result.returncode == 0
    assert "broken.toml" in result.stderr and "warning" in result.stderr  # said, but not in the JSON
    schema("recipes").validate(json.loads(result.stdout))
    rows = {r["id"]: r for r in json.loads(result.stdout)}
    shipped = sorted(p.stem for p in (REPO / "recipes").glob("*.toml"))
    assert sorted(rows) == shipped
    quick = rows["quick-check"]
    assert quick["title"] == "Quick check" and quick["changes"] == "server" and rows["readahead"]["changes"] == "client"
    for row in rows.values():
        for scale in ("small", "normal"):
            time = row["time"][scale]
            assert 0 < time["least_s"] <= time["at_most_s"], (row["id"], scale)
    assert quick["time"]["normal"]["at_most_s"] <= 15 * 60  # issue 28's goal, as docs/bench/plan-times.md shows
    table = nfstune(tmp_path, "recipes").stdout.splitlines()
    assert table[0].split() == ["recipe", "title", "changes", "small", "normal"]
    (line,) = [row for row in table if row.startswith("quick-check ")]
    assert "Quick check" in line and " server " in line and line.endswith(" min")


def schema(name: str) -> Any:
    """The JSON Schema kept in the repo for `nfstune NAME --json`, checked as a schema first."""
    import json

    import jsonschema

    document = json.loads((REPO / "resources" / "schemas" / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(document)
    return jsonschema.Draft202012Validator(document, format_checker=jsonschema.FormatChecker())


def test_the_schemas_refuse_what_the_commands_never_write(tmp_path: Path) -> None:
    history = schema("history")
    row = {
        "id": 1, "started": "2026-11-27T06:28:38+00:00", "started_at": 1.0, "ended": None, "ended_at": None,
        "status": "running", "message": None, "server": None, "client": None, "share": "/srv", "scale": "small",
        "recipes": ["a"],
    }  # fmt: skip
    history.validate([row])
    assert not history.is_valid([row | {"status": "paused"}]) and not history.is_valid([row | {"extra": 1}])
    assert not schema("recipes").is_valid([{"id": "Not An Id"}])
