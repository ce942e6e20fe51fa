"""The NFS source as mount.nfs reads it: an IPv6 server in brackets, split at the first colon otherwise."""

from __future__ import annotations

import pytest

from nfstune.nfs.fstab_rewrite import same_source
from nfstune.nfs.mounts import mount_source, split_source


@pytest.mark.parametrize(
    ("server", "path", "source"),
    [
        ("nas", "/srv/x", "nas:/srv/x"),
        ("10.0.0.1", "/srv/x", "10.0.0.1:/srv/x"),
        ("2001:db8::1", "/srv/v6", "[2001:db8::1]:/srv/v6"),  # was 2001:db8::1:/srv/v6
        ("[2001:db8::1]", "/srv/v6", "[2001:db8::1]:/srv/v6"),
        ("fe80::1%eth0", "/", "[fe80::1%eth0]:/"),
    ],
)
def test_mount_source_reads_back(server: str, path: str, source: str) -> None:
    assert mount_source(server, path) == source
    assert split_source(source) == (server.strip("[]"), path)


@pytest.mark.parametrize("device", ["2001:db8::1:/srv/v6", "nas", "nas:relative", "[::1/srv", ":/srv", "[]:/srv"])
def test_sources_mount_nfs_refuses(device: str) -> None:
    assert split_source(device) is None


def test_same_source_ignores_spelling() -> None:
    assert same_source("nas:/srv/x/", "NAS:/srv/x")
    assert same_source("[2001:DB8:0::1]:/srv", "[2001:db8::1]:/srv/")
    assert not same_source("nas:/srv/x", "nas:/srv/y")
    assert not same_source("nas:/srv/x", "other:/srv/x")
