"""Shell text built from values nobody checked: a host name, a share path, a file name, a recipe's option. The one
place that quotes them, so that no value is ever read by a remote shell as a command (issue 37).

A line is a template of our own with `{name}` fields; `sh_line` puts each value in quoted for POSIX sh (one word,
whatever it holds: blanks, quotes, `$( )`, newlines). The template's own text is ours and is not touched, and
literal braces in it are doubled as in str.format (`{{ ...; }}` for a shell group). A sequence of words goes in as
that many quoted words. Write no quotes around a field: the value brings its own.

    sh_line("mkdir -m 0700 {path} && echo made {path}", path=share)
"""

from __future__ import annotations

import shlex
import string
from collections.abc import Sequence

from nfstune.errors import NfstuneError

Value = str | int | Sequence[str]


class NulInValue(NfstuneError, ValueError):
    """A value holding a NUL byte: no command can be given one (the host's exec cuts the line there). An error the
    admin reads, wherever the value came from."""


def quote(value: str | int) -> str:
    """One word for sh, whatever `value` holds. A NUL cannot be passed in a word at all: refused."""
    text = str(value)
    if "\0" in text:
        raise NulInValue(f"{text!r} holds a NUL byte, which no command on a host can be given")
    return shlex.quote(text)


def join(argv: Sequence[str | int]) -> str:
    """An argv as one line for sh, each word quoted."""
    return " ".join(quote(a) for a in argv)


def sh_line(template: str, /, **values: Value) -> str:
    """`template` with each `{name}` replaced by its value quoted (a sequence of words: each word quoted). Every
    field must be given and every value used: a field left out or a value misspelt is a bug caught here."""
    fields = [(field, spec, conv) for _, field, spec, conv in string.Formatter().parse(template) if field is not None]
    for field, spec, conv in fields:
        if spec or conv:
            raise ValueError(f"a field of a shell line takes no format or conversion: {field!r}")
    if unused := set(values) - {field for field, _, _ in fields}:
        raise ValueError(f"values not used in the shell line: {sorted(unused)}")
    return template.format_map({name: _words(value) for name, value in values.items()})


def _words(value: Value) -> str:
    return quote(value) if isinstance(value, str | int) else join(value)
