"""`nfstune run`'s and `nfstune report`'s recommendation text: the admin's own entry and fstab line (kept with the
session after the run, read back from the store), what changed, and a message instead of a traceback when there is
nothing to start from."""

from __future__ import annotations

from pathlib import Path

from nfstune.advice.session import CurrentConfig, keep_current, kept_recommendation
from nfstune.cli.run import advice_text
from nfstune.store import Results, open_store


def session(tmp_path: Path) -> tuple[Results, int]:
    results = Results(open_store(tmp_path / "nfstune.sqlite3"))
    sid = results.start_session(server_host=None, client_host=None, share="/srv/a", scale="small", recipes=["x"])
    results.end_session(sid, "completed")
    return results, sid


def test_the_admins_entry_is_shown_with_its_defaults_and_fstab_entry(tmp_path: Path) -> None:
    results, sid = session(tmp_path)
    current = CurrentConfig(
        {"/etc/exports": "/srv/a -ro,no_root_squash,async host1 \\\n  (rw)\n"},
        "nas:/srv/a /home/me/A\\040B nfs ro,sec=krb5p,noexec,x-systemd.automount 0 0\n",
    )
    keep_current(results, sid, current, server="nas")
    text = advice_text(kept_recommendation(results, sid, {}), "/srv/a")
    lines = text.splitlines()
    assert "  /srv/a -ro,no_root_squash,async host1(sync) \\" in lines
    assert "    *(rw,sync)" in lines  # the trap's everyone keeps rw (not nfstune's to change), made sync
    assert lines[lines.index("  now:") + 1 :][:2] == ["    /srv/a -ro,no_root_squash,async host1 \\", "      (rw)"]
    assert "  nas:/srv/a /home/me/A\\040B nfs ro,sec=krb5p,noexec,x-systemd.automount 0 0" in lines
    assert "  (already reads as recommended)" in lines
    assert any("has no host before '('" in line for line in lines)  # the "host (rw)" trap is reported


def test_no_export_gives_a_message_not_a_traceback(tmp_path: Path) -> None:
    results, sid = session(tmp_path)
    keep_current(results, sid, CurrentConfig({}, None), server="nas")
    text = advice_text(kept_recommendation(results, sid, {}), "/srv/a")
    assert text.strip().startswith("No recommendation: /srv/a is not exported yet")


def test_a_session_that_kept_no_configuration_says_so(tmp_path: Path) -> None:
    results, sid = session(tmp_path)  # as a cancelled run, or one stored before sessions kept the configuration
    text = advice_text(kept_recommendation(results, sid, {}), "/srv/a")
    assert text.strip().startswith("No recommendation: this session did not keep the server's exports")


def test_the_kept_configuration_stays_out_of_the_json_export(tmp_path: Path) -> None:
    results, sid = session(tmp_path)
    keep_current(results, sid, CurrentConfig({"/etc/exports": "/srv/a h(rw)\n"}, "SECRET-FSTAB\n"), server="nas")
    out = tmp_path / "s.json"
    results.export_json(sid, out)
    assert "SECRET-FSTAB" not in out.read_text()
    assert results.session(sid)["admin_config"] is not None


def test_the_servers_addresses_are_kept_and_a_later_report_finds_the_entry_by_address(tmp_path: Path) -> None:
    results, sid = session(tmp_path)
    fstab = "10.0.0.5:/srv/a /home/me/a nfs ro 0 0\n"
    keep_current(
        results, sid, CurrentConfig({"/etc/exports": "/srv/a h(rw)\n"}, fstab, None, ("nas", "10.0.0.5")), server="nas"
    )
    lines = advice_text(kept_recommendation(results, sid, {}), "/srv/a").splitlines()
    assert "  10.0.0.5:/srv/a /home/me/a nfs ro 0 0" in lines and "  (already reads as recommended)" in lines
    assert not any(line.startswith("  nas:/srv/a ") for line in lines)  # no second line beside it
