"""The recommendation as HTML, for the report: what the Recommendation page shows. The /etc/exports entry and the
/etc/fstab line as they are now and as recommended, a reason for every option, the notes, and async only as an
opt-in alternative under its exports(5) warning and what that means in plain words."""

from __future__ import annotations

import html

from nfstune.advice.recommend import Reason, Recommendation

WHY_NONE = "No recommendation"


def recommendation_html(rec: Recommendation | str) -> str:
    """`rec`: the recommendation, or why there is none (session_advice.kept_recommendation)."""
    e = html.escape
    if isinstance(rec, str):
        return f"<h2>Recommendation</h2><p>{WHY_NONE}: {e(rec)}.</p>"
    where = e(rec.exports_file) + ("" if rec.exports_before is not None else ", a new line")
    parts = ["<h2>Recommendation</h2>"]
    if rec.exports_line:  # "" when nfstune could not log in to the server (a note says so)
        parts.append(f"<h3>Export ({where}, on the server)</h3>")
        parts += _lines(rec.exports_line, rec.exports_before, rec.exports_reasons)
    if rec.fstab_before is not None:
        parts.append("<h3>Mount (/etc/fstab on the client, your entry edited in place)</h3>")
    else:
        parts.append("<h3>Mount (/etc/fstab on the client, a new line: choose your own mount point)</h3>")
    parts += _lines(rec.fstab_line, rec.fstab_before, rec.fstab_reasons)
    parts += _threads(rec)
    if rec.notes:
        parts.append("<h3>Notes</h3><ul>" + "".join(f"<li>{e(n)}</li>" for n in rec.notes) + "</ul>")
    alt = rec.async_alternative
    if alt is None:
        parts.append("<p>async is not offered: it was not measured faster here, or your entry already has it.</p>")
    else:
        parts.append(
            "<div class=warn><h3>Opt-in alternative, NOT recommended by default: async</h3>"
            f"<pre>{e(alt.line)}</pre><p><b>Measured:</b> {e(alt.gain)}</p>"
            f"<p><b>exports(5):</b> {e(alt.warning)}</p><p><b>What it means:</b> {e(alt.risk)}</p>"
            f"<p><b>Only if:</b> {e(alt.conditions)}</p></div>"
        )
    return "\n".join(parts)


def _lines(line: str, before: str | None, reasons: tuple[Reason, ...]) -> list[str]:
    e = html.escape
    parts = [f"<pre>{e(line)}</pre>"]
    if before is not None and before != line:
        parts.append(f"<p>Now:</p><pre>{e(before)}</pre>")
    elif before is not None:
        parts.append("<p>Your entry already reads as recommended: nothing to change.</p>")
    if reasons:
        rows = "".join(f"<tr><td><code>{e(r.option)}</code></td><td>{e(r.why)}</td></tr>" for r in reasons)
        parts.append(f"<table><tr><th>option</th><th>why</th></tr>{rows}</table>")
    return parts


def _threads(rec: Recommendation) -> list[str]:
    """The nfsd thread count measured with several clients at once: the nfs.conf line, or what was found."""
    advice = rec.threads
    if advice is None:
        return []
    e = html.escape
    if advice.file is None or advice.line is None:
        return [f"<h3>nfsd threads</h3><p>{e(advice.note)}</p>"]
    gone, _ = advice.changed_lines
    now = f"<p>Now:</p><pre>{e(chr(10).join(gone))}</pre>" if gone else "<p>A new line in its [nfsd] section.</p>"
    return [
        f"<h3>nfsd threads ({e(advice.file)} on the server, one value changed)</h3><pre>{e(advice.line)}</pre>"
        f"{now}<p>{e(advice.note)}</p>"
    ]
