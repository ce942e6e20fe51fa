"""/etc/fstab (fstab(5)) read and written back byte for byte.

Every line keeps its exact text, so render(parse(text)) == text for any text: comments, blank lines, tabs or
spaces, missing 5th/6th fields, trailing blanks, a missing final newline, and lines we cannot read (kept as
they are, with no entry). Adding, replacing or removing an entry touches that one line only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from nfstune.nfs.counters import is_number
from nfstune.nfs.mount_options import MountOptions
from nfstune.nfs.mounts import escape_field, unescape_field

# libmount splits fields on blanks (space, tab); a CR before the newline is kept with the trailing blanks so a
# file with CRLF line ends still reads.
_LINE = re.compile(r"([ \t]*)(.*?)([ \t\r]*)", re.DOTALL)
_BLANKS = re.compile(r"([ \t]+)")


def _escape(field: str) -> str:
    # a CR at the end of a line is read as part of a CRLF line end, so a field keeps its CRs escaped
    return escape_field(field).replace("\r", "\\015")


@dataclass(frozen=True)
class FstabEntry:
    device: str  # decoded: "UUID=...", "LABEL=...", "nas:/export", "/dev/vda1"
    mount_point: str  # decoded: "/mnt/My Disk", not "/mnt/My\040Disk"
    fstype: str
    options: MountOptions | None = None  # None: the 4th field is not written (mount reads "defaults")
    dump: int | None = None  # None: the 5th field is not written (means 0)
    pass_number: int | None = None  # None: the 6th field is not written (means 0: fsck skips it)

    def __post_init__(self) -> None:
        if not (self.device and self.mount_point and self.fstype):
            raise ValueError("an fstab entry needs a device, a mount point and a type")
        if self.options is not None and self.options.render() == "":
            raise ValueError("empty mount options cannot be written: use options=None")
        if any(number is not None and number < 0 for number in (self.dump, self.pass_number)):
            raise ValueError("dump and pass must not be negative")

    @property
    def is_nfs(self) -> bool:
        return self.fstype in ("nfs", "nfs4")

    def fields(self) -> list[str]:
        """The fields as written, escaped; trailing fields that are None are left out."""
        written: list[str | None] = [
            _escape(self.device),
            _escape(self.mount_point),
            _escape(self.fstype),
            None if self.options is None else _escape(self.options.render()),
            None if self.dump is None else str(self.dump),
            None if self.pass_number is None else str(self.pass_number),
        ]
        while written[-1] is None:
            written.pop()
        defaults = ["", "", "", "defaults", "0", "0"]  # a None before a written field: what mount reads anyway
        fields = [defaults[i] if field is None else field for i, field in enumerate(written)]
        if fields[0].startswith("#"):  # would make the line a comment; libmount decodes \043 back to "#"
            fields[0] = "\\043" + fields[0][1:]
        return fields

    def render(self, separators: tuple[str, ...] = ("\t",), leading: str = "", trailing: str = "") -> str:
        """One line without its newline; separator i goes after field i (the last one repeats)."""
        fields = self.fields()
        parts = [leading, fields[0]]
        for i, field in enumerate(fields[1:]):
            parts += [separators[min(i, len(separators) - 1)], field]
        return "".join([*parts, trailing])


@dataclass(frozen=True)
class FstabLine:
    text: str  # exactly as in the file, without its newline
    entry: FstabEntry | None  # None: a comment, a blank line, or a line that is not an entry we can read

    @classmethod
    def parse(cls, text: str) -> FstabLine:
        return cls(text, _parse_entry(text))

    @property
    def is_comment(self) -> bool:
        return self.text.lstrip(" \t").startswith("#")

    @property
    def is_blank(self) -> bool:
        return self.text.strip(" \t\r") == ""

    @property
    def rest(self) -> str:
        """What follows an entry's pass number, with the blanks before it ("  # the NAS"); "" when nothing."""
        if self.entry is None:
            return ""
        match = _LINE.fullmatch(self.text)
        assert match is not None  # the pattern matches any string
        parts = _BLANKS.split(match.group(2))
        return "".join(parts[11:])

    def layout(self) -> tuple[str, tuple[str, ...], str]:
        """Leading blanks, the blanks between fields, trailing blanks: reused when this line is replaced."""
        match = _LINE.fullmatch(self.text)
        assert match is not None  # the pattern matches any string
        leading, body, trailing = match.groups()
        separators = tuple(_BLANKS.split(body)[1::2])
        return leading, separators or ("\t",), trailing

    def with_options(self, options: MountOptions) -> FstabLine:
        """This entry with only its options field rewritten: every other byte of the line (the other fields as
        written, escapes included, and the blanks) stays. A line without an options field gets one."""
        if self.entry is None:
            raise ValueError(f"not an fstab entry: {self.text!r}")
        match = _LINE.fullmatch(self.text)
        assert match is not None  # the pattern matches any string
        leading, body, trailing = match.groups()
        parts = _BLANKS.split(body)
        written = _escape(options.render())
        if len(parts) >= 7:
            parts[6] = written
        else:
            parts += [parts[-2] if len(parts) > 1 else "\t", written]
        return FstabLine.parse(leading + "".join(parts) + trailing)


def fields_of(text: str) -> list[str]:
    """The fields of a line that is neither blank nor a comment, as written (escaped); [] for the others."""
    match = _LINE.fullmatch(text)
    assert match is not None  # the pattern matches any string
    body = match.group(2)
    return [] if body == "" or body.startswith("#") else _BLANKS.split(body)[::2]


def skipped_because(text: str) -> str:
    """Why libmount skips this line ("parse error at line N -- ignored"), as the end of "mount skips the line:
    it ..."; "" for an entry, a comment or a blank line."""
    fields = fields_of(text)
    if 0 < len(fields) < 3:
        plural = "s" if len(fields) > 1 else ""
        return f"has {len(fields)} field{plural}, and an entry needs at least 3 (source, mount point, type)"
    for name, field in zip(("dump", "pass"), fields[4:6], strict=False):
        if not is_number(field):
            hint = ": a comment can only follow the pass number, after a blank" if "#" in field else ""
            return f"has {field!r} where the {name} number goes{hint}"
    return ""


def _parse_entry(text: str) -> FstabEntry | None:
    fields = fields_of(text)
    if not fields:
        return None
    # as libmount reads a line (tab_parse.c, mnt_parse_table_line): dump and pass must be numbers, and whatever
    # follows the pass number (a comment, say) is not read at all
    if skipped_because(text):
        return None
    fields = fields[:6]
    device, mount_point, fstype = (unescape_field(field) for field in fields[:3])
    options = MountOptions.parse(unescape_field(fields[3])) if len(fields) > 3 else None
    numbers: list[int | None] = [int(field) for field in fields[4:]]
    numbers += [None, None]
    try:
        return FstabEntry(device, mount_point, fstype, options, numbers[0], numbers[1])
    except ValueError:  # e.g. an options field that decodes to nothing we can write back
        return None


@dataclass(frozen=True)
class Fstab:
    lines: tuple[FstabLine, ...] = ()
    final_newline: bool = True  # whether the text ends with a newline

    @classmethod
    def parse(cls, text: str) -> Fstab:
        """Never raises: a line that is not an entry is kept with entry=None."""
        if text == "":
            return cls((), final_newline=False)
        final_newline = text.endswith("\n")
        body = text[:-1] if final_newline else text
        return cls(tuple(FstabLine.parse(line) for line in body.split("\n")), final_newline)

    def render(self) -> str:
        if not self.lines:
            return ""
        return "\n".join(line.text for line in self.lines) + ("\n" if self.final_newline else "")

    def entries(self) -> list[FstabEntry]:
        return [line.entry for line in self.lines if line.entry is not None]

    def index_of(self, mount_point: str) -> int | None:
        """The line number (from 0) of the first entry for this mount point."""
        for index, line in enumerate(self.lines):
            if line.entry is not None and line.entry.mount_point == mount_point:
                return index
        return None

    def find(self, mount_point: str) -> FstabEntry | None:
        index = self.index_of(mount_point)
        return None if index is None else self.lines[index].entry

    def add(self, entry: FstabEntry, separators: tuple[str, ...] = ("\t",)) -> Fstab:
        """Append the entry as a new last line (the file then ends with a newline)."""
        line = FstabLine(entry.render(separators), entry)
        return Fstab((*self.lines, line), final_newline=True)

    def replace_line(self, index: int, entry: FstabEntry) -> Fstab:
        """Write `entry` on line `index`, keeping that line's leading, separating and trailing blanks, and what
        follows its pass number (a comment): then with all six fields, so that it still follows the pass."""
        old = self.lines[index]
        leading, separators, trailing = old.layout()
        rest = old.rest
        if rest:
            entry = replace(entry, dump=entry.dump or 0, pass_number=entry.pass_number or 0)
            if entry.options is None:
                entry = replace(entry, options=MountOptions.parse("defaults"))
        line = FstabLine(entry.render(separators, leading, rest + trailing), entry)
        return replace(self, lines=(*self.lines[:index], line, *self.lines[index + 1 :]))

    def replace(self, mount_point: str, entry: FstabEntry) -> Fstab:
        """Replace the first entry for `mount_point`; KeyError if there is none."""
        return self.replace_line(self._require(mount_point), entry)

    def remove_line(self, index: int) -> Fstab:
        """Drop one line. The line before a removed last line had a newline after it, and keeps it."""
        index = range(len(self.lines))[index]  # IndexError when out of range; -1 means the last line
        lines = (*self.lines[:index], *self.lines[index + 1 :])
        removed_last = index == len(self.lines) - 1
        return replace(self, lines=lines, final_newline=bool(lines) and (removed_last or self.final_newline))

    def remove(self, mount_point: str) -> Fstab:
        """Remove the first entry for `mount_point`; KeyError if there is none."""
        return self.remove_line(self._require(mount_point))

    def _require(self, mount_point: str) -> int:
        index = self.index_of(mount_point)
        if index is None:
            raise KeyError(mount_point)
        return index
