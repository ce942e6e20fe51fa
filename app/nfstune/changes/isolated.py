"""Isolated mode: instead of changing the user's export, export a loop-mounted scratch filesystem of our own.

Measured in the lab (docs/lab-poc/README.md): it cannot leak into the user's export (its own filesystem, its
own uuid), but every flush goes through two filesystems, so a sync write costs ~2.5x what it costs on the real
filesystem. Offer it as the safe choice, labelled as less faithful for sync-vs-async figures.
"""

from __future__ import annotations

import posixpath
import time

from nfstune.changes.export import ExportChange
from nfstune.changes.transaction import Transaction
from nfstune.nfs.own_mount import SCRATCH_PREFIX
from nfstune.remote import Host

LABEL = "isolated mode: a scratch filesystem of nfstune's own (safe, but sync writes cost ~2.5x more than on yours)"
EXPORTS_FILE = "/etc/exports.d/nfstune-isolated.exports"


class IsolatedExport:
    """A file-backed ext4 filesystem on the share's own disk, loop-mounted on the server and exported alone."""

    def __init__(
        self, server: Host, tx: Transaction, *, share_path: str, client_spec: str, options: str, size_mib: int = 256
    ) -> None:
        if size_mib < 16:
            raise ValueError("an isolated export needs at least 16 MiB")
        stamp = f"{int(time.time() * 1000) % 10**10}"
        self.server, self.tx = server, tx
        self.image = posixpath.join(share_path, f"{SCRATCH_PREFIX}isolated-{stamp}.img")
        self.path = f"/srv/nfstune-isolated-{stamp}"
        self.client_spec, self.options, self.size_mib = client_spec, options, size_mib
        self.change: ExportChange | None = None

    @property
    def write_mode(self) -> str:
        return "async" if "async" in self.options.split(",") else "sync"

    def apply(self) -> None:
        s, tx = self.server, self.tx
        tx.progress(f"{s.label}: creating a {self.size_mib} MiB scratch filesystem in {self.image}")
        tx.record(s, "scratch", self.image)
        s.run(["truncate", "-s", f"{self.size_mib}M", self.image], sudo=True)
        s.run(["mkfs.ext4", "-q", "-F", "-L", "nfstune", self.image], sudo=True, timeout=300)
        tx.record(s, "mount", self.path)
        s.run(["mkdir", "-p", self.path], sudo=True)
        s.run(["mount", "-o", "loop", self.image, self.path], sudo=True)
        s.run(["chmod", "1777", self.path], sudo=True)
        line = f"{self.path} {self.client_spec}({self.options})\n"
        self.change = ExportChange(
            s, tx, file=EXPORTS_FILE, new_text=line.encode(), expect={self.path: self.write_mode}
        )
        self.change.apply()
