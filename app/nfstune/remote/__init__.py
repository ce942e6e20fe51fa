"""SSH access to the hosts nfstune works on."""

from nfstune.remote.errors import (
    AuthFailed,
    CommandFailed,
    HostKeyChanged,
    HostKeyUnknown,
    RemoteError,
    Timeout,
    Unreachable,
)
from nfstune.remote.host import CommandResult, Host

__all__ = [
    "AuthFailed",
    "CommandFailed",
    "CommandResult",
    "Host",
    "HostKeyChanged",
    "HostKeyUnknown",
    "RemoteError",
    "Timeout",
    "Unreachable",
]
