"""What exportfs makes of an exports file (which clients it exports, with which options, and what it skips), and
the table `exportfs -s` prints, read back. Checked against exportfs itself on the lab's corpus
(tests/lab/test_exports_corpus.py)."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

from nfstune.nfs.export_options import (
    ExportOptions,
    c_strtol,
)
from nfstune.nfs.exports import SPACE, Client, ClientKind, ExportEntry, ExportsFile, parse, same_directory


@dataclass(frozen=True)
class Resolved:
    """A host name as the resolver answers it: getaddrinfo()'s canonical name and the addresses."""

    canonical: str
    addresses: frozenset[str]


Resolver = Callable[[str], "Resolved | None"]


def _resolve_as_is(name: str) -> Resolved:
    return Resolved(name, frozenset({name.lower()}))


@dataclass(frozen=True)
class Exported:
    """One (path, client) that exportfs exports, after its own checks."""

    path: str
    host: str  # the client record's name: the canonical name for a host name, else the word as first written
    spec: str  # the host as this entry wrote it
    kind: ClientKind
    options: ExportOptions
    entry: ExportEntry


@dataclass(frozen=True)
class Skipped:
    """A client that exportfs reads but does not export, and its message."""

    entry: ExportEntry
    client: Client
    reason: str


def exported(
    doc: ExportsFile, resolve: Resolver = _resolve_as_is, realpath: Callable[[str], str] = same_directory
) -> tuple[list[Exported], list[Skipped]]:
    """export_read(): the exports up to where exportfs stops reading, each (path, client) once (the first
    wins), without clients whose name does not resolve or whose address or prefix is invalid. `realpath`: the
    server's realpath(3); by default every path is taken for a directory that exists, without symbolic links."""
    records: list[tuple[ClientKind, str, frozenset[str]]] = []  # client_lookup()'s records: kind, name, addresses
    done: set[tuple[int, str]] = set()
    out: list[Exported] = []
    skipped: list[Skipped] = []
    for entry in doc.entries:
        for client in entry.clients:
            record = _client_record(records, client, resolve)
            path = realpath(entry.path or "")
            if isinstance(record, str):
                skipped.append(Skipped(entry, client, record))
            elif (record, path) in done:
                skipped.append(Skipped(entry, client, "duplicated export entries: the first one counts"))
            else:
                done.add((record, path))
                out.append(Exported(path, records[record][1], client.spec, client.kind, client.options, entry))
        if entry.error:
            break
    return out, skipped


def _client_record(
    records: list[tuple[ClientKind, str, frozenset[str]]], client: Client, resolve: Resolver
) -> int | str:
    """client_lookup(): the index of the client's record (added when new), or why exportfs has none. Host names
    are one client when their addresses meet, other kinds when their names match without case."""
    name, addresses = client.spec, frozenset[str]()
    if client.kind == "hostname":
        answer = resolve(client.spec)
        if answer is None:
            return f"Failed to resolve {client.spec}"
        name, addresses = answer.canonical, answer.addresses
    elif client.kind == "subnet" and (reason := subnet_error(client.spec)):
        return reason
    for index, (kind, known, known_addresses) in enumerate(records):
        if kind == client.kind and (known_addresses & addresses if addresses else known.lower() == name.lower()):
            return index
    records.append((client.kind, name, addresses))
    return len(records) - 1


def subnet_error(spec: str) -> str:
    """init_subnetwork(): why exportfs refuses an address/mask client, or "" when it takes it."""
    address, _, mask = spec.partition("/")
    try:
        network = ipaddress.ip_address(address)
    except ValueError:
        return f"Invalid IP address {spec}"
    full, separator = (32, ".") if network.version == 4 else (128, ":")
    if separator in mask:
        try:
            ipaddress.ip_address(mask) if network.version == 6 else ipaddress.IPv4Address(mask)
        except ValueError:
            return f"Invalid netmask `{mask}' for {spec}"
        return ""
    prefix, used = c_strtol(mask, 10, unsigned=True)
    return "" if used == len(mask) and prefix <= full else f"Invalid prefix `{mask}' for {spec}"


def etab_path(path: str) -> str:
    """A path as putexportent() writes it to etab: control characters, quotes, backslashes, "#" and whitespace
    as octal escapes."""
    special = set('"\\#') | SPACE
    return "".join(f"\\{ord(c):03o}" if c in special or ord(c) < 0x20 or c == "\x7f" else c for c in path)


def expected_exportfs_s(
    doc: ExportsFile, resolve: Resolver = _resolve_as_is, realpath: Callable[[str], str] = same_directory
) -> dict[str, dict[str, tuple[str, ...]]]:
    """What `exportfs -s` prints after `exportfs -ra` of this file, as path -> client -> options (the form
    parse_exportfs_s() returns). Like exportfs, this writes etab and reads it back: a host name with a space or
    an option list that overfills a word in etab changes the result there."""
    first, _ = exported(doc, resolve, realpath)
    etab = "".join(f"{etab_path(e.path)}\t{e.host}({','.join(e.options.etab_form())})\n" for e in first)
    second, _ = exported(parse(etab, doc.version), resolve, realpath)
    shown: dict[str, dict[str, tuple[str, ...]]] = {}
    for e in second:
        shown.setdefault(e.path, {})["*" if e.kind == "world" else e.spec] = e.options.exportfs_form()
    return shown


def parse_exportfs_s(text: str) -> dict[str, dict[str, tuple[str, ...]]]:
    """`exportfs -s` output: "path  client(options)" lines, the path with octal escapes (qword_add())."""
    shown: dict[str, dict[str, tuple[str, ...]]] = {}
    for line in text.split("\n"):
        if line.strip():
            word, _, rest = line.partition(" ")
            host, options = _client_and_options(rest[1:] if rest.startswith(" ") else rest, line)
            shown.setdefault(_unescape(word), {})[host] = options
    return shown


def _client_and_options(text: str, line: str) -> tuple[str, tuple[str, ...]]:
    host, paren, options = text.partition("(")
    if not paren or not options.endswith(")"):
        raise ValueError(f"not an exportfs line: {line!r}")
    return host, tuple(options[:-1].split(","))


def _unescape(word: str) -> str:
    out, i = [], 0
    while i < len(word):
        octal = word[i + 1 : i + 4]
        if word[i] == "\\" and len(octal) == 3 and all(c in "01234567" for c in octal):
            out.append(chr(int(octal, 8)))
            i += 4
        else:
            out.append(word[i])
            i += 1
    return "".join(out)
