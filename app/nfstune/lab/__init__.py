"""The practice lab: two QEMU VMs (a NAS with the kernel NFS server, and a client) on this computer."""

from nfstune.lab.config import LabConfig
from nfstune.lab.vms import LabError, VmStatus, down, host, ssh_argv, status, up

__all__ = ["LabConfig", "LabError", "VmStatus", "down", "host", "ssh_argv", "status", "up"]
