"""Mount options as an ordered list: "rw,vers=4.2,rsize=131072,hard" parsed, edited and written back exactly.

The values here are decoded text; the files that hold options (/proc/mounts, fstab) escape them on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from nfstune.nfs.counters import is_number

RDMA_PORT = 20049  # nfs(5): the port proto=rdma uses when the mount names none (IANA's nfsrdma)


def split_commas(text: str, quotes: str = '"') -> list[str]:
    """Split on commas outside quotes, so an SELinux context="a,b" is one option.

    Mount options quote with " only (as libmount does: an apostrophe in a value is just a character);
    mountstats' impl_id line quotes with ' as well (date='0,0'), and its reader passes both.
    """
    items: list[str] = []
    start = 0
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in quotes:
            quote = char
        elif char == ",":
            items.append(text[start:index])
            start = index + 1
    items.append(text[start:])
    return items


@dataclass(frozen=True)
class MountOption:
    name: str
    value: str | None = None  # None: a flag such as "hard"; "" for "name=" (kept so it renders back as written)

    @classmethod
    def parse(cls, text: str) -> MountOption:
        name, equals, value = text.partition("=")
        return cls(name, value if equals else None)

    def render(self) -> str:
        return self.name if self.value is None else f"{self.name}={self.value}"


# Options that exclude each other: the kernel and mount.nfs take them left to right, so the last one wins.
RECOVERY_FLAGS = ("hard", "soft", "softerr")
ATTRIBUTE_CACHE_FLAGS = ("ac", "noac")
SHARECACHE_FLAGS = ("sharecache", "nosharecache")
_VERSION_FLAGS = {"v2": "2", "v3": "3", "v4": "4", "v4.0": "4.0", "v4.1": "4.1", "v4.2": "4.2"}
_TRANSPORT_FLAGS = ("tcp", "udp", "rdma")


@dataclass(frozen=True)
class MountOptions:
    """An ordered option list, e.g. "rw,vers=4.2,rsize=131072,hard"; parse() then render() gives the text back.

    Editing methods return a new list and leave every other option where it was.
    """

    options: tuple[MountOption, ...] = ()

    @classmethod
    def parse(cls, text: str) -> MountOptions:
        if text == "":
            return cls()
        return cls(tuple(MountOption.parse(item) for item in split_commas(text)))

    def render(self) -> str:
        return ",".join(option.render() for option in self.options)

    def __str__(self) -> str:
        return self.render()

    def names(self) -> list[str]:
        return [option.name for option in self.options]

    def has(self, name: str) -> bool:
        return any(option.name == name for option in self.options)

    def get(self, name: str) -> str | None:
        """The value of the last `name=value` (the one in force); None if absent or only a flag."""
        for option in reversed(self.options):
            if option.name == name:
                return option.value
        return None

    def set(self, name: str, value: str | None = None) -> MountOptions:
        """Give `name` this value where it first stands (later copies go), or append it at the end."""
        if not self.has(name):
            return MountOptions((*self.options, MountOption(name, value)))
        kept: list[MountOption] = []
        placed = False
        for option in self.options:
            if option.name != name:
                kept.append(option)
            elif not placed:
                kept.append(MountOption(name, value))
                placed = True
        return MountOptions(tuple(kept))

    def remove(self, name: str) -> MountOptions:
        return MountOptions(tuple(option for option in self.options if option.name != name))

    def choose(self, group: tuple[str, ...], chosen: str) -> MountOptions:
        """Set one flag of a group that excludes each other (hard/soft/softerr...), where the group first stood."""
        if chosen not in group:
            raise ValueError(f"{chosen!r} is not one of {group}")
        if not any(option.name in group for option in self.options):
            return MountOptions((*self.options, MountOption(chosen)))
        kept: list[MountOption] = []
        placed = False
        for option in self.options:
            if option.name not in group:
                kept.append(option)
            elif not placed:
                kept.append(MountOption(chosen))
                placed = True
        return MountOptions(tuple(kept))

    def last_of(self, group: tuple[str, ...]) -> str | None:
        """Which flag of the group is in force (the last one written), or None if none is."""
        for option in reversed(self.options):
            if option.name in group:
                return option.name
        return None

    def _int(self, name: str) -> int | None:
        value = self.get(name)
        return int(value) if value is not None and is_number(value) else None

    # Typed accessors for the NFS options (nfs(5)). None means absent (the kernel default applies) or unreadable.

    @property
    def vers(self) -> str | None:
        """NFS version as written: "3", "4.2"...; from vers=, nfsvers= or a v3/v4.1 flag, the last one wins."""
        for option in reversed(self.options):
            if option.name in ("vers", "nfsvers") and option.value is not None:
                return option.value
            if option.name in _VERSION_FLAGS and option.value is None:
                return _VERSION_FLAGS[option.name]
        return None

    @property
    def proto(self) -> str | None:
        """Transport: proto=tcp|udp|rdma|tcp6|udp6|rdma6, or the bare tcp/udp/rdma flags."""
        for option in reversed(self.options):
            if option.name == "proto" and option.value is not None:
                return option.value
            if option.name in _TRANSPORT_FLAGS and option.value is None:
                return option.name
        return None

    @property
    def rsize(self) -> int | None:
        return self._int("rsize")

    @property
    def wsize(self) -> int | None:
        return self._int("wsize")

    @property
    def nconnect(self) -> int | None:
        return self._int("nconnect")

    @property
    def timeo(self) -> int | None:
        """Retransmit timeout in tenths of a second."""
        return self._int("timeo")

    @property
    def retrans(self) -> int | None:
        return self._int("retrans")

    @property
    def actimeo(self) -> int | None:
        return self._int("actimeo")

    @property
    def recovery(self) -> str | None:
        """What happens after a request times out: "hard" (retry forever), "soft" or "softerr" (fail)."""
        return self.last_of(RECOVERY_FLAGS)

    @property
    def attribute_cache(self) -> bool | None:
        """False with noac, True with ac, None when neither is written."""
        flag = self.last_of(ATTRIBUTE_CACHE_FLAGS)
        return None if flag is None else flag == "ac"

    @property
    def sharecache(self) -> bool | None:
        flag = self.last_of(SHARECACHE_FLAGS)
        return None if flag is None else flag == "sharecache"

    @property
    def sec(self) -> str | None:
        """Security flavour(s) as written: "sys", "krb5p", or a list such as "krb5i:krb5"."""
        return self.get("sec")

    @property
    def addr(self) -> str | None:
        return self.get("addr")

    @property
    def clientaddr(self) -> str | None:
        return self.get("clientaddr")

    @property
    def lookupcache(self) -> str | None:
        return self.get("lookupcache")

    @property
    def local_lock(self) -> str | None:
        return self.get("local_lock")
