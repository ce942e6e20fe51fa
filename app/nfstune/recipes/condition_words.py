"""A recipe's condition in the words an admin uses, not the facts' names: what a configuration needs ("at least 2
clients at once", "a server that offers NFS 4.0") and what these hosts have instead ("this session has 1 client").
The facts' names (model.FACTS) stay the recipe file's vocabulary; they never reach the plan, the Recipes page or a
report. Pure: model.FactTest and model.Condition say themselves with these."""

from __future__ import annotations

from nfstune.words import and_list, count

# an int fact: (what it needs, with {bound}: "at least 64", "fewer than 64", "64"; what the hosts have, with
# {value}; the word for a bound below, "fewer than" for what is counted, "under" for a measure)
_INT_WORDS: dict[str, tuple[str, str, str]] = {
    "server_max_block_size": (
        "a server whose largest READ/WRITE is {bound}",
        "this server's largest is {value}",
        "under",
    ),
    "server_ram_bytes": ("a server with {bound} of RAM", "this server has {value}", "under"),
    "server_nfsd_threads": ("a server running {bound} nfsd threads", "this server runs {value}", "fewer than"),
    "link_speed_mbps": ("a link of {bound} Mbit/s between the hosts", "this link runs at {value} Mbit/s", "under"),
    "link_mtu": ("an MTU of {bound} on the link", "this link's MTU is {value}", "under"),
}
# a true/false fact: what it needs when true, when false; what the hosts have when true, when false
_BOOL_WORDS: dict[str, tuple[str, str, str, str]] = {
    "server_disk_rotational": (
        "a share on a spinning disk",
        "a share on an SSD (not a spinning disk)",
        "this share is on a spinning disk",
        "this share is not on a spinning disk",
    ),
    "rdma_both": (
        "an active RDMA device on both hosts",
        "no RDMA on one of the hosts",
        "here both have one",
        "here they do not both have one",
    ),
    "rdma_software": (
        "an RDMA device emulated over Ethernet (soft-RoCE or soft-iWARP)",
        "RDMA devices that are not emulated",
        "here one of them is emulated",
        "here none is emulated",
    ),
}
_SET_WORDS: dict[str, tuple[str, str, str]] = {
    # a set fact: needs it to include {value}, needs it not to, and what the hosts have ({values})
    "server_nfs_version": (
        "a server that offers NFS {value}",
        "a server that does not offer NFS {value}",
        "this server offers NFS {values}",
    ),
    "server_filesystems": (
        "a server that can make {value} filesystems (mkfs.{value})",
        "a server without mkfs.{value}",
        "this server can make {values}",
    ),
}


def size_words(value: int) -> str:
    """1048576 -> '1 MiB', 524288 -> '512 KiB', 1000 -> '1000 bytes'."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:.3g} {unit}"
    return f"{value} bytes"


def _value(fact: str, value: int) -> str:
    return size_words(value) if fact.endswith(("_size", "_bytes")) else str(value)


def need_words(
    fact: str, equals: str | int | bool | None, negate: bool, at_least: int | None, below: int | None
) -> str:
    """What one test needs, as a noun phrase: 'at least 2 clients at once', 'a server that offers NFS 4.0'."""
    if fact == "clients_connected":
        return _clients_need(equals, at_least, below)
    if fact in _SET_WORDS:
        wants, refuses, _ = _SET_WORDS[fact]
        return (refuses if negate else wants).format(value=equals)
    if fact in _BOOL_WORDS:
        when_true, when_false, _, _ = _BOOL_WORDS[fact]
        return when_true if (equals is True) != negate else when_false
    template, _, under = _INT_WORDS.get(fact, (f"{fact} {{bound}}", "", "under"))
    if equals is not None:
        bound = f"{'other than ' if negate else ''}{_value(fact, int(equals))}"
    else:
        parts = [f"at least {_value(fact, at_least)}"] if at_least is not None else []
        parts += [f"{under} {_value(fact, below)}"] if below is not None else []
        bound = " and ".join(parts)
    return template.format(bound=bound)


def _clients_need(equals: str | int | bool | None, at_least: int | None, below: int | None) -> str:
    if equals is not None:
        return f"{count(int(equals), 'client')} at once"
    if at_least is not None and below is None:
        return f"at least {count(at_least, 'client')} at once"
    if below is not None and at_least is None:
        return f"fewer than {count(below, 'client')}"
    return f"from {at_least} to {count((below or 1) - 1, 'client')}"


def have_words(fact: str, value: int | bool | frozenset[str]) -> str:
    """What the hosts have of a fact: 'this session has 1 client', 'this server offers NFS 3 and 4.2'."""
    if fact == "clients_connected" and isinstance(value, int):
        return f"this session has {count(value, 'client')}"
    if isinstance(value, frozenset):
        _, _, have = _SET_WORDS[fact]
        return have.format(values=and_list(sorted(value)) or "none")
    if isinstance(value, bool):
        _, _, when_true, when_false = _BOOL_WORDS[fact]
        return when_true if value else when_false
    _, have, _ = _INT_WORDS.get(fact, ("", f"{fact} is {{value}}", ""))
    return have.format(value=_value(fact, value))
