"""What a host resolves the server's name to (remote/lookup.py): `getent ahosts` run on the host itself."""

from __future__ import annotations

from nfstune.remote.local import LocalHost
from nfstune.remote.lookup import addresses_of, parse_getent

# `getent ahosts nas` on the practice lab's client (Debian 12, /etc/hosts names the NAS), and a host whose name has
# an IPv6 address too (the same command's layout, written from it)
LAB = "10.99.0.1       STREAM nas\n10.99.0.1       DGRAM  \n10.99.0.1       RAW    \n"
DUAL = (
    "2001:db8::5     STREAM nas.home.arpa\n2001:db8::5     DGRAM  \n10.0.0.5        STREAM \n10.0.0.5        DGRAM  \n"
)


def test_each_address_once_in_the_resolvers_order() -> None:
    assert parse_getent(LAB) == ("10.99.0.1",)
    assert parse_getent(DUAL) == ("2001:db8::5", "10.0.0.5")
    assert parse_getent("") == ()
    assert parse_getent("not an address  STREAM x\n") == ()


def test_this_computer_resolves_localhost_from_its_own_hosts_file() -> None:
    found = addresses_of(LocalHost(), "localhost")
    assert found[0] == "localhost" and {"127.0.0.1", "::1"} & set(found[1:])


def test_the_package_keeps_its_resolve_function_once_the_lookup_is_imported() -> None:
    """A module named remote/resolve.py, imported by Apply, replaced the package's resolve() (the ssh config
    resolution) with itself: every later `from nfstune.remote import resolve` got a module."""
    import nfstune.changes.apply  # noqa: F401  (imports the lookup)
    from nfstune.remote import resolve

    assert callable(resolve) and resolve.__module__ == "nfstune.remote.target"
