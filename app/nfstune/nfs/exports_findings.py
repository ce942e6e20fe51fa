"""No-ops and risks in an exports file, client by client, where exportfs reads them: what the admin should know
before nfstune changes a line (a client that matches everyone, options that cancel each other, entries exportfs
skips)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from nfstune.nfs.export_options import (
    Finding,
    option_findings,
    split_options,
)
from nfstune.nfs.exportfs_view import exported, subnet_error
from nfstune.nfs.exports import Client, ExportsFile


@dataclass(frozen=True)
class LocatedFinding:
    line: int
    path: str | None
    client: str | None
    finding: Finding


NO_CLIENT = "No client is given, so exportfs exports {path} to everyone (*), with the default options."
NO_HOST = (
    "'{word}' has no host before '(', so these options apply to everyone (*). exports(5): no whitespace is "
    "permitted between a client and its option list."
)
BRACKETS = "'{spec}' is a wildcard pattern (brackets match one character), not an IPv6 address; drop the brackets."
RELATIVE = "The path does not start with '/'; exportfs exports it anyway and then cannot find it."


def findings(doc: ExportsFile) -> list[LocatedFinding]:
    """No-ops and risks, client by client, for the entries exportfs reads."""
    text = doc.render()
    newlines = [i for i, char in enumerate(text) if char == "\n"]
    skipped = {id(s.client): s.reason for s in exported(doc)[1]}
    out: list[LocatedFinding] = []
    for entry in doc.entries:
        if entry.path is not None and not entry.path.startswith("/"):
            out.append(LocatedFinding(entry.line, entry.path, None, Finding("risk", "", RELATIVE)))
        for client in entry.clients:
            found = []
            if client.start == client.end:
                found.append(Finding("risk", "", NO_CLIENT.format(path=entry.path)))
            elif text[client.start] == "(":
                found.append(
                    Finding("risk", client.explicit or "", NO_HOST.format(word=text[client.start : client.end]))
                )
            if client.kind == "wildcard" and "[" in client.spec and ":" in client.spec:
                found.append(Finding("risk", "", BRACKETS.format(spec=client.spec)))
            reason = skipped.get(id(client))
            if reason:
                found.append(Finding("noop" if reason.startswith("duplicated") else "risk", "", "exportfs: " + reason))
            written = [*(split_options(d) for d in client.defaults), split_options(client.explicit or "")]
            found += option_findings(written, client.options, client.name, matches_everyone(client))
            line = bisect.bisect_left(newlines, client.start) + 1
            out += [LocatedFinding(line, entry.path, client.name, finding) for finding in found]
        if entry.error:
            break
    return out


def matches_everyone(client: Client) -> bool:
    """Whether a client spec lets any host in: the world, a wildcard pattern, or a /0 subnet."""
    if client.kind in ("world", "wildcard"):
        return True
    mask = client.spec.partition("/")[2]
    return client.kind == "subnet" and not subnet_error(client.spec) and mask in ("", "0", "0.0.0.0", "::")
