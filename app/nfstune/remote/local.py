"""'This computer' as a host: the same Host (commands, sudo, cancel by process group, atomic files), with each
command a local process instead of an SSH channel.

`LocalChannel` offers the part of paramiko's Channel that Host and RemoteProcess use, over a subprocess: so the
wrapper that reports the process group, sudo with a password on stdin, the kill over a second "channel" and every
parser stay exactly the ones used for remote hosts.
"""

from __future__ import annotations

import getpass
import socket
import subprocess
import threading

from nfstune import paths
from nfstune.remote.host import Host, SecretPrompt
from nfstune.remote.target import SshTarget

LOCAL_LABEL = "this computer"


class LocalChannel:
    """stdout and stderr are read by a thread each into buffers; recv*() take from them without blocking."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffers = {"out": bytearray(), "err": bytearray()}
        self._lock = threading.Lock()
        self._readers: list[threading.Thread] = []
        self.closed = False

    def exec_command(self, command: str) -> None:
        self._proc = subprocess.Popen(
            ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for name, stream in (("out", self._proc.stdout), ("err", self._proc.stderr)):
            reader = threading.Thread(target=self._pump, args=(name, stream), daemon=True)
            reader.start()
            self._readers.append(reader)

    def _pump(self, name: str, stream: object) -> None:
        read = stream.read1  # type: ignore[attr-defined]
        while chunk := read(65536):
            with self._lock:
                self._buffers[name] += chunk

    def _take(self, name: str, size: int) -> bytes:
        with self._lock:
            data = bytes(self._buffers[name][:size])
            del self._buffers[name][:size]
        return data

    def recv_ready(self) -> bool:
        return bool(self._buffers["out"])

    def recv_stderr_ready(self) -> bool:
        return bool(self._buffers["err"])

    def recv(self, size: int) -> bytes:
        return self._take("out", size)

    def recv_stderr(self, size: int) -> bytes:
        return self._take("err", size)

    @property
    def eof_received(self) -> bool:
        return all(not r.is_alive() for r in self._readers)

    def exit_status_ready(self) -> bool:
        return self._proc is not None and self._proc.poll() is not None

    def recv_exit_status(self) -> int:
        assert self._proc is not None
        return self._proc.wait()

    def sendall(self, data: bytes) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(data)
        self._proc.stdin.flush()

    def shutdown_write(self) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.close()

    def close(self) -> None:
        """After the command ended (as RemoteProcess closes it): reap it and close its pipes."""
        self.closed = True
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
        if proc.poll() is None:
            return  # still running (an error path): the pipes close when it ends and the object goes
        proc.wait()
        for reader in self._readers:
            reader.join(timeout=5)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


class LocalHost(Host):
    """The machine nfstune runs on, as the current user (sudo for root, as for a remote login)."""

    def __init__(self, ask_secret: SecretPrompt | None = None) -> None:
        """`ask_secret`: asked for the sudo password when this user's sudo needs one (kept in memory only)."""
        user = getpass.getuser()
        target = SshTarget(LOCAL_LABEL, "localhost", 0, user, ())
        label = f"{LOCAL_LABEL} ({socket.gethostname()})"
        super().__init__(target, known_hosts=paths.known_hosts(), label=label, ask_secret=ask_secret)
        self.named = label  # no SSH: no user@address:port to name
        self.is_local = True

    def connect(self) -> None:
        pass  # nothing to connect

    def close(self) -> None:
        pass

    def _open_channel(self, text: str) -> LocalChannel:  # type: ignore[override]
        return LocalChannel()

    def __repr__(self) -> str:
        return f"LocalHost({self.label!r})"


def is_local(host: Host) -> bool:
    return bool(getattr(host, "is_local", False))
