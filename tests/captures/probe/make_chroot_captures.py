"""Run the real probe script in tiny chroots (dash and libc, plus marker files) and save what it prints.

Needs root (chroot, mknod). From the repository root:
    .venv/bin/python tests/captures/probe/make_chroot_captures.py
The marker files' contents are SYNTHETIC (written here, shaped like the vendors' files); see README.md.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from nfstune.remote.probe import build_probe_script

HERE = Path(__file__).parent
RUNTIME = ("/bin/dash", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2")
STUB = "#!/bin/sh\nexit 0\n"  # `command -v` only needs an executable file

# capture name -> {path in the chroot: content (a directory when None)}
APPLIANCES: dict[str, dict[str, str | None]] = {
    "synthetic-synology.txt": {
        "/etc/synoinfo.conf": 'unique="synology_geminilake_920+"\ncompany_title="Synology"\n',
        "/etc.defaults/VERSION": 'majorversion="7"\nminorversion="2"\nproductversion="7.2.1"\nbuildnumber="69057"\n',
        "/usr/syno/bin/synopkg": STUB,
    },
    "synthetic-truenas-core.txt": {
        "/etc/version": "TrueNAS-13.0-U6.1 (6b4ebd9d6c)\n",
        "/data/freenas-v1.db": "",
        "/usr/local/bin/midclt": STUB,
    },
    "synthetic-truenas-scale.txt": {  # /etc/version without the product name: not evidence by itself
        "/etc/version": "24.04.2\n",
        "/data/freenas-v1.db": "",
        "/usr/bin/midclt": STUB,
    },
    "synthetic-openmediavault.txt": {"/etc/openmediavault": None, "/usr/sbin/omv-confdbadm": STUB},
    "synthetic-qnap.txt": {
        "/etc/config/qpkg.conf": "[container-station]\nName = container-station\n",
        "/etc/platform.conf": "Platform = TS-X53B\n",
        "/sbin/getcfg": STUB,
    },
    "synthetic-unraid.txt": {"/etc/unraid-version": 'version="6.12.4"\n'},
}


def run_in_chroot(files: dict[str, str | None], *, dev_null: bool = True) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for source in RUNTIME:
            target = root / source.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
        (root / "bin" / "dash").rename(root / "bin" / "sh")
        if dev_null:
            (root / "dev").mkdir()
            subprocess.run(["mknod", "-m", "666", str(root / "dev" / "null"), "c", "1", "3"], check=True)
        for path, content in files.items():
            target = root / path.lstrip("/")
            if content is None:
                target.mkdir(parents=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
            target.chmod(0o755 if content == STUB else 0o644)
        script = build_probe_script("/export", "10.99.0.1")
        result = subprocess.run(
            ["/usr/sbin/chroot", str(root), "/bin/sh", "-c", script],
            env={"PATH": "/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        return result.stdout


def main() -> None:
    (HERE / "bare-chroot-dash-only.txt").write_text(run_in_chroot({}, dev_null=False))
    for name, files in APPLIANCES.items():
        (HERE / name).write_text(run_in_chroot(files))


if __name__ == "__main__":
    main()
