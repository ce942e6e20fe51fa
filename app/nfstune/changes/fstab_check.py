"""The client's side of Apply's check: `findmnt --verify` reads the written /etc/fstab as mount will (no error
for the mount point, and no more errors in the whole file than before the Apply)."""

from __future__ import annotations

import re

from nfstune.changes.export import CheckFailed
from nfstune.nfs.fstab_rewrite import FSTAB
from nfstune.remote import Host

_FINDMNT_SUMMARY = re.compile(r"(\d+) parse errors?, (\d+) errors?, (\d+) warnings?")


def verify_fstab(client: Host, mount_point: str, baseline: tuple[int, int, str]) -> tuple[str, list[str]]:
    """Raises CheckFailed when findmnt finds the mount point's entry wrong or missing, or more errors than
    `baseline` (findmnt_verify() before the write); returns the report and findmnt's warnings for the entry."""
    parse_errors, errors, report = findmnt_verify(client)
    section = findmnt_section(report, mount_point)
    command = f"findmnt --verify --verbose --tab-file {FSTAB}"
    if section is None:
        raise CheckFailed(client.label, command, report, f"findmnt does not read an entry for {mount_point}")
    if any("[E]" in ln for ln in section):
        raise CheckFailed(client.label, command, report, f"findmnt reports an error for {mount_point}")
    if parse_errors > baseline[0] or errors > baseline[1]:
        problem = (
            f"the new {FSTAB} has {parse_errors} parse errors and {errors} errors for findmnt, the old one had "
            f"{baseline[0]} and {baseline[1]}"
        )
        raise CheckFailed(client.label, command, report, problem)
    checks: list[str] = []  # a check is "[X] text", continued on lines without a mark
    for line in section:
        text = line.strip()
        if text.startswith("[") or not checks:
            checks.append(text)
        else:
            checks[-1] += " " + text
    return report, [f"{client.label}: findmnt: {mount_point}: {check}" for check in checks if check.startswith("[W]")]


def findmnt_verify(client: Host) -> tuple[int, int, str]:
    """(parse errors, errors, the whole report) of `findmnt --verify` on the client's fstab as it is now."""
    result = client.run(["findmnt", "--verify", "--verbose", "--tab-file", FSTAB], sudo=True, check=False)
    report = result.stdout + result.stderr
    counts = _FINDMNT_SUMMARY.search(result.stderr)
    if counts:
        return int(counts[1]), int(counts[2]), report
    if result.exit_status == 0:
        return 0, 0, report
    raise CheckFailed(client.label, "findmnt --verify", report, f"findmnt --verify failed ({result.exit_status})")


def findmnt_section(report: str, mount_point: str) -> list[str] | None:
    """The check lines findmnt prints under one target (indented lines after the target's own line)."""
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if line == mount_point:
            section = []
            for check in lines[i + 1 :]:
                if not check.startswith(" "):
                    break
                section.append(check)
            return section
    return None
