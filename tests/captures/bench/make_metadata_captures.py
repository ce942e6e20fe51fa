"""Records the metadata workloads' captures in this folder from the practice lab (`nfstune lab up` must be running):
fio's filecreate engine, the shell loops (file-stat and file-delete always, file-create without fio), and
tree-delete's `rm -rf`.

Every command is built by nfstune.bench itself, as in make_captures.py (whose helpers this uses). Run from the
repository root: `.venv/bin/python tests/captures/bench/make_metadata_captures.py`. README.md says what came out.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from make_captures import HERE, MOUNT_POINT, REMOTE_OUT, SCRATCH, SIZES, ssh, workload

from nfstune.bench import fallback, fio
from nfstune.bench.workloads import WorkloadId

RUNS = (
    ("fio-file-create", fio.fio_commands(WorkloadId.FILE_CREATE, SCRATCH, SIZES)),
    ("sh-file-create", fallback.fallback_commands(WorkloadId.FILE_CREATE, SCRATCH, SIZES)),
    ("sh-file-stat", fallback.fallback_commands(WorkloadId.FILE_STAT, SCRATCH, SIZES)),
    ("sh-file-delete", fallback.fallback_commands(WorkloadId.FILE_DELETE, SCRATCH, SIZES)),
    ("sh-tree-delete", fallback.fallback_commands(WorkloadId.TREE_DELETE, SCRATCH, SIZES)),
)


def main() -> None:
    ssh(
        "client",
        f"mkdir -p {MOUNT_POINT} {REMOTE_OUT} && (mountpoint -q {MOUNT_POINT} || "
        f"mount -t nfs -o vers=4.2 nas:/export {MOUNT_POINT}) && mkdir -p {SCRATCH}",
    )
    for name, commands in RUNS:
        workload(name, commands, sampled=False)
        for argv in commands.cleanup:
            ssh("client", " ".join(argv))
    names = ssh("client", f"ls {REMOTE_OUT}").split()
    for name in names:
        text = ssh("client", f"cat {REMOTE_OUT}/{name}")
        if name.endswith(".rc"):
            assert text.strip() == "0", f"{name}: exit status {text.strip()}"
        elif text or not name.endswith(".err"):  # stderr only when there was some
            (HERE / name).write_text(text)
    ssh(
        "client",
        f"rm -rf {SCRATCH} {REMOTE_OUT} {fallback.SMALL_FILES_TAR} && umount {MOUNT_POINT} && rmdir {MOUNT_POINT}",
    )
    print(ssh("client", f"grep -c bench-cap /proc/mounts; ls /mnt /var/tmp; ls {REMOTE_OUT} 2>&1 || true"))
    print(ssh("nas", "ls -la /export"))


if __name__ == "__main__":
    main()
