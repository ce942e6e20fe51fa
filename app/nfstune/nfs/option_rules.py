"""Which NFS options a recipe may name, and the checks of one option as the admin wrote it: nfs(5) mount options
(flags, numbers with their ranges, choices) and exports(5) options (which exist, which take a value, which a recipe
may never set because they change who may read or write, or the file handles clients hold). The messages say what
mount.nfs or exportfs would do with the option, so that a recipe is refused before anything runs."""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection

from nfstune.nfs.export_options import FLAG_OPTIONS, OptionError, parse_options

# nfs(5) options, plus the generic ones mount(8) passes on. Flags are written `hard = true`.
MOUNT_FLAGS = frozenset(
    {
        "soft",
        "softerr",
        "softreval",
        "nosoftreval",
        "hard",
        "ac",
        "noac",
        "bg",
        "fg",
        "rdirplus",
        "nordirplus",
        "nosharecache",
        "resvport",
        "noresvport",
        "fsc",
        "nofsc",
        "cto",
        "nocto",
        "lock",
        "nolock",
        "acl",
        "noacl",
        "posix",
        "noposix",
        "intr",
        "nointr",
        "tcp",
        "udp",
        "rdma",
        "v3",
        "v4",
        "v4.0",
        "v4.1",
        "v4.2",
        "migration",
        "nomigration",
        "trunkdiscovery",
        "notrunkdiscovery",
        "ro",
        "rw",
        "sync",
        "async",
        "atime",
        "noatime",
        "relatime",
        "norelatime",
        "diratime",
        "nodiratime",
        "strictatime",
        "exec",
        "noexec",
        "suid",
        "nosuid",
        "dev",
        "nodev",
    }
)
MOUNT_NUMBERS = {
    "rsize": (1024, 1048576),
    "wsize": (1024, 1048576),
    "nconnect": (1, 16),
    "max_connect": (1, 16),
    "timeo": (1, 6000),
    "retrans": (0, 100),
    "acregmin": (0, 86400),
    "acregmax": (0, 86400),
    "acdirmin": (0, 86400),
    "acdirmax": (0, 86400),
    "actimeo": (0, 86400),
    "retry": (0, 10000),
    "port": (0, 65535),
    "mountport": (0, 65535),
    "mountvers": (1, 3),
    "namlen": (1, 255),
    "minorversion": (0, 2),
}
MOUNT_VERSIONS = ("3", "4", "4.0", "4.1", "4.2")
TRANSPORTS = ("tcp", "udp", "rdma", "tcp6", "udp6", "rdma6")
MOUNT_CHOICES = {
    "vers": MOUNT_VERSIONS,
    "nfsvers": MOUNT_VERSIONS,
    "proto": TRANSPORTS,
    "mountproto": TRANSPORTS,
    "lookupcache": ("all", "none", "pos", "positive"),
    "local_lock": ("all", "flock", "posix", "none"),
    "xprtsec": ("none", "tls", "mtls"),
    "write": ("lazy", "eager", "wait"),
}
MOUNT_TEXTS = frozenset({"clientaddr", "mounthost"})
HOST_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:%-]*")  # a name, an IPv4 or IPv6 address (with its %zone)
SECURITY_FLAVOURS = ("sys", "krb5", "krb5i", "krb5p", "none")
MOUNT_REFUSED = {
    "remount": "NFS options cannot be changed by a remount (nfs(5)); nfstune mounts afresh for each configuration",
    "sharecache": "nfstune's own mounts use nosharecache, so that the user's mounts of the server do not pin options",
}
MOUNT_VALUED = frozenset({*MOUNT_NUMBERS, *MOUNT_CHOICES, *MOUNT_TEXTS, "sec"})
MOUNT_NAMES = frozenset({*MOUNT_FLAGS, *MOUNT_VALUED, *MOUNT_REFUSED})
# groups a table cannot order, so two of one group are ambiguous (mount.nfs would let the last one win)
MOUNT_EXCLUSIVE = (
    ("hard", "soft", "softerr"),
    ("ro", "rw"),
    ("sync", "async"),
    ("tcp", "udp", "rdma"),
    ("v3", "v4", "v4.0", "v4.1", "v4.2"),
    ("vers", "nfsvers"),
    *((flag, "no" + flag) for flag in sorted(MOUNT_FLAGS) if "no" + flag in MOUNT_FLAGS),
)

EXPORT_VALUED = frozenset({"anonuid", "anongid", "sec", "xprtsec", "squash_uids", "squash_gids"})
EXPORT_REFUSED = {
    "fsid": "a new fsid under mounted clients makes their file handles stale (ESTALE)",
    "refer": "a referral sends clients to another server",
    "replicas": "a replica list sends clients to other servers",
    "reexport": "re-export settings change the file handles clients hold",
    "mountpoint": "the export would vanish whenever its path is not a mount point",
    "mp": "the export would vanish whenever its path is not a mount point",
}
EXPORT_NAMES = frozenset({*FLAG_OPTIONS, *EXPORT_VALUED, *EXPORT_REFUSED})
# what a recipe may set or unset on the admin's export while it runs: how the server writes, never who may read or
# write (rw, no_root_squash, insecure, sec=, anonuid=... would widen access for the length of the run)
EXPORT_TUNABLE = frozenset({"sync", "async", "wdelay", "no_wdelay", "subtree_check", "no_subtree_check"})
NOT_TUNABLE = (
    "recipes change only how the server writes ({}); access options stay as the admin wrote them, for changing "
    "them could widen who may read or write while the recipe runs"
).format(", ".join(sorted(EXPORT_TUNABLE)))
ID_DIGITS = 10  # a uid or gid is 32 bits: 4294967295


def did_you_mean(word: str, known: Collection[str]) -> str:
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def describe(value: object) -> str:
    """A TOML value as the admin wrote it, for "must be ..., not X"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else f"{value[:37]}..."
        # a NUL or a control character shown as it was escaped in the file, not sent raw to the terminal
        return f"'{shown}'" if shown.isprintable() else f"'{repr(shown)[1:-1]}'"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return "an array"
    return "a table" if isinstance(value, dict) else f"a {type(value).__name__}"


def is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def version_text(value: object) -> str | None:
    """vers = 3, 4.2 or "4.2" -> "3", "4.2"; floats keep their decimal (4.0 stays "4.0")."""
    if isinstance(value, str):
        return value
    if is_integer(value) or isinstance(value, float):
        return repr(value)
    return None


def check_mount_option(name: str, value: object) -> tuple[str | None, str | None]:
    """(the option's value as mount.nfs takes it, None for a flag; an error message or None)."""
    if name in MOUNT_REFUSED:
        return None, f"'{name}' is not allowed in a recipe: {MOUNT_REFUSED[name]}"
    if name not in MOUNT_NAMES:
        return None, f"unknown option '{name}'{did_you_mean(name, MOUNT_NAMES)}"
    if name in MOUNT_FLAGS:
        return None, None if value is True else f"'{name}' is a flag: write {name} = true"
    if name in MOUNT_NUMBERS:
        low, high = MOUNT_NUMBERS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return None, f"'{name}' must be an integer from {low} to {high}, not {describe(value)}"
        if name in ("rsize", "wsize") and value % 1024:
            return None, f"'{name}' = {value} is not a multiple of 1024 (the client would use {value // 1024 * 1024})"
        return str(value), None
    text = version_text(value) if name in ("vers", "nfsvers") else value
    if not isinstance(text, str):
        return None, f"'{name}' needs a value, not {describe(value)}"
    if name in MOUNT_CHOICES and text not in MOUNT_CHOICES[name]:
        return None, f"'{name}' must be one of {', '.join(MOUNT_CHOICES[name])}, not {describe(value)}"
    if name == "sec" and not all(flavour in SECURITY_FLAVOURS for flavour in text.split(":")):
        return None, f"'sec' takes flavours from {', '.join(SECURITY_FLAVOURS)} joined by ':', not {describe(value)}"
    if name in MOUNT_TEXTS and not HOST_TEXT.fullmatch(text):
        # mount(8) hands the options to libmount as one C string: a NUL ends it there, a double quote starts a
        # quoted value, and the recipe's later options would be lost or misread without a word
        return None, f"'{name}' must be a host name or an IP address, not {describe(value)}"
    if not text or re.search(r"[\s,]", text):
        return None, f"'{name}' must be one word without commas, not {describe(value)}"
    return text, None


def check_export_option(item: str) -> str | None:
    """An error message for one exports(5) option ("async", "anonuid=1000"), or None."""
    name, equals, value = item.partition("=")
    if re.search(r"[\s,()]", item):  # "anonuid=0,async" would smuggle in a second option
        return f"one option per string, without blanks, commas or parentheses: {describe(item)}"
    if name in EXPORT_REFUSED:
        return f"'{name}' is not allowed in a recipe: {EXPORT_REFUSED[name]}"
    if name not in EXPORT_NAMES:
        return f"unknown option '{name}'{did_you_mean(name, EXPORT_NAMES)}"
    if name in FLAG_OPTIONS and equals:
        return f"'{name}' takes no value"
    if name in EXPORT_VALUED and not equals:
        return f"'{name}' needs a value: {name}=..."
    if name in ("anonuid", "anongid") and len(value.lstrip("-")) > ID_DIGITS:
        # exportfs would take it (strtol saturates), but as an id nobody has: a typing slip
        return f"'{name}' takes a {name[4:]} of at most {ID_DIGITS} digits, not one of {len(value.lstrip('-'))}"
    try:
        parse_options(item)
    except OptionError as error:
        return f"exportfs would refuse '{item}': {error}"
    if name not in EXPORT_TUNABLE:
        return f"'{name}' is not allowed in a recipe: {NOT_TUNABLE}"
    return None
