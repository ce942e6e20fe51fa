"""Run by test_changes.py as a separate process: `apply` makes the async change and the client mount, prints
READY and SIGKILLs itself before any undo; `recover` is the fresh process that restores."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from nfstune.changes.export import ExportChange
from nfstune.changes.mount import ClientMount
from nfstune.changes.transaction import Transaction, host_key, recover
from nfstune.lab import LabConfig, host
from nfstune.store import Journal, open_store

ASYNC_EXPORTS = b"/export 10.99.0.0/24(rw,async,no_subtree_check,no_root_squash)\n"


def main(mode: str, db: str, lab_json: str) -> None:
    cfg = LabConfig(**{k: (Path(v) if k == "state_dir" else v) for k, v in json.loads(lab_json).items()})
    journal = Journal(open_store(Path(db)))
    with host(cfg, "nas") as nas, host(cfg, "client") as client:
        if mode == "apply":
            tx = Transaction(journal, print)
            ExportChange(nas, tx, file="/etc/exports", new_text=ASYNC_EXPORTS, expect={"/export": "async"}).apply()
            mount = ClientMount(client, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
            mount.mount()
            client.run(["dd", "if=/dev/zero", f"of={mount.scratch}/f", "bs=64k", "count=4", "conv=fsync"])
            print("READY", json.dumps({"mount_point": mount.mount_point, "scratch": mount.scratch}), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        else:
            undone = recover({host_key(nas): nas, host_key(client): client}, journal, print)
            print("RECOVERED", len(undone), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
