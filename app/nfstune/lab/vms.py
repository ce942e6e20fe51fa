"""Start, watch and stop the lab VMs (nas and one to four clients). Each is tracked by its pid file and stopped
by that pid only; each has its own SSH host key, kept in the lab's state folder and checked on every connect.

The lab link is a point-to-point socket per client, from the NAS's own NIC for that client to the client's: with
several clients the NAS bridges its NICs, so every machine on 10.99.0.0/24 reaches every other (fio's front end on
the first client talks to the servers on the others) with no traffic outside 127.0.0.1."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import socket
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from nfstune.errors import ConfigError, NfstuneError
from nfstune.lab.config import ALL_VM_NAMES, DEFAULT_RELEASE, LAB_IPS, LabConfig, client_number
from nfstune.lab.image import Image, Progress, ensure_image, which
from nfstune.lab.profiles import LINK_PROFILES, PROBE_COMMAND, parse_probe
from nfstune.remote import Host, RemoteError, SshTarget

log = logging.getLogger(__name__)


class LabError(NfstuneError):
    pass


@dataclass
class VmStatus:
    name: str
    port: int
    pid: int | None = None
    ssh: str = "-"  # "ok", or why not
    facts: dict[str, str] = field(default_factory=dict)

    @property
    def running(self) -> bool:
        return self.pid is not None


def target(cfg: LabConfig, vm: str) -> SshTarget:
    """Where a lab VM is logged in to: the lab's own key, no SSH config. Named "lab nas" alone: messages add its
    user, address and port once (SshTarget.label, .named)."""
    return SshTarget(
        alias=f"lab {vm}",
        hostname="127.0.0.1",
        port=cfg.port(vm),
        user="root",
        identity_files=(cfg.client_key,),
        identities_only=True,
        config_source=f"the practice lab's own settings ({cfg.settings_file})",
    )


def host(cfg: LabConfig, vm: str, *, timeout: float = 10.0, role: str = "") -> Host:
    """An SSH login on a lab VM, its host key checked against the lab's known_hosts. `role`: "server", "client",
    ... as its errors name it."""
    return Host(target(cfg, vm), known_hosts=cfg.known_hosts, connect_timeout=timeout, role=role)


def not_running(cfg: LabConfig, vm: str) -> str | None:
    """Why a lab VM cannot be logged in to, before any connection: its qemu is not running. Whatever else listens
    on its port on 127.0.0.1 is not the lab, and neither its host key nor its refusal says anything about it."""
    if vm_pid(cfg, vm) is not None:
        return None
    return f"the lab's {vm} VM is not running: start the lab with `nfstune lab up`"


def require_running(cfg: LabConfig, vms: Iterable[str]) -> None:
    """The check of `nfstune lab ssh`, of every command given --lab and of the desktop's practice lab."""
    for vm in vms:
        problem = not_running(cfg, vm)
        if problem is not None:
            raise LabError(problem)


def ssh_argv(cfg: LabConfig, vm: str) -> list[str]:
    """The OpenSSH command line for an interactive shell on a lab VM (host key checked, never skipped)."""
    return [
        "ssh",
        "-i",
        str(cfg.client_key),
        "-p",
        str(cfg.port(vm)),
        "-o",
        f"UserKnownHostsFile={cfg.known_hosts}",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "IdentitiesOnly=yes",
        "root@127.0.0.1",
    ]


# --- processes ---------------------------------------------------------------------------------------------


def vm_pid(cfg: LabConfig, vm: str) -> int | None:
    """The pid of this lab's running VM, or None. A pid file whose process is gone, or is not our qemu
    (the pid was reused), does not count."""
    try:
        pid = int(cfg.pid_file(vm).read_text().strip())
        cmdline = psutil.Process(pid).cmdline()
    except (OSError, ValueError, psutil.Error):
        return None
    if any("qemu-system" in part for part in cmdline[:1]) and str(cfg.pid_file(vm)) in cmdline:
        return pid
    return None


def _port_owner(port: int) -> str:
    with contextlib.suppress(psutil.Error, OSError):
        for conn in psutil.net_connections(kind="tcp"):
            if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
                return f" by {psutil.Process(conn.pid).name()} (pid {conn.pid})"
    return ""


def check_ports_free(cfg: LabConfig) -> None:
    # (what, port, the option that moves it): further clients take the ports after the first client's
    wanted = [(f"{vm} SSH", cfg.port(vm), "--nas-port" if vm == "nas" else "--client-port") for vm in cfg.vms]
    for what, port, option in wanted:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                raise ConfigError(
                    f"port {port} on 127.0.0.1 (for the {what}) is taken{_port_owner(port)}: "
                    f"choose another with {option}"
                ) from None


def console_tail(cfg: LabConfig, vm: str, lines: int = 20) -> str:
    try:
        text = cfg.console_log(vm).read_text(errors="replace")
    except OSError:
        return "(no console log)"
    return "\n".join(text.replace("\r", "").splitlines()[-lines:])


def _ssh_keygen(path: Path, comment: str) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
    )


def _prepare_keys(cfg: LabConfig) -> None:
    _ssh_keygen(cfg.client_key, "nfstune-lab")
    lines = []
    for vm in cfg.vms:
        _ssh_keygen(cfg.host_key(vm), f"nfstune-lab-{vm}")
        key_type, key_b64 = cfg.host_key(vm).with_suffix(".pub").read_text().split()[:2]
        lines.append(f"[127.0.0.1]:{cfg.port(vm)} {key_type} {key_b64}\n")
    cfg.known_hosts.write_text("".join(lines))


def _qemu_argv(cfg: LabConfig, image: Image, vm: str) -> list[str]:
    ip = LAB_IPS[vm]
    accel = ["-accel", "tcg,thread=multi,tb-size=256", "-cpu", "max"]
    if cfg.accel == "kvm":
        accel = ["-accel", "kvm", "-cpu", "host"]
    rate = LINK_PROFILES[cfg.link]
    append = f"root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet lab.role={vm} lab.ip={ip}/24"
    append += f" lab.disk={cfg.disk if vm == 'nas' else 'ssd'} lab.link={rate or 'none'}"
    append += f" lab.links={len(_links(cfg, vm))}" + (" lab.rdma=1" if cfg.rdma else "")
    kernel, initrd = image.boot_files(cfg.rdma)
    argv = [which("qemu-system-x86_64") or "qemu-system-x86_64", *accel, "-smp", "1", "-m", str(cfg.memory_of(vm))]
    argv += ["-name", vm, "-display", "none", "-daemonize", "-pidfile", str(cfg.pid_file(vm))]
    argv += ["-serial", f"file:{cfg.console_log(vm)}", "-kernel", str(kernel), "-initrd", str(initrd)]
    argv += ["-append", append]
    argv += ["-drive", f"file={cfg.overlay(vm)},if=virtio,format=qcow2,cache=unsafe"]
    if vm == "nas":
        argv += ["-drive", f"file={cfg.export_disk},if=virtio,format=raw,cache=none,aio=threads"]
    argv += ["-netdev", f"user,id=mgmt,restrict=on,hostfwd=tcp:127.0.0.1:{cfg.port(vm)}-:22"]
    argv += ["-device", "virtio-net-pci,netdev=mgmt"]
    for number, (link, mac) in enumerate(_links(cfg, vm), start=1):
        argv += ["-netdev", f"stream,id=lab{number},{link}", "-device", f"virtio-net-pci,netdev=lab{number},mac={mac}"]
    argv += ["-fw_cfg", f"name=opt/lab/authorized_keys,file={cfg.client_key}.pub"]
    argv += ["-fw_cfg", f"name=opt/lab/host_key,file={cfg.host_key(vm)}"]
    argv += ["-fw_cfg", f"name=opt/lab/host_key_pub,file={cfg.host_key(vm)}.pub"]
    return argv


def _links(cfg: LabConfig, vm: str) -> list[tuple[str, str]]:
    """(qemu stream options, MAC) of each lab-link NIC of a VM, in the order the guest sees them (eth1, eth2...).

    A cable is a Unix stream socket in the state folder, the NAS listening. Not a TCP connection on 127.0.0.1
    (`-netdev socket`, the lab before issue 40): QEMU writes each frame on its own, and the loopback TCP held the
    last frame of a message of several (a 4 KiB NFS WRITE is three) until the other end's delayed ACK, 40 ms,
    in stretches of a session that depended on the traffic before (docs/bench/sync-async-versions-lab.md). A
    datagram link had no such wait but lost frames under a sequential read (cold reads 8.1 against 13.2 MB/s)."""
    if vm != "nas":
        number = client_number(vm)
        return [(_cable(cfg, vm, listen=False), f"52:54:00:99:00:{number + 1:02x}")]
    # the NAS's NIC for the first client keeps the MAC it had before the lab had several clients
    return [(_cable(cfg, c, listen=True), f"52:54:00:99:{client_number(c) - 1:02x}:01") for c in cfg.client_vms]


def _cable(cfg: LabConfig, client: str, *, listen: bool) -> str:
    return f"server={'on' if listen else 'off'},addr.type=unix,addr.path={cfg.link_socket(client)}"


def _start_vm(cfg: LabConfig, image: Image, vm: str) -> None:
    qemu_img = which("qemu-img") or "qemu-img"
    cfg.overlay(vm).unlink(missing_ok=True)
    subprocess.run(
        [qemu_img, "create", "-q", "-f", "qcow2", "-F", "raw", "-b", str(image.disk), str(cfg.overlay(vm))],
        check=True,
        capture_output=True,
    )
    log = cfg.state_dir / f"{vm}.qemu.log"
    with open(log, "w") as err:
        rc = subprocess.run(_qemu_argv(cfg, image, vm), stdin=subprocess.DEVNULL, stdout=err, stderr=err).returncode
    if rc != 0:
        raise LabError(f"this computer: qemu could not start the {vm} VM (exit status {rc}):\n{log.read_text()}")


def _make_export_disk(cfg: LabConfig) -> None:
    disk = cfg.export_disk
    disk.unlink(missing_ok=True)
    disk.touch()
    os.truncate(disk, cfg.export_size_gib * 2**30)
    subprocess.run([which("mkfs.ext4") or "mkfs.ext4", "-q", "-L", "labexport", str(disk)], check=True)


# --- lifecycle ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _lab_lock(cfg: LabConfig) -> Iterator[None]:
    """One `up` or `down` at a time per lab: a second `up` must not stop the VMs of the first."""
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    with open(cfg.state_dir / "lab.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LabError(f"another nfstune is starting or stopping this lab ({cfg.state_dir}); try again") from None
        yield


def up(cfg: LabConfig, progress: Progress) -> list[VmStatus]:
    """Build (if needed) and boot the lab; return when both VMs answer SSH and nfs-server is active."""
    cfg.validate()
    if "," in str(cfg.state_dir):
        raise ConfigError(f"the lab's state folder may not contain a comma (qemu options): {cfg.state_dir}")
    with _lab_lock(cfg):
        return _up(cfg, progress)


def _up(cfg: LabConfig, progress: Progress) -> list[VmStatus]:
    running = [vm for vm in ALL_VM_NAMES if vm_pid(cfg, vm)]
    if running:
        was = cfg.as_running()
        keys = ("disk", "link", "clients", "release", "rdma")
        same = all(getattr(was, key) == getattr(cfg, key) for key in keys)
        if tuple(running) == was.vms and same:
            progress("the lab is already up")
            return status(was)
        raise LabError(
            f"the lab is already running ({', '.join(running)}) with disk={was.disk} link={was.link} "
            f"release={was.release}{' rdma' if was.rdma else ''}: run `nfstune lab down` first"
        )
    images = _images(cfg, progress)
    check_ports_free(cfg)
    cfg.state_dir.mkdir(parents=True, exist_ok=True)
    _prepare_keys(cfg)
    _make_export_disk(cfg)
    t0 = time.monotonic()
    try:
        for vm in cfg.vms:  # nas first: it listens on the lab link, the clients connect to it
            progress(f"starting the {vm} VM (disk={cfg.disk if vm == 'nas' else '-'}, link={cfg.link})")
            _start_vm(cfg, images[vm], vm)
        _wait_ready(cfg, progress, t0)
        states = status(cfg)
        _check_profiles(cfg, states)
    except BaseException:
        progress("stopping the VMs that were started")
        _down(cfg, lambda _msg: None)
        raise
    cfg.save(
        {
            "image": images["nas"].input_hash,
            "client_image": images["client"].input_hash,
            "started_at": time.time(),
            "boot_seconds": round(time.monotonic() - t0, 1),
        }
    )
    progress(f"the lab is up after {time.monotonic() - t0:.0f} s")
    return states


def _images(cfg: LabConfig, progress: Progress) -> dict[str, Image]:
    """Each VM's image: the NAS runs the lab's release, the clients the default one (built if not cached)."""
    client, _ = ensure_image(cfg.cache_dir, progress)
    nas = client if cfg.release == DEFAULT_RELEASE else ensure_image(cfg.cache_dir, progress, release=cfg.release)[0]
    return {vm: nas if vm == "nas" else client for vm in cfg.vms}


def _wait_ready(cfg: LabConfig, progress: Progress, t0: float) -> None:
    deadline = t0 + cfg.boot_timeout
    for vm in cfg.vms:
        last_reason = ""
        tries = 0
        while True:
            tries += 1
            if vm_pid(cfg, vm) is None:
                raise LabError(
                    f"the {vm} VM stopped while booting. Last lines of its console:\n{console_tail(cfg, vm)}"
                )
            try:
                with host(cfg, vm, timeout=5) as h:
                    if vm != "nas" or h.run("systemctl is-active nfs-server", check=False).stdout.strip() == "active":
                        # paramiko's errors while sshd is not up yet stay out of the log (logs.BootRetries): this
                        # line says what they were
                        log.info("%s ready after %.0f s (%d tries to log in)", vm, time.monotonic() - t0, tries)
                        break
                    last_reason = "nfs-server is not active yet"
            except RemoteError as exc:
                last_reason = str(exc)
                if "HOST KEY" in last_reason:
                    raise
            elapsed = time.monotonic() - t0
            if time.monotonic() > deadline:
                raise LabError(
                    f"the {vm} VM was not ready within {cfg.boot_timeout:g} s ({last_reason}). "
                    f"Last lines of its console ({cfg.console_log(vm)}):\n{console_tail(cfg, vm)}"
                )
            progress(f"waiting for {vm} on 127.0.0.1:{cfg.port(vm)} ... {elapsed:.0f} s")
            time.sleep(1)
        progress(f"{vm} is ready after {time.monotonic() - t0:.0f} s")


def _check_profiles(cfg: LabConfig, states: list[VmStatus]) -> None:
    for st in states:
        wanted_disk = cfg.disk if st.name == "nas" else "-"
        got = (st.facts.get("disk"), st.facts.get("link"))
        if got != (wanted_disk, cfg.link):
            raise LabError(
                f"lab {st.name}: profiles in force are disk={got[0]} link={got[1]}, not disk={wanted_disk} "
                f"link={cfg.link}; see `journalctl -u lab-setup` on the VM"
            )
        if cfg.rdma and not st.facts.get("rdma"):
            raise LabError(
                f"lab {st.name}: no RDMA device after boot (soft-RoCE on the lab link); see `journalctl -u lab-setup` "
                "on the VM"
            )


def status(cfg: LabConfig) -> list[VmStatus]:
    result = []
    for vm in cfg.vms:
        st = VmStatus(vm, cfg.port(vm), vm_pid(cfg, vm))
        if st.running:
            try:
                with host(cfg, vm, timeout=5) as h:
                    st.facts = parse_probe(h.run(PROBE_COMMAND, timeout=15).stdout)
                st.ssh = "ok"
            except RemoteError as exc:
                st.ssh = str(exc)
        result.append(st)
    return result


def down(cfg: LabConfig, progress: Progress) -> None:
    """Stop every VM by its pid file only, and drop the per-run disks. Keys and images are kept."""
    if not cfg.state_dir.exists():
        return
    with _lab_lock(cfg):
        _down(cfg, progress)


def _down(cfg: LabConfig, progress: Progress) -> None:
    for vm in reversed(ALL_VM_NAMES):  # a lab.json lost in a crash must not hide a client
        pid = vm_pid(cfg, vm)
        if pid is not None:
            progress(f"stopping {vm} (pid {pid})")
            proc = psutil.Process(pid)
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except psutil.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        elif cfg.pid_file(vm).exists():
            progress(f"{vm} was not running; removing its stale pid file")
        cfg.pid_file(vm).unlink(missing_ok=True)
        cfg.overlay(vm).unlink(missing_ok=True)
    cfg.export_disk.unlink(missing_ok=True)
    cfg.settings_file.unlink(missing_ok=True)
