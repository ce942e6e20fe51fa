"""Apply and Undo last Apply on this computer (tests/root/etc_host.py: its own sh, findmnt and files, /etc moved to
a folder of the test's, exportfs replaying what exportfs 2.6.2 said of the same text): the files Apply writes are
the write steps of the plan the admin reads, in order; Undo puts the bytes back and checks them with the same
exports verifier as Apply, so an export that does not come back fails the Undo and leaves the Apply in force."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from nfstune.changes.apply import ApplyFailed, ApplyPlan, apply, plan_apply
from nfstune.changes.apply_undo import last_apply, prepare_undo, undo_apply
from nfstune.changes.transaction import host_key
from nfstune.store import Journal, open_store
from tests.root.etc_host import EtcHost, recorded

# the admin's export, async by its last option, and the recommendation, sync by its last: both recorded as the
# real exportfs ran them
ASYNC_TEXT, ASYNC_RESULT = recorded("hostile:19")  # /export/a client(sync,async)
SYNC_TEXT, SYNC_RESULT = recorded("hostile:20")  # /export/a client(async,sync)
# what exportfs -ra does when a client's name does not resolve: exits 0, says so, and exports nothing
UNRESOLVED_TEXT, UNRESOLVED_RESULT = recorded("hostile:57")
FSTAB = "UUID=1234  /  ext4  defaults  0 1\n"


@pytest.fixture
def host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> EtcHost:
    h = EtcHost(tmp_path / "host", monkeypatch)
    h.etc("exports").write_text(ASYNC_TEXT)
    h.etc("fstab").write_text(FSTAB)
    for text, result in ((ASYNC_TEXT, ASYNC_RESULT), (SYNC_TEXT, SYNC_RESULT)):
        h.replay(text, result)
    h.run(["exportfs", "-ra"])  # the kernel runs the admin's export, as before any Apply
    return h


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    return Journal(open_store(tmp_path / "nfstune.sqlite3"))


def the_plan(host: EtcHost, tmp_path: Path) -> ApplyPlan:
    mount_point = tmp_path / "mnt" / "a"
    key = (host.label, host_key(host))
    line = f"nas:/export/a {mount_point} nfs vers=4.2 0 0"
    return plan_apply({"/etc/exports": ASYNC_TEXT}, FSTAB, "/export/a", SYNC_TEXT, line, server=key, client=key)


def test_the_files_apply_writes_are_the_write_steps_of_its_plan_in_order(
    host: EtcHost, journal: Journal, tmp_path: Path
) -> None:
    plan = the_plan(host, tmp_path)
    planned = [step.writes for step in plan.steps.do if step.writes is not None]
    assert "/etc/exports" in planned and "/etc/fstab" in planned  # both files, each after its dated copy
    assert all(step.text() in plan.review for step in plan.steps.do)  # what the admin confirms
    host.written.clear()
    apply(plan, host, host, journal, lambda _m: None)
    # the plan cannot know the time of the Apply: its copies' names hold a placeholder the run fills in
    pattern = [re.escape(p).replace(re.escape("<date>"), r"\d{8}-\d{6}(-\d+)?") for p in planned]
    assert len(host.written) == len(planned)
    assert all(re.fullmatch(p, w) for p, w in zip(pattern, host.written, strict=True)), (planned, host.written)
    assert host.etc("exports").read_text() == SYNC_TEXT
    assert host.etc("fstab").read_text() == FSTAB + f"nas:/export/a {tmp_path / 'mnt' / 'a'} nfs vers=4.2 0 0\n"
    # and every command step ran, in the plan's order, with each copy's real name (its own second)
    copies = {c.split(".nfstune-")[0] + ".nfstune-<date>.bak": c for c in host.written if c.endswith(".bak")}
    words = [
        [copies.get(w, w) for w in shlex.split(step.line)]
        for step in plan.steps.do
        if step.writes is None and not step.when  # the mount point's only when it is missing (it is made, here)
    ]
    sent = iter(shlex.split(cmd) for cmd in host.sent)
    assert len(words) == 4 and all(any(w == cmd for cmd in sent) for w in words), (words, host.sent)
    assert journal.pending() == []


def test_undo_puts_the_bytes_back_and_checks_the_export_came_back(
    host: EtcHost, journal: Journal, tmp_path: Path
) -> None:
    apply(the_plan(host, tmp_path), host, host, journal, lambda _m: None)
    assert "client(sync," in host.run(["exportfs", "-s"]).stdout
    undo = prepare_undo(host, host, journal)
    assert [s.writes for s in undo.steps.do if s.writes] == ["/etc/exports", "/etc/fstab"]
    assert all(step.text() in undo.review for step in undo.steps.do)
    sent = len(host.sent)
    log: list[str] = []
    undo_apply(undo, host, host, journal, log.append)
    assert host.etc("exports").read_text() == ASYNC_TEXT and host.etc("fstab").read_text() == FSTAB
    # the copies Apply kept and the mount point it made are gone, by the plan's own steps
    assert sorted(p.name for p in host.etc("").iterdir()) == ["exports", "fstab"]
    assert not (tmp_path / "mnt" / "a").exists()
    ran = host.sent[sent:]
    assert all(step.line in ran for step in undo.steps.do if step.writes is None)
    assert "client(async," in host.run(["exportfs", "-s"]).stdout
    assert any("exportfs -ra accepts the restored /etc/exports" in line for line in log)
    assert last_apply(journal, [host_key(host)]) is None and journal.pending() == []


def test_an_undo_whose_export_does_not_come_back_fails_and_leaves_the_apply_in_force(
    host: EtcHost, journal: Journal, tmp_path: Path
) -> None:
    """The admin's client name no longer resolves when the Undo runs: exportfs -ra exits 0, says "Failed to
    resolve", and exports nothing. The old Undo only asked whether exportfs -ra refused the file, and called that
    undone and verified while nobody could mount the share."""
    apply(the_plan(host, tmp_path), host, host, journal, lambda _m: None)
    applied = host.etc("exports").read_bytes()
    host.replay(ASYNC_TEXT, UNRESOLVED_RESULT)
    assert UNRESOLVED_RESULT[0] == 0 and UNRESOLVED_RESULT[2] == ""  # exit 0, nothing exported: as recorded
    undo = prepare_undo(host, host, journal)
    with pytest.raises(ApplyFailed) as failed:
        undo_apply(undo, host, host, journal, lambda _m: None)
    assert failed.value.command == "exportfs -s" and "/export/a" in str(failed.value)
    assert "does not list client" in str(failed.value)
    # the rollback put Apply's file back and reloaded it: the share is exported as Apply left it
    assert host.etc("exports").read_bytes() == applied
    assert "client(sync," in host.run(["exportfs", "-s"]).stdout
    assert host.etc("fstab").read_text() == FSTAB + f"nas:/export/a {tmp_path / 'mnt' / 'a'} nfs vers=4.2 0 0\n"
    found = last_apply(journal, [host_key(host)])
    assert found is not None and found.apply_id == undo.applied.apply_id  # still offered for an Undo
    assert journal.pending() == []
