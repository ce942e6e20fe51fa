"""The exports corpus against the real nfs-utils (exportfs 2.6.2 on the lab NAS), shared by the lab test, the
capture script and the unit test that replays the capture.

Every case is written as the whole /etc/exports, then `exportfs -ra` and `exportfs -s` run. A case agrees when
`exportfs -s` shows exactly the (path, client, options in order) that expected_exportfs_s() predicts from our
parse, when exportfs complains about a syntax or option error exactly where our parse has a loud error, and when
every client our model says exportfs skips (unresolvable name, invalid address or prefix) shows up in its
messages. Host names in the corpus get temporary /etc/hosts lines so that their options are checked too.

One SSH command runs the cases (the VM emulates its CPU); /etc/exports and /etc/hosts are restored, exportfs -ra
runs again and the directories made for it are removed, also when it fails.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import ipaddress
import json
import re
import shlex
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nfstune.lab import LabConfig, host
from nfstune.nfs.exportfs_view import Resolved, expected_exportfs_s, exported, parse_exportfs_s
from nfstune.nfs.exports import ExportsFile, parse
from tests.unit.test_exports import Case

NFS_UTILS = (2, 6, 2)  # nfs-kernel-server 1:2.6.2-4+deb12u1 in the lab image
CAPTURE = Path(__file__).parent / "captures" / "exportfs" / "corpus.json"
WORK = "/root/nfstune-exports-corpus"
# what the corpus exports; the ones missing on the NAS are made for the run and removed after it
EXPORT_DIRS = (
    "/export/a",
    "/export/b",
    "/export/c",
    "/export/data",
    "/export/data/sub",
    "/export/home",
    "/export/pub",
    "/export/media",
    "/export/backup",
    "/export/projects",
    "/export/scratch",
    "/export/srv",
    "/export/iso",
    "/export/vm",
    "/export/with space",
    "/export/x#y",
    "/export/back\\slash",
    "/export/ünïcødé",
)
FAKE_HOSTS = ipaddress.ip_network("10.99.100.0/22")  # addresses for the corpus's host names; the corpus uses none
LOUD_ERROR = re.compile(r"syntax error|unknown keyword|bad (anonuid|anongid|fsid|option)|unknown flavor|uid/gid")


def b64(data: str) -> str:
    return base64.b64encode(data.encode("utf-8", "surrogateescape")).decode()


def unb64(text: str) -> str:
    return "" if text == "=" else base64.b64decode(text).decode("utf-8", "surrogateescape")


def digest(case: Case) -> str:
    """What ties a captured result to the text it was made from: an edited case must be captured again."""
    return hashlib.sha256(case.text.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def realpath(path: str) -> str:
    """realpath(3) on the NAS while the cases run: no symlinks, and a missing component leaves the path as it is."""
    existing = {"/", "/export", "/export/lost+found", *EXPORT_DIRS}
    if not path.startswith("/"):
        return path  # relative to exportfs's working directory, which holds none of the corpus's names
    parts: list[str] = []
    for part in path.split("/"):
        if part == "..":
            parts = parts[:-1]
        elif part not in ("", "."):
            parts.append(part)
            if "/" + "/".join(parts) not in existing:
                return path
    return "/" + "/".join(parts)


def host_names(docs: list[ExportsFile]) -> list[str]:
    """Every name exportfs will look up: host-name clients in the file and in the etab it writes from it."""
    names: dict[str, None] = {}

    def record(name: str) -> Resolved:
        names[name] = None
        return Resolved(name, frozenset({name.lower()}))

    for doc in docs:
        expected_exportfs_s(doc, record, realpath)
    return list(names)


def hosts_lines(names: list[str]) -> str:
    """/etc/hosts lines for names a person would write (letters, digits, dots, dashes), one address each."""
    plain = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
    wanted = {n.lower(): n for n in reversed(names) if plain.fullmatch(n) and re.search("[A-Za-z]", n)}
    return "".join(f"{address} {name}\n" for address, name in zip(FAKE_HOSTS.hosts(), wanted.values(), strict=False))


SCRIPT = r"""
set -u
rm -rf {work}; mkdir -p {work} && cd {work} || exit 90
echo {payload} | base64 -d | gunzip > payload || exit 91
cp -p /etc/exports exports.orig && cp -p /etc/hosts hosts.orig || exit 92
: > created
d() {{ x=$(base64 -w0 < "$1"); echo "${{x:-=}}"; }}
while read -r kind a b; do
  case $kind in
  D) p=$(printf %s "$a" | base64 -d); [ -e "$p" ] || {{ mkdir "$p" && echo "$a" >> created; }} ;;
  H) printf %s "$a" | base64 -d | while read -r ip name; do
       getent hosts "$name" > /dev/null || echo "$ip $name" >> /etc/hosts; done ;;
  N) n=$(printf %s "$a" | base64 -d; printf x); getent ahosts "${{n%x}}" > out; echo "R $a $(d out)" ;;
  C) printf %s "$b" | base64 -d > /etc/exports; exportfs -ra > out 2> err; rc=$?
     exportfs -s > shown 2> shown_err; echo "X $a $rc $(d err) $(d shown) $(d shown_err)" ;;
  esac
done < payload
"""

RESTORE = r"""
cd {work} 2> /dev/null || exit 0
[ -f exports.orig ] && cp -p exports.orig /etc/exports
[ -f hosts.orig ] && cp -p hosts.orig /etc/hosts
exportfs -ra
tac created | while read -r a; do rmdir "$(printf %s "$a" | base64 -d)"; done
cd / && rm -rf {work}
"""

Result = tuple[int, str, str, str]  # exportfs -ra's exit status and stderr, exportfs -s's stdout and stderr


@dataclass
class Run:
    answers: dict[str, str] = field(default_factory=dict)  # name -> getent ahosts output
    results: dict[str, Result] = field(default_factory=dict)  # case id -> what exportfs said

    def resolve(self, name: str) -> Resolved | None:
        output = self.answers.get(name)
        if output is None:  # a canonical name from an earlier answer resolves to itself
            known = [r for r in map(self._parse, self.answers.values()) if r and r.canonical == name]
            return known[0] if known else None
        return self._parse(output)

    @staticmethod
    def _parse(output: str) -> Resolved | None:
        rows = [line.split() for line in output.splitlines() if line.strip()]
        if not rows:
            return None
        addresses = frozenset(str(ipaddress.ip_address(row[0])) for row in rows)
        return Resolved(rows[0][2] if len(rows[0]) > 2 else rows[0][0], addresses)


@contextmanager
def run_on_nas(lab: LabConfig, cases: Sequence[Case], names: list[str]) -> Iterator[Run]:
    """`names`: every name of the whole corpus, also when only some cases run, so that each gets the same
    /etc/hosts address as in the capture."""
    lines = [f"D {b64(d)}" for d in sorted(EXPORT_DIRS, key=lambda d: d.count("/"))]
    lines.append(f"H {b64(hosts_lines(names))}")
    lines += [f"N {b64(name)}" for name in names]
    lines += [f"C {b64(case.id)} {b64(case.text)}" for case in cases]
    payload = base64.b64encode(gzip.compress("\n".join(lines).encode() + b"\n")).decode()
    run = Run()
    with host(lab, "nas", timeout=30) as nas:
        try:
            out = nas.run(SCRIPT.format(work=WORK, payload=shlex.quote(payload)), timeout=1800, check=False)
            assert out.exit_status == 0, f"the corpus script failed ({out.exit_status}): {out.stderr}"
            for line in out.stdout.splitlines():
                kind, *fields = line.split(" ")
                if kind == "R":
                    run.answers[unb64(fields[0])] = unb64(fields[1])
                elif kind == "X":
                    rc, err, shown, shown_err = int(fields[1]), *map(unb64, fields[2:5])
                    run.results[unb64(fields[0])] = (rc, err, shown, shown_err)
            yield run
        finally:  # on a fresh connection, in case the long command lost its own
            with host(lab, "nas", timeout=30) as again:
                again.run(RESTORE.format(work=WORK), timeout=120, check=False)


def disagreement(case: Case, run: Run) -> str | None:
    rc, err, shown, shown_err = run.results[case.id]
    doc = parse(case.text, NFS_UTILS)
    mine = expected_exportfs_s(doc, run.resolve, realpath)
    theirs = parse_exportfs_s(shown)
    problems = []
    if mine != theirs:
        problems.append(f"  ours:     {mine}\n  exportfs: {theirs}")
    loud = doc.stop is not None and "without a message" not in (doc.stop.error or "")
    if loud != bool(LOUD_ERROR.search(err)):
        problems.append(f"  our error: {doc.stop.error if doc.stop else None}")
    for skipped in exported(doc, run.resolve, realpath)[1]:
        if not skipped.reason.startswith("duplicated") and skipped.reason not in err:
            problems.append(f"  we expect exportfs to say: {skipped.reason}")
    if not problems:
        return None
    return (
        f"{case.id} {case.text!r:.300}\n"
        + "\n".join(problems)
        + f"\n  exportfs -ra ({rc}): {err!r:.600}\n  -s: {shown_err!r:.300}"
    )


# --- the capture ------------------------------------------------------------------------------------------------


@dataclass
class Capture:
    """What exportfs said for every case when the capture was made, each tied to its case's text by digest."""

    answers: dict[str, str]
    results: dict[str, tuple[str, Result]]  # case id -> (digest, result)
    made: dict[str, Any]

    @classmethod
    def load(cls, path: Path = CAPTURE) -> Capture:
        data = json.loads(path.read_text(encoding="utf-8"))
        results = {
            cid: (r["digest"], (r["rc"], r["err"], r["shown"], r["shown_err"])) for cid, r in data["cases"].items()
        }
        return cls(answers=data["answers"], results=results, made=data["made"])

    def save(self, path: Path = CAPTURE) -> None:
        cases = {
            cid: {"digest": d, "rc": rc, "err": err, "shown": shown, "shown_err": shown_err}
            for cid, (d, (rc, err, shown, shown_err)) in self.results.items()
        }
        data = {"made": self.made, "answers": self.answers, "cases": cases}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")

    def stale(self, cases: Sequence[Case]) -> list[Case]:
        """The cases this capture has no result for, or one made from another text."""
        return [c for c in cases if self.results.get(c.id, ("", None))[0] != digest(c)]

    def as_run(self) -> Run:
        return Run(answers=dict(self.answers), results={cid: r for cid, (_d, r) in self.results.items()})
