"""SSH access to the hosts nfstune works on."""

from nfstune.remote.errors import (
    AuthFailed,
    CommandFailed,
    FileAccessFailed,
    HostKeyChanged,
    HostKeyUnknown,
    PermissionDenied,
    RemoteError,
    Timeout,
    Unreachable,
)
from nfstune.remote.host import Host, open_host
from nfstune.remote.known_hosts import fingerprint
from nfstune.remote.process import CommandResult, RemoteProcess
from nfstune.remote.target import SshTarget, resolve

__all__ = [
    "AuthFailed",
    "CommandFailed",
    "CommandResult",
    "FileAccessFailed",
    "Host",
    "HostKeyChanged",
    "HostKeyUnknown",
    "PermissionDenied",
    "RemoteError",
    "RemoteProcess",
    "SshTarget",
    "Timeout",
    "Unreachable",
    "fingerprint",
    "open_host",
    "resolve",
]
