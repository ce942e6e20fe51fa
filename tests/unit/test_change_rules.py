"""Rules a change checks before it touches a host (no host is contacted here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nfstune.changes.export import ApplianceRefused, ExportChange
from nfstune.changes.transaction import Transaction
from nfstune.errors import NfstuneError
from nfstune.remote import Host
from nfstune.store import Journal, open_store


def test_an_appliance_is_never_written_and_the_vendor_setting_is_named(tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    nowhere = Host("127.0.0.1", known_hosts=tmp_path / "kh", label="syno")  # never contacted
    with pytest.raises(ApplianceRefused) as info:
        ExportChange(
            nowhere, Transaction(journal, print), file="/etc/exports", new_text=b"", expect={}, appliance="Synology DSM"
        )
    assert "Enable asynchronous" in str(info.value) and "syno" in str(info.value)
    assert journal.pending() == []


@pytest.mark.parametrize(
    "file",
    [
        "/etc/fstab",
        "/etc/exports.d/x.conf",
        "/tmp/exports",
        "/etc/exports.d/../passwd",
        "/etc/exports.d/../x.exports",
        "/etc/exports.d/a/b.exports",
    ],
)
def test_only_exports_files_are_written(tmp_path: Path, file: str) -> None:
    journal = Journal(open_store(tmp_path / "s.sqlite3"))
    nowhere = Host("127.0.0.1", known_hosts=tmp_path / "kh", label="nas")
    with pytest.raises(NfstuneError, match="is not an exports file"):
        ExportChange(nowhere, Transaction(journal, print), file=file, new_text=b"", expect={})
