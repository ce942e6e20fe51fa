"""A host's files, read and written through its own shell (over SSH, or this computer's): exact bytes, an atomic
replace that keeps owner and mode, and the data always on stdin."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence

from nfstune.remote.errors import CommandFailed, FileAccessFailed, Timeout, Unreachable, shown_command
from nfstune.remote.process import CommandResult
from nfstune.shell_text import sh_line

MAX_WRITE_BYTES = 64 << 20  # a sanity limit: exports and fstab files are far smaller


class FileAccess:
    """What Host (and LocalHost) do with files, through their `run`."""

    label: str

    def run(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = 60.0,
        check: bool = True,
        sudo: bool = False,
        stdin: bytes = b"",
        action: str | None = None,
    ) -> CommandResult:
        raise NotImplementedError

    # --- files ----------------------------------------------------------------------------------------------

    def read_file(self, path: str, *, sudo: bool = False) -> bytes | None:
        """A file's exact bytes, or None if it does not exist."""
        script = sh_line("if [ -e {path} ]; then base64 < {path}; else echo MISSING; fi", path=path)
        try:
            result = self.run(script, sudo=sudo, timeout=120)
        except (CommandFailed, Timeout, Unreachable) as exc:
            raise FileAccessFailed(self.label, "reading", path, _reason(exc, script)) from None
        if result.stdout.strip() == "MISSING":
            return None
        return base64.b64decode(result.stdout)

    def write_file(self, path: str, data: bytes, *, sudo: bool = False, mode: str | None = None) -> None:
        """Atomically replace (or create) a file: a temp file beside it, flushed, then renamed over it. The
        original's owner and mode are kept (or `mode` is set).

        The data goes on the command's stdin, never on its command line (which has a size limit and is shown
        by `ps`). A random marker line comes first: `sudo -S` reads its password line before it, but when sudo
        does not ask (cached credentials, NOPASSWD for this command) the script skips that line itself."""
        if len(data) > MAX_WRITE_BYTES:
            raise FileAccessFailed(self.label, "writing", path, f"{len(data)} bytes is more than nfstune writes")
        marker = secrets.token_hex(16)
        keep = 'chown --reference={path} "$t" && chmod --reference={path} "$t"'
        set_mode = 'chmod {mode} "$t"' if mode else "true"
        script = sh_line(
            "set -e; t=$(mktemp {path}.nfstune.XXXXXX); trap 'rm -f \"$t\"' EXIT; found=; "
            'while IFS= read -r line; do if [ "$line" = {marker} ]; then found=1; break; fi; done; '
            '[ -n "$found" ] || {{ echo "the data did not arrive" >&2; exit 1; }}; '
            'cat > "$t"; n=$(wc -c < "$t"); '
            '[ "$n" -eq {size} ] || {{ echo "only $n of" {size} "bytes arrived" >&2; exit 1; }}; '
            "if [ -e {path} ]; then " + keep + '; else chmod 644 "$t"; fi; ' + set_mode + "; "
            'sync "$t"; mv -f "$t" {path}; trap - EXIT; sync "$(dirname {path})"',
            path=path,
            marker=marker,
            size=len(data),
            **({"mode": mode} if mode else {}),
        )
        try:
            self.run(script, sudo=sudo, stdin=marker.encode() + b"\n" + data, timeout=120)
        except (CommandFailed, Timeout, Unreachable) as exc:
            raise FileAccessFailed(self.label, "writing", path, _reason(exc, script)) from None


def _reason(exc: CommandFailed | Timeout | Unreachable, script: str) -> str:
    """What went wrong, without the host (the caller names it) or our script (it says nothing to the admin)."""
    if isinstance(exc, CommandFailed):
        tail = "\n".join(exc.stderr.strip().splitlines()[-5:])
        return tail or f"exit status {exc.exit_status}"
    if isinstance(exc, Timeout):
        return f"not done within {exc.seconds:g} s"
    return str(exc).removeprefix(f"{exc.host}: ").replace(f" {shown_command(script)}", "")
