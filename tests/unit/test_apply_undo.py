"""Which Apply an undo puts back: the newest one still in force on the pair of hosts, found in the journal by the id
Apply gives its entries (an older Apply's entries, without an id, by the process that made them); one already undone
or one on other hosts is not offered."""

from __future__ import annotations

from pathlib import Path

from nfstune.changes.apply import new_apply_id
from nfstune.changes.apply_undo import last_apply
from nfstune.store import Journal, open_store

NAS, LAPTOP, OTHER = "root@nas:22", "me@laptop:22", "root@other:22"


def applied(journal: Journal, host: str, kind: str, target: str, apply_id: str | None, **detail: object) -> int:
    extra = {"apply": True, **({"apply_id": apply_id} if apply_id else {}), **detail}
    entry = journal.record(host, kind, target, original=b"before\n", detail=extra)
    journal.mark_committed([entry])
    return entry


def test_the_newest_apply_on_the_pair_is_found_with_its_files_and_dirs(tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    applied(journal, NAS, "file", "/etc/exports", "first")
    applied(journal, LAPTOP, "file", "/etc/fstab", "first")
    server = applied(journal, NAS, "file", "/etc/exports", "second", written_sha256="abc")
    outer = applied(journal, LAPTOP, "dir", "/mnt", "second")
    inner = applied(journal, LAPTOP, "dir", "/mnt/nas", "second")
    client = applied(journal, LAPTOP, "file", "/etc/fstab", "second")
    applied(journal, OTHER, "file", "/etc/exports", "third")  # a later apply on another server
    found = last_apply(journal, [NAS, LAPTOP])
    assert found is not None and found.apply_id == "second"
    assert [e.id for e in found.files] == [server, client]
    assert [e.target for e in found.dirs] == ["/mnt", "/mnt/nas"] and [e.id for e in found.dirs] == [outer, inner]
    assert found.files[0].detail["written_sha256"] == "abc" and found.files[0].original == b"before\n"


def test_an_undone_apply_is_not_offered_again_and_pending_changes_are_not_applies(tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    first = applied(journal, NAS, "file", "/etc/exports", "first")
    second = applied(journal, NAS, "file", "/etc/exports", "second")
    journal.mark_restored(second)  # undone
    journal.record(NAS, "file", "/etc/exports", original=b"x", detail={"exportfs": True})  # a run's, pending
    found = last_apply(journal, [NAS, LAPTOP])
    assert found is not None and [e.id for e in found.files] == [first]
    journal.mark_restored(first)
    assert last_apply(journal, [NAS, LAPTOP]) is None


def test_entries_of_an_apply_without_an_id_group_by_their_process(tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    a = applied(journal, NAS, "file", "/etc/exports", None)
    b = applied(journal, LAPTOP, "file", "/etc/fstab", None)
    found = last_apply(journal, [NAS, LAPTOP])
    assert found is not None and [e.id for e in found.files] == [a, b] and found.apply_id.startswith("pid-")


def test_two_applies_within_one_second_have_their_own_ids_and_undo_finds_the_second(tmp_path: Path) -> None:
    """The desktop's Apply twice in a row: the same second, the same process. Their ids were the time and the
    process id, so both Applies' entries fell into one group and Undo refused the mixture."""
    ids = [new_apply_id() for _ in range(50)]  # well within one second
    assert len(set(ids)) == len(ids)
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    applied(journal, NAS, "file", "/etc/exports", ids[0])
    applied(journal, LAPTOP, "file", "/etc/fstab", ids[0])
    second = applied(journal, NAS, "file", "/etc/exports", ids[1])
    found = last_apply(journal, [NAS, LAPTOP])
    assert found is not None and found.apply_id == ids[1] and [e.id for e in found.files] == [second]
