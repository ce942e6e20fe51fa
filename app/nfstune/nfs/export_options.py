"""exports(5) options as nfs-utils reads them: defaults, the option parser, the forms exportfs prints, findings.

The parser follows parseopts() in nfs-utils support/nfs/exports.c (checked against exportfs 2.6.2 in the lab):
options are split on commas, blanks after a comma are skipped, the last of two conflicting options wins, and
one unknown or malformed option rejects the whole export. Options after "sec=" also set that flavour's own
ro/rw, secure, root_squash and all_squash, which is why exportfs prints those per "sec=" group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

# NFSEXP_* export flags (nfs-utils support/include/nfs/export.h, the kernel's include/uapi/linux/nfsd/export.h)
READONLY, INSECURE_PORT, ROOTSQUASH, ALLSQUASH = 0x1, 0x2, 0x4, 0x8
ASYNC, GATHERED_WRITES, NOREADDIRPLUS, SECURITY_LABEL = 0x10, 0x20, 0x40, 0x80
NOHIDE, NOSUBTREECHECK, NOAUTHNLM, FSID, CROSSMOUNT, NOACL, PNFS = 0x200, 0x400, 0x800, 0x2000, 0x4000, 0x8000, 0x20000
SECINFO_FLAGS = READONLY | INSECURE_PORT | ROOTSQUASH | ALLSQUASH  # the ones each sec= flavour keeps for itself
DEFAULT_FLAGS = READONLY | ROOTSQUASH | GATHERED_WRITES | NOSUBTREECHECK  # ro,root_squash,wdelay,no_subtree_check
ANON_ID = 65534

NfsUtilsVersion = tuple[int, int, int]
LATEST: NfsUtilsVersion = (2, 8, 0)  # any version at or after the ones below: every option we know
# exportfs 2.6.2 (Debian 12) rejects both as "unknown keyword" (lab); current releases accept them. We take the next
# release, 2.6.3, as the first; the knowledge base has that for xprtsec=, reexport= is not checked.
XPRTSEC_SINCE: NfsUtilsVersion = (2, 6, 3)
REEXPORT_SINCE: NfsUtilsVersion = (2, 6, 3)

# option -> (flag, whether the option sets it); options that share a flag override each other
FLAG_OPTIONS: dict[str, tuple[int, bool]] = {
    "ro": (READONLY, True),
    "rw": (READONLY, False),
    "secure": (INSECURE_PORT, False),
    "insecure": (INSECURE_PORT, True),
    "sync": (ASYNC, False),
    "async": (ASYNC, True),
    "nordirplus": (NOREADDIRPLUS, True),
    "security_label": (SECURITY_LABEL, True),
    "nohide": (NOHIDE, True),
    "hide": (NOHIDE, False),
    "crossmnt": (CROSSMOUNT, True),
    "nocrossmnt": (CROSSMOUNT, False),
    "wdelay": (GATHERED_WRITES, True),
    "no_wdelay": (GATHERED_WRITES, False),
    "root_squash": (ROOTSQUASH, True),
    "no_root_squash": (ROOTSQUASH, False),
    "all_squash": (ALLSQUASH, True),
    "no_all_squash": (ALLSQUASH, False),
    "subtree_check": (NOSUBTREECHECK, False),
    "no_subtree_check": (NOSUBTREECHECK, True),
    "auth_nlm": (NOAUTHNLM, False),
    "no_auth_nlm": (NOAUTHNLM, True),
    "secure_locks": (NOAUTHNLM, False),
    "insecure_locks": (NOAUTHNLM, True),
    "acl": (NOACL, False),
    "no_acl": (NOACL, True),
    "pnfs": (PNFS, True),
    "no_pnfs": (PNFS, False),
}
# flavour name -> RPC auth number; two names for one number are one flavour ("sys" after "unix" is a repeat)
FLAVOURS = {"krb5": 390003, "krb5i": 390004, "krb5p": 390005, "unix": 1, "sys": 1, "null": 0, "none": 0}
XPRTSEC_MODES = {"none": 1, "tls": 2, "mtls": 3}
REEXPORT_MODES = ("auto-fsidnum", "predefined-fsidnum", "none")
_C_SPACE = " \t\n\v\f\r"
# exportfs -s/-v print these only when set, in this order
_SHOWN_WHEN_SET = (
    (CROSSMOUNT, "crossmnt"),
    (NOSUBTREECHECK, "no_subtree_check"),
    (NOAUTHNLM, "insecure_locks"),
    (NOREADDIRPLUS, "nordirplus"),
    (SECURITY_LABEL, "security_label"),
    (NOACL, "no_acl"),
    (PNFS, "pnfs"),
)


class OptionError(ValueError):
    """An option nfs-utils refuses; exportfs then drops the export and stops reading the file."""


@dataclass(frozen=True)
class Flavour:
    """One sec= (or xprtsec=) entry with the flags it carries."""

    name: str
    flags: int


@dataclass(frozen=True)
class ExportOptions:
    """The effective options of one client of one export: nfs-utils' struct exportent, minus the names."""

    flags: int = DEFAULT_FLAGS
    anonuid: int = ANON_ID  # stored as the unsigned 32-bit value nfs-utils keeps
    anongid: int = ANON_ID
    fsid: int = 0  # meaningful when FSID is set
    uuid: str | None = None  # fsid=<32 hex digits>
    mountpoint: str | None = None  # "" for a bare mountpoint / mp
    fsloc: tuple[str, str] | None = None  # ("refer" | "replicas", locations)
    sec: tuple[Flavour, ...] = ()
    xprtsec: tuple[Flavour, ...] = ()
    reexport: str | None = None

    def flag(self, bit: int) -> bool:
        return bool(self.flags & bit)

    def flavours(self) -> tuple[Flavour, ...]:
        """The sec= flavours in force; without sec=, exportfs shows "sys" with the export's own flags."""
        return self.sec or (Flavour("sys", self.flags),)

    @property
    def read_only(self) -> bool:
        return all(f.flags & READONLY for f in self.flavours())

    @property
    def root_squash(self) -> bool:
        return all(f.flags & ROOTSQUASH for f in self.flavours())

    @property
    def insecure(self) -> bool:
        return any(f.flags & INSECURE_PORT for f in self.flavours())

    @property
    def fsid_root(self) -> bool:
        return self.flag(FSID) and self.fsid == 0

    def exportfs_form(self) -> tuple[str, ...]:
        """The options as `exportfs -s` and `exportfs -v` print them (dump() in utils/exportfs/exportfs.c)."""
        f = self.flag
        out = ["async" if f(ASYNC) else "sync", "wdelay" if f(GATHERED_WRITES) else "no_wdelay"]
        out.append("nohide" if f(NOHIDE) else "hide")
        out += [name for bit, name in _SHOWN_WHEN_SET if f(bit)]
        out += self._identity_options(show_defaults=False)
        return (*out, *self._sec_form())

    def etab_form(self) -> tuple[str, ...]:
        """The options as exportfs writes them to /var/lib/nfs/etab (putexportent() in support/nfs/exports.c)."""
        f = self.flag
        out = ["ro" if f(READONLY) else "rw", "async" if f(ASYNC) else "sync"]
        out += ["wdelay" if f(GATHERED_WRITES) else "no_wdelay", "nohide" if f(NOHIDE) else "hide"]
        out += ["crossmnt" if f(CROSSMOUNT) else "nocrossmnt", "insecure" if f(INSECURE_PORT) else "secure"]
        out += ["root_squash" if f(ROOTSQUASH) else "no_root_squash", "all_squash" if f(ALLSQUASH) else "no_all_squash"]
        out += ["no_subtree_check" if f(NOSUBTREECHECK) else "subtree_check"]
        out += ["insecure_locks" if f(NOAUTHNLM) else "secure_locks", "no_acl" if f(NOACL) else "acl"]
        out += [name for bit, name in ((NOREADDIRPLUS, "nordirplus"), (SECURITY_LABEL, "security_label")) if f(bit)]
        out.append("pnfs" if f(PNFS) else "no_pnfs")
        return (*out, *self._identity_options(show_defaults=True), *self._sec_form())

    def _identity_options(self, show_defaults: bool) -> list[str]:
        out = [f"fsid={_int32(self.fsid)}"] if self.flag(FSID) else []
        out += [f"fsid={self.uuid}"] if self.uuid is not None else []
        out += [f"reexport={self.reexport}"] if self.reexport not in (None, "none") else []
        if self.mountpoint is not None:
            out.append(f"mountpoint={self.mountpoint}" if self.mountpoint else "mountpoint")
        ids = [f"anonuid={_int32(self.anonuid)}", f"anongid={_int32(self.anongid)}"]
        fsloc = [f"{self.fsloc[0]}={self.fsloc[1]}"] if self.fsloc else []
        if show_defaults:  # etab: fsloc first, then both ids always
            return out + fsloc + ids
        ids = [text for text, value in zip(ids, (self.anonuid, self.anongid), strict=True) if value != ANON_ID]
        return out + ids + fsloc

    def _sec_form(self) -> list[str]:
        out: list[str] = []
        for group in _groups(self.flavours()):
            flags = group[0].flags
            out.append("sec=" + ":".join(f.name for f in group))
            out += ["ro" if flags & READONLY else "rw", "insecure" if flags & INSECURE_PORT else "secure"]
            out += ["root_squash" if flags & ROOTSQUASH else "no_root_squash"]
            out += ["all_squash" if flags & ALLSQUASH else "no_all_squash"]
        out += ["xprtsec=" + ":".join(f.name for f in group) for group in _groups(self.xprtsec)]
        return out


def _groups(flavours: Sequence[Flavour]) -> list[list[Flavour]]:
    """Consecutive flavours with equal flags print as one "sec=a:b" group."""
    groups: list[list[Flavour]] = []
    for flavour in flavours:
        if groups and groups[-1][0].flags == flavour.flags:
            groups[-1].append(flavour)
        else:
            groups.append([flavour])
    return groups


def _int32(value: int) -> int:
    return (value + 2**31) % 2**32 - 2**31


def c_strtol(text: str, base: int, unsigned: bool = False) -> tuple[int, int]:
    """glibc strtol()/strtoul(): the value and how many characters were used (0 when there were no digits)."""
    i = 0
    while i < len(text) and text[i] in _C_SPACE:
        i += 1
    negative = i < len(text) and text[i] == "-"
    i += i < len(text) and text[i] in "+-"
    if base == 0:
        if text[i : i + 2] in ("0x", "0X") and text[i + 2 : i + 3] in tuple("0123456789abcdefABCDEF"):
            base, i = 16, i + 2
        else:
            base = 8 if text[i : i + 1] == "0" else 10
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:base]
    start = i
    while i < len(text) and text[i].isascii() and text[i].lower() in digits:
        i += 1
    if i == start:
        return 0, 0
    significant = text[start:i].lstrip("0") or "0"
    # 65 digits overflow 64 bits in any base; int() would refuse thousands of them (its digit limit)
    value = 2**64 if len(significant) > 64 else int(significant, base)
    if unsigned:
        return (2**64 - 1 if value >= 2**64 else (-value if negative else value) % 2**64), i
    value = -value if negative else value
    return max(-(2**63), min(2**63 - 1, value)), i


def split_options(text: str) -> list[str]:
    """Split an option list as parseopts() does: on commas, skipping blanks at the start and after each comma.
    A trailing comma ends the list; an empty item in the middle is an (unknown) option of its own."""
    items: list[str] = []
    i = 0
    while i < len(text) and text[i] in " \t":
        i += 1
    while i < len(text):
        comma = text.find(",", i)
        end = len(text) if comma < 0 else comma
        items.append(text[i:end])
        i = len(text) if comma < 0 else comma + 1
        while i < len(text) and text[i] in " \t":
            i += 1
    return items


def parse_options(
    text: str | None, base: ExportOptions | None = None, version: NfsUtilsVersion = LATEST
) -> ExportOptions:
    """Apply an option list (the text between the parentheses, or after "-") to `base`. Raises OptionError."""
    state = _Parser(base or ExportOptions(), version)
    for option in split_options(text or ""):
        state.apply(option)
    return state.finish()


class _Parser:
    """The running state of parseopts(): `active` holds the flavours named by the latest sec=."""

    def __init__(self, base: ExportOptions, version: NfsUtilsVersion) -> None:
        self.opts = base
        self.version = version
        self.sec_names = [f.name for f in base.sec]
        self.sec_flags = [f.flags for f in base.sec]  # setflags()/clearflags() change these for `active` ones
        self.xprtsec = list(base.xprtsec)
        self.active: set[int] = set()
        self.saw_reexport = False

    def set_flag(self, bit: int, on: bool) -> None:
        self.opts = replace(self.opts, flags=self.opts.flags | bit if on else self.opts.flags & ~bit)
        for index in self.active:
            self.sec_flags[index] = self.sec_flags[index] | bit if on else self.sec_flags[index] & ~bit

    def apply(self, option: str) -> None:
        name, equals, value = option.partition("=")
        if option in FLAG_OPTIONS:
            self.set_flag(*FLAG_OPTIONS[option])
        elif equals and name in ("anonuid", "anongid"):
            number, used = c_strtol(value, 10)
            if not value or used != len(value):
                raise OptionError(f'bad {name} "{option}"')
            uid_or_gid = number % 2**32  # uid_t: -1 is 4294967295, shown as -1 again
            if name == "anonuid":
                self.opts = replace(self.opts, anonuid=uid_or_gid)
            else:
                self.opts = replace(self.opts, anongid=uid_or_gid)
        elif equals and name in ("squash_uids", "squash_gids"):
            _check_squash_list(value)
        elif equals and name == "fsid":
            self._fsid(value, option)
        elif option in ("mountpoint", "mp") or (equals and name in ("mountpoint", "mp")):
            self.opts = replace(self.opts, mountpoint=value)
        elif equals and name in ("refer", "replicas"):
            self.opts = replace(self.opts, fsloc=(name, value))
        elif equals and name == "sec":
            self.active = {self._add_flavour(flavour) for flavour in value.split(":")}
        elif equals and name == "xprtsec" and self.version >= XPRTSEC_SINCE:
            for mode in value.split(":"):
                if mode not in XPRTSEC_MODES:
                    raise OptionError(f"unknown xprtsec mode {mode}")
                if all(XPRTSEC_MODES[f.name] != XPRTSEC_MODES[mode] for f in self.xprtsec):
                    self.xprtsec.append(Flavour(mode, self.opts.flags))
        elif equals and name == "reexport" and self.version >= REEXPORT_SINCE:
            if self.saw_reexport:
                raise OptionError("only one 'reexport=' is allowed")
            if value not in REEXPORT_MODES:
                raise OptionError(f"bad option {value}")
            self.saw_reexport = True
            self.opts = replace(self.opts, reexport=value)
        else:
            raise OptionError(f'unknown keyword "{option}"')

    def _fsid(self, value: str, option: str) -> None:
        if self.saw_reexport:
            raise OptionError("'fsid=' has to be before 'reexport='")
        number, used = (0, len(value)) if value == "root" else c_strtol(value, 0, unsigned=True)
        if value and used == len(value):
            self.opts = replace(self.opts, fsid=number % 2**32)
            self.set_flag(FSID, True)
        elif sum(ch in "0123456789abcdefABCDEF" for ch in value) == 32:  # valid_uuid(): other characters ignored
            self.opts = replace(self.opts, uuid=value)
        else:
            raise OptionError(f'bad fsid "{option}"')

    def _add_flavour(self, name: str) -> int:
        """secinfo_addflavor(): a flavour already listed (by number) keeps its place and its flags."""
        if name not in FLAVOURS:
            raise OptionError(f"unknown flavor {name}")
        for index, known in enumerate(self.sec_names):
            if FLAVOURS[known] == FLAVOURS[name]:
                return index
        self.sec_names.append(name)
        self.sec_flags.append(self.opts.flags)
        return len(self.sec_names) - 1

    def finish(self) -> ExportOptions:
        # fix_pseudoflavor_flags(): the flags a flavour cannot hold for itself follow the export
        shared = self.opts.flags & ~SECINFO_FLAGS
        sec = tuple(Flavour(name, flags | shared) for name, flags in zip(self.sec_names, self.sec_flags, strict=True))
        return replace(self.opts, sec=sec, xprtsec=tuple(self.xprtsec))


def _check_squash_list(value: str) -> None:
    """parsesquash(): "id" or "id-id", each id atoi() of an optional "-" and digits; -1 is refused."""
    position = 0

    def number() -> int:
        nonlocal position
        start = position
        position += value[position : position + 1] == "-"
        while position < len(value) and value[position] in "0123456789":
            position += 1
        digits = value[start:position]
        return _int32(c_strtol(digits, 10)[0]) if digits.strip("-") else 0

    ids = [number()]
    if value[position : position + 1] == "-":
        position += 1
        ids.append(number())
    if -1 in ids:
        raise OptionError("syntax error: uid/gid -1 not permitted")
    if position != len(value):
        raise OptionError("syntax error: bad uid/gid list")


# --- findings ---------------------------------------------------------------------------------------------------

FindingKind = Literal["noop", "risk"]


@dataclass(frozen=True)
class Finding:
    kind: FindingKind
    option: str
    message: str


ASYNC_RISK = (
    "async lets the server answer writes before they reach its disk. exports(5): an unclean server restart "
    "(a crash or power cut) can cause data to be lost or corrupted, and no application is told."
)
WDELAY_V2_ONLY = (
    "{option} changes nothing for NFSv3 and NFSv4: the kernel gathers writes only for NFSv2, which is "
    "deprecated and not served by default."
)
NO_WDELAY_WITH_ASYNC = "no_wdelay has no effect when async is also set (exports(5))."
ROOT_TO_WORLD = (
    "no_root_squash for {client}: root on any machine that matches gets root access to these files. "
    "exports(5) calls no_root_squash mainly useful for diskless clients."
)
INSECURE_RISK = (
    "insecure accepts requests from any source port; by default requests that do not use Kerberos must come "
    "from a port below 1024. Use it only for clients that need it (behind NAT, some macOS setups)."
)
FSID_ROOT_RISK = (
    "{option} makes this the NFSv4 pseudo-root the old way: NFSv4 clients then mount paths relative to it, "
    "so their paths differ from NFSv3 paths. Current kernels build the pseudo-root themselves."
)


def option_findings(
    written: Sequence[Sequence[str]], options: ExportOptions, client: str, world: bool
) -> list[Finding]:
    """No-ops and risks of one client's options. `written` holds the option lists as written (the "-" defaults,
    then the client's own), `options` the effective result, `world` whether the client matches any host."""
    found = [finding for options_list in written for finding in _overridden(options_list)]
    names = [name for options_list in written for name in options_list]
    for option in dict.fromkeys(n for n in names if n in ("wdelay", "no_wdelay")):
        if option == "no_wdelay" and options.flag(ASYNC):
            found.append(Finding("noop", option, NO_WDELAY_WITH_ASYNC))
        else:
            found.append(Finding("noop", option, WDELAY_V2_ONLY.format(option=option)))
    if options.flag(ASYNC):
        found.append(Finding("risk", "async", ASYNC_RISK))
    if world and not options.root_squash:
        found.append(Finding("risk", "no_root_squash", ROOT_TO_WORLD.format(client=client)))
    if options.insecure:
        found.append(Finding("risk", "insecure", INSECURE_RISK))
    if options.fsid_root:
        written_fsid = next((n for n in reversed(names) if n.startswith("fsid=")), "fsid=0")
        found.append(Finding("risk", written_fsid, FSID_ROOT_RISK.format(option=written_fsid)))
    return found


def _overridden(options: Sequence[str]) -> list[Finding]:
    """Earlier options that a later one of the same kind replaces (within one sec= scope)."""
    found: list[Finding] = []
    last: dict[int, str] = {}
    for option in options:
        if option.startswith("sec="):
            last.clear()
        elif option in FLAG_OPTIONS:
            bit = FLAG_OPTIONS[option][0]
            if bit in last:
                earlier = last[bit]
                message = (
                    f"'{earlier}' is given twice"
                    if earlier == option
                    else f"'{earlier}' has no effect: the later '{option}' replaces it"
                )
                found.append(Finding("noop", earlier, message))
            last[bit] = option
    return found
