"""The words of a recommendation for its page and the files it saves: what each line is (the admin's own entry, a
new line), every reason as a list, both lines to copy or save with their reasons as comments, and the mount point of
a new fstab line. Pure."""

from __future__ import annotations

import html
from collections.abc import Sequence

from nfstune.advice.recommend import Reason, Recommendation
from nfstune.nfs.fstab_rewrite import parse_fstab_line


def exports_state(rec: Recommendation) -> str:
    """What the exports text is: the admin's own entry (with only sync changed) or a new line."""
    if not rec.exports_line:
        return "nfstune could not log in to the server: its exports were not read, and nothing is recommended there."
    if rec.exports_before is None:
        return f"The share is not exported yet: this line would be added to {rec.exports_file}."
    if rec.exports_before == rec.exports_line:
        return f"Your entry in {rec.exports_file} already reads as recommended: nothing to change."
    kept = "with only sync changed; every other client and option is kept"
    return f"Your entry in {rec.exports_file} {kept}. Now:\n{rec.exports_before}"


def fstab_state(rec: Recommendation) -> str:
    if rec.fstab_before is None:
        return "The client has no entry for this share: a new line (choose your own mount point)."
    if rec.fstab_before == rec.fstab_line:
        return "Your entry already reads as recommended: its mount point and options are kept."
    kept = "with only the NFS version changed; its mount point and other options are kept"
    return f"Your entry {kept}. Now:\n{rec.fstab_before}"


def reasons_html(reasons: Sequence[Reason]) -> str:
    e = html.escape
    return "<ul style='margin: 0'>" + "".join(f"<li><b>{e(r.option)}</b>: {e(r.why)}</li>" for r in reasons) + "</ul>"


def copy_text(rec: Recommendation, server_label: str, client_label: str) -> str:
    """Both lines, each under a comment naming the file and host it belongs in."""
    exports = f"# {rec.exports_file} on {server_label}\n{rec.exports_line}\n" if rec.exports_line else ""
    return f"{exports}# /etc/fstab on {client_label}\n{rec.fstab_line}\n"


def fstab_mount_point(line: str) -> str:
    """The mount point of an fstab line, its \\040 escapes decoded."""
    return parse_fstab_line(line).mount_point


def mount_point_problem(path: str) -> str:
    """Why `path` cannot be a mount point ("" when it can)."""
    if not path.startswith("/") or path == "/":
        return f"{path!r} is not an absolute path below /"
    if any(ch in path for ch in "\n\t\0"):
        return "a mount point is one line"
    return ""


def save_text(rec: Recommendation, server_label: str, client_label: str) -> str:
    """The lines with every option's reason and the notes, as comments, so the file explains itself later."""
    parts = ["# nfstune recommendation"]
    if rec.exports_line:  # "" without a login on the server
        parts.append(f"# {rec.exports_file} on {server_label}:")
        parts += [f"#   {r.option}: {r.why}" for r in rec.exports_reasons]
        parts += [rec.exports_line, ""]
    parts.append(f"# /etc/fstab on {client_label}:")
    parts += [f"#   {r.option}: {r.why}" for r in rec.fstab_reasons]
    parts.append(rec.fstab_line)
    threads = rec.threads
    if threads is not None and threads.line is not None:
        parts += ["", f"# {threads.file} on {server_label}, [nfsd] section:", f"#   {threads.note}", threads.line]
    if rec.notes:
        parts += ["", "# Notes:", *(f"#   {note}" for note in rec.notes)]
    return "\n".join(parts) + "\n"
