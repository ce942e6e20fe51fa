"""The practice lab: QEMU VMs on this computer, a NAS with the kernel NFS server and one to four clients.

The VM code (and paramiko with it) is imported on first use, so that building the command line does not load it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from nfstune.lab.config import LabConfig

if TYPE_CHECKING:
    from nfstune.lab.vms import LabError, VmStatus, down, host, require_running, ssh_argv, status, up, vm_pid

__all__ = [
    "LabConfig",
    "LabError",
    "VmStatus",
    "down",
    "host",
    "require_running",
    "ssh_argv",
    "status",
    "up",
    "vm_pid",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("nfstune.lab.vms"), name)
    raise AttributeError(f"module 'nfstune.lab' has no attribute {name!r}")
