"""Host names, user names and share paths from outside nfstune (a command line, the desktop's fields, a NAS's
`showmount -e`), held to what OpenSSH and exportfs accept before they go anywhere (issue 37).

A host name and a user end up in a shell: ssh puts them into a ProxyCommand (%h, %r) that the user's shell runs,
and so does nfstune. OpenSSH refuses the characters that mean something to a shell in both (ssh_valid_hostname
and ssh_valid_ruser, readconf.c of OpenSSH 10): so do we, with the same lists. Beyond those, any character Python
cannot print is refused (a NUL, a line break, U+2028, a byte that was not UTF-8): ssh checks bytes in the C locale,
where such a character would be bytes it takes; no host or user meant by an admin holds one. A '%' stays: ssh
takes "fe80::1%eth0", and never expands a token in a name typed on its command line.

A share path is what exportfs and mount take: absolute, no control character (a newline or a \\r ends an export
line; a NUL ends the path) and under exportfs's limit of 1024 bytes."""

from __future__ import annotations

import unicodedata

from nfstune.errors import ConfigError

HOST_REFUSED = "'`\"$\\;&<>|(){},"  # ssh_valid_hostname
USER_REFUSED = "'`\";&<>|(){}"  # ssh_valid_ruser
SHARE_PATH_BYTES = 1024  # exportfs gives up on a path of 1025 bytes or more (nfs/exports.py PATH_LIMIT)


def _shown(ch: str) -> str:
    if not ch.isprintable():
        return f"an unprintable character (U+{ord(ch):04X})"
    if ch == " ":
        return "a blank"
    return f'"{ch}"' if ch == "'" else f"'{ch}'"


def host_problem(text: str) -> str | None:
    """Why `text` is no host name ssh would take, or None."""
    if not text:
        return "a host name cannot be empty"
    if text.startswith("-"):
        return "a host name cannot begin with '-'"
    for ch in text:
        if ch in HOST_REFUSED or ch.isspace() or not ch.isprintable():
            return f"a host name cannot contain {_shown(ch)}"
    return None


def user_problem(text: str) -> str | None:
    """Why `text` is no user name ssh would take, or None. ssh takes blanks in one, but not "-" after a blank (it
    would be read as an option) nor a '\\' at the end."""
    if not text:
        return "a user name cannot be empty"
    if text.startswith("-"):
        return "a user name cannot begin with '-'"
    for i, ch in enumerate(text):
        if ch in USER_REFUSED or not ch.isprintable():
            return f"a user name cannot contain {_shown(ch)}"
        if ch.isspace() and text[i + 1 : i + 2] == "-":
            return "a user name cannot have '-' after a blank"
    if text.endswith("\\"):
        return "a user name cannot end with '\\'"
    return None


def share_problem(text: str) -> str | None:
    """Why `text` is no path exportfs would export, or None."""
    if not text.startswith("/"):
        return "a share path must be absolute (begin with '/')"
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cs"):  # controls, and bytes that were not UTF-8
            return f"a share path cannot contain {_shown(ch)}"
    if len(text.encode()) > SHARE_PATH_BYTES:
        return f"a share path cannot be longer than {SHARE_PATH_BYTES} bytes (exportfs takes no more)"
    return None


def _checked(problem: str | None, text: str, where: str) -> str:
    if problem is not None:
        raise ConfigError(f"{where}: {problem}")
    return text


def check_host(text: str, where: str) -> str:
    """`text` when it is a host name ssh would take; else ConfigError "<where>: <why>"."""
    return _checked(host_problem(text), text, where)


def check_user(text: str, where: str) -> str:
    return _checked(user_problem(text), text, where)


def check_share(text: str, where: str) -> str:
    return _checked(share_problem(text), text, where)


def usable_shares(paths: list[str]) -> tuple[list[str], list[str]]:
    """(the paths a session may offer, those it may not), each in its order: a NAS lists what it likes."""
    usable = [p for p in paths if share_problem(p) is None]
    return usable, [p for p in paths if share_problem(p) is not None]
