"""nfs.conf(5) read as nfs-utils reads it, and the nfsd thread count set in it with no other byte changed. Pure.

The rules are those of nfs-utils' support/nfs/conffile.c (checked in linux-nfs/nfs-utils up to 2.9.2):
- a line whose first non-blank character is '#' or ';' is a comment; in an unquoted value, a '#' or ';' ends it;
- `[section]` and `[section "arg"]` open a section; section, arg and tag names are compared without case, and
  blanks around '=' are dropped; a value in double or single quotes loses them (and what follows them);
- a backslash just before the line end joins the next line (as a space);
- a last line with no line end is ignored (conffile.c: "last line non-terminated, ignored");
- `include = [-]path` reads another file in the current section (not followed here: the caller reads it);
- a tag given twice in a section: the last wins since nfs-utils 2.5.3, the first before.
Files read later override earlier ones: /usr/etc/nfs.conf, /usr/etc/nfs.conf.d/*.conf, /etc/nfs.conf, then
/etc/nfs.conf.d/*.conf (in version order); `effective` takes them in that order.

`nfsconf --set` rewrites the line it changes as `tag = value` and can turn a commented line into a live one; this
module changes the value's characters only, so that the admin's diff is one number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from nfstune.errors import ConfigError

_SECTION = re.compile(r"\[\s*([^\]\"\s]+)\s*(?:\"([^\"]*)\"\s*)?\]")
_ASSIGN = re.compile(r"([^=\s]+)\s*=\s*(.*)")


@dataclass(frozen=True)
class Setting:
    section: str  # lowercased, as nfs-utils stores it
    arg: str | None  # the subsection's argument (`[nfsd "x"]`), lowercased; None for a plain section
    tag: str  # lowercased
    value: str  # as nfs-utils reads it: unquoted, its comment cut off, trimmed
    line: int  # 0-based index of the line that holds the tag (the first of joined lines)
    value_span: tuple[int, int]  # where the value's characters are in that line's text, for an in-place edit


@dataclass(frozen=True)
class NfsConf:
    path: str
    lines: tuple[str, ...]  # the text split after every "\n"; the last may lack it
    settings: tuple[Setting, ...]
    includes: tuple[str, ...]  # the paths of `include` lines, as written

    def find(self, section: str, tag: str) -> list[Setting]:
        section, tag = section.lower(), tag.lower()
        return [s for s in self.settings if s.section == section and s.arg is None and s.tag == tag]


def _value(raw: str, offset: int) -> tuple[str, tuple[int, int]]:
    """What conffile.c makes of the text after '=' (starting at `offset` in the line): the value, and the span of
    its characters in the line."""
    if raw[:1] in ('"', "'"):
        end = raw.find(raw[0], 1)
        end = len(raw) if end < 0 else end
        return raw[1:end], (offset + 1, offset + end)
    cut = min((i for i in (raw.find("#"), raw.find(";")) if i >= 0), default=len(raw))
    value = raw[:cut].rstrip()
    return value, (offset, offset + len(value))


def parse(text: str, path: str = "/etc/nfs.conf") -> NfsConf:
    lines = tuple(text.splitlines(keepends=True))
    settings: list[Setting] = []
    includes: list[str] = []
    section: str | None = None
    arg: str | None = None
    index = 0
    while index < len(lines):
        first = index
        line = lines[index]
        index += 1
        if not line.endswith("\n"):
            break  # nfs-utils ignores a last line with no line end
        body = line.rstrip("\r\n")
        while body.endswith("\\") and index < len(lines) and lines[index].endswith("\n"):
            body = body[:-1] + " " + lines[index].rstrip("\r\n")  # joined: only the first line is edited in place
            index += 1
        stripped = body.lstrip(" \t")
        if not stripped or stripped[0] in "#;":
            continue
        if stripped.startswith("["):
            match = _SECTION.match(stripped)
            if match is not None:
                section = match.group(1).lower()
                arg = match.group(2).lower() if match.group(2) is not None else None
            continue
        match = _ASSIGN.match(stripped)
        if match is None or section is None:
            continue  # nfs-utils logs these and goes on
        tag = match.group(1).lower()
        start = len(body) - len(stripped) + match.start(2)
        value, span = _value(match.group(2), start)
        if tag == "include":
            includes.append(value.lstrip("-"))
            continue
        if value:  # an empty value sets nothing
            settings.append(Setting(section, arg, tag, value, first, span))
    return NfsConf(path, lines, tuple(settings), tuple(includes))


def winner(found: Sequence[Setting], *, last_wins: bool = True) -> Setting | None:
    if not found:
        return None
    return found[-1] if last_wins else found[0]


def effective(files: Sequence[NfsConf], section: str, tag: str) -> tuple[NfsConf, Setting] | None:
    """The file and line whose value nfs-utils uses, the files given in its reading order; None when none sets it.
    Where a file sets a tag twice and the two differ, nfs-utils before 2.5.3 read the first: `set_value`
    changes every one, so that the value is the same whichever version reads it."""
    for conf in reversed(files):
        setting = winner(conf.find(section, tag))
        if setting is not None:
            return conf, setting
    return None


def set_value(conf: NfsConf, section: str, tag: str, value: str) -> str:
    """The file's text with `tag` in `[section]` set to `value`: every line that sets it has its value's characters
    replaced (its spelling, blanks, quotes and comment kept); where none does, `tag=value` is added as the first
    line after the file's first `[section]` header, or a new `[section]` is added at the end."""
    if not re.fullmatch(r"[A-Za-z0-9._-]+", value):
        raise ConfigError(f"{conf.path}: refusing to write {tag}={value!r}: not a plain value")
    lines = list(conf.lines)
    found = conf.find(section, tag)
    for setting in found:
        start, end = setting.value_span
        text = lines[setting.line]
        if end > len(text.rstrip("\r\n")) or text.rstrip("\r\n").endswith("\\"):
            raise ConfigError(
                f"{conf.path} line {setting.line + 1}: {tag} is continued on the next line; set it by hand"
            )
        lines[setting.line] = text[:start] + value + text[end:]
    if found:
        return "".join(lines)
    ends = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    headers = [i for i, line in enumerate(lines) if _opens(line, section) and line.endswith("\n")]
    if headers:
        lines.insert(headers[0] + 1, f"{tag}={value}{ends}")
        return "".join(lines)
    block = [f"[{section}]{ends}", f"{tag}={value}{ends}"]
    if lines and not lines[-1].endswith("\n"):
        # the last line has no line end, so nfs-utils ignores it: it stays last, and stays ignored
        return "".join(lines[:-1] + ([ends] if lines[:-1] and lines[-2].strip() else []) + block + lines[-1:])
    separator = [ends] if lines and lines[-1].strip() else []
    return "".join(lines + separator + block)


def _opens(line: str, section: str) -> bool:
    stripped = line.lstrip(" \t")
    match = _SECTION.match(stripped)
    return match is not None and match.group(1).lower() == section.lower() and match.group(2) is None


NFS_CONF = "/etc/nfs.conf"


def threads_text(files: Mapping[str, str], threads: int) -> tuple[str, str | None, str]:
    """(the file to edit, its text now or None when it does not exist, its text with [nfsd] threads=`threads`):
    the file whose value nfs-utils reads (`files`: path -> text in its reading order), else /etc/nfs.conf. Raises
    ConfigError where the value cannot be edited in place."""
    if not 1 <= threads <= 1024:
        raise ConfigError(f"{threads} nfsd threads is out of range (1 to 1024)")
    confs = [parse(text, path) for path, text in files.items()]
    found = effective(confs, "nfsd", "threads")
    conf = found[0] if found is not None else next((c for c in confs if c.path == NFS_CONF), None)
    if conf is None:
        return NFS_CONF, None, f"[nfsd]\nthreads={threads}\n"
    return conf.path, files[conf.path], set_value(conf, "nfsd", "threads", str(threads))
