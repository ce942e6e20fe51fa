"""An NFS export stood in for by a folder of this computer, for running nfstune's over-NFS shell lines for real
(changes/nfs_scratch.py, transaction.on_share) without a server: `mount` and `umount` first on PATH, where the
temporary mount point the line makes becomes a link to the folder, and an empty folder again at the unmount. Every other
command the line runs is the real one."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

MOUNT = """#!/bin/sh
for a; do last=$a; done
rmdir -- "$last" && ln -s -- {share} "$last"
"""
UMOUNT = """#!/bin/sh
for a; do last=$a; done
rm -f -- "$last" && mkdir -- "$last"
"""


def fake_mount_path(bin_dir: Path, share: Path) -> str:
    """A PATH with the stand-in `mount` and `umount` (in `bin_dir`) before the system's."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for name, text in (("mount", MOUNT.format(share=shlex.quote(str(share)))), ("umount", UMOUNT)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
