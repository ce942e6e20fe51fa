"""Every sudo password is asked during the probe, before anything is changed (non-root logins on the real sshd)."""

from __future__ import annotations

from pathlib import Path

from nfstune.session.workflow import Pair, probe_pair
from tests.root.conftest import Sshd
from tests.root.test_remote_files import login, users  # noqa: F401 (the fixture)


def test_both_sudo_passwords_are_asked_by_the_probe(sshd: Sshd, users: None, tmp_path: Path) -> None:  # noqa: F811
    server, client = login(sshd, "nfstune-files-pw"), login(sshd, "nfstune-files-cached")
    with server, client:
        facts = probe_pair(Pair(server, client, "127.0.0.1", str(tmp_path)))
        assert facts.server.filesystem is not None  # the probe itself ran
        assert facts.server.filesystem.path == str(tmp_path)
        assert server.asked == ["sudo password for nfstune-files-pw"]  # type: ignore[attr-defined]
        assert client.asked == ["sudo password for nfstune-files-cached"]  # type: ignore[attr-defined]
        assert client.run("id -un", sudo=True).stdout.strip() == "root"  # later sudo asks nothing more
    assert client.asked == ["sudo password for nfstune-files-cached"]  # type: ignore[attr-defined]
