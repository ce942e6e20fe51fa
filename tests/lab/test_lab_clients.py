"""A practice lab with more than one client (`nfstune lab up --clients N`), for real: every client answers SSH
with its own host key, all of them share one private link with the NAS, and `down` leaves nothing running."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune.bench.clients_runner import ClientsRunner, LoadClient
from nfstune.bench.fio import fio_commands
from nfstune.bench.fio_clients import ClientJob, front_end_argv, job_file
from nfstune.bench.workloads import MIB, WorkloadId, WorkloadSizes
from nfstune.changes.fio_server import start_server
from nfstune.changes.mount import ClientMount
from nfstune.changes.transaction import ChangeFailed, Transaction, recover_on_connect
from nfstune.errors import Cancelled, NfstuneError
from nfstune.lab import LabConfig, host, status, up
from nfstune.lab.config import LAB_IPS, MAX_CLIENTS
from nfstune.remote import Host, HostKeyChanged
from nfstune.store import Journal, open_store

pytestmark = pytest.mark.lab


def test_every_vm_is_up_with_its_own_port_and_role(lab2: LabConfig) -> None:
    states = status(lab2)
    assert [st.name for st in states] == ["nas", "client", "client2"]
    assert all(st.running and st.ssh == "ok" for st in states)
    assert [st.facts["role"] for st in states] == ["nas", "client", "client2"]
    assert len({st.port for st in states}) == 3
    assert states[0].facts["nfs_server"] == "active"


def test_each_client_has_its_own_host_key(lab2: LabConfig, tmp_path: Path) -> None:
    client_pub = lab2.host_key("client").with_suffix(".pub").read_text().split()
    assert client_pub != lab2.host_key("client2").with_suffix(".pub").read_text().split()
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"[127.0.0.1]:{lab2.port('client2')} {client_pub[0]} {client_pub[1]}\n")
    h = Host("127.0.0.1", port=lab2.port("client2"), key_filename=lab2.client_key, known_hosts=wrong, label="c2")
    with pytest.raises(HostKeyChanged):
        h.connect()


def test_the_clients_share_one_link_with_the_nas(lab2: LabConfig) -> None:
    # fio's front end on the first client must reach the servers on the others, over the lab link only
    with host(lab2, "client") as client, host(lab2, "client2") as client2:
        for h, peers in ((client, ("nas", "client2")), (client2, ("nas", "client"))):
            for peer in peers:
                result = h.run(["ping", "-c", "1", "-W", "5", LAB_IPS[peer]], check=False)
                assert result.exit_status == 0, f"{h.label} cannot reach {peer}: {result.stdout}{result.stderr}"
        route = client2.run(["ip", "-o", "route", "get", LAB_IPS["client"]]).stdout
        assert re.search(r"\bdev eth1\b", route) and " via " not in route


def test_a_file_written_by_one_client_is_read_by_the_other(lab2: LabConfig) -> None:
    mount = "/mnt/lab-clients-test"
    with host(lab2, "client") as client, host(lab2, "client2") as client2, host(lab2, "nas") as nas:
        for h in (client, client2):
            h.run(f"mkdir -p {mount} && mount -t nfs -o vers=4.2 nas:/export {mount}")
        try:
            client.run(f"echo from-client > {mount}/shared.txt && sync")
            assert client2.run(["cat", f"{mount}/shared.txt"]).stdout == "from-client\n"
            assert nas.run(["cat", "/export/shared.txt"]).stdout == "from-client\n"
        finally:
            for h in (client, client2):
                h.run(f"umount {mount}; rmdir {mount}", check=False)
            nas.run(["rm", "-f", "/export/shared.txt"], check=False)


def test_cli_status_and_ssh_reach_a_further_client(lab2: LabConfig) -> None:
    env = os.environ | {"XDG_STATE_HOME": str(lab2.state_dir.parent.parent)}
    st = subprocess.run([sys.executable, "-m", "nfstune", "lab", "status"], capture_output=True, text=True, env=env)
    assert st.returncode == 0, st.stdout + st.stderr
    assert re.search(rf"^client2\s+127\.0\.0\.1:{lab2.port('client2')}\s+pid \d+\s+ok", st.stdout, re.M)
    ssh = subprocess.run(
        [sys.executable, "-m", "nfstune", "lab", "ssh", "client2", "hostname"],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip
    assert (ssh.returncode, ssh.stdout.strip()) == (0, "client2"), ssh.stderr


def test_a_second_up_with_another_client_count_is_refused(lab2: LabConfig) -> None:
    from nfstune.lab import LabError

    for clients in (1, MAX_CLIENTS):
        with pytest.raises(LabError, match="already running"):
            up(LabConfig(state_dir=lab2.state_dir, cache_dir=lab2.cache_dir, clients=clients), lambda _m: None)
    assert [st.name for st in status(lab2)] == ["nas", "client", "client2"]


# --- fio's servers on the clients, one front end ------------------------------------------------------------------


SIZES = WorkloadSizes(seq_file_bytes=16 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=50)
FIO_SERVERS = "pgrep -ax fio || true"  # -x: the process named fio, not a shell whose command line names it


def serve_and_mount(clients: dict[str, Host], nas: Host, tx: Transaction) -> list[LoadClient]:
    """On each client, in turn: fio's server on its lab address, and the export mounted with a scratch directory
    of its own (one after the other: two mounts made in the same millisecond would share a name)."""
    load = []
    for name, c in clients.items():
        server = start_server(c, tx, LAB_IPS[name])
        mount = ClientMount(c, nas, tx, server_address="nas", export_path="/export", options="vers=4.2")
        mount.mount()
        load.append(LoadClient(name, c, mount.scratch, server.reached_as))
    return load


def test_fio_servers_run_one_job_on_both_clients_and_stop_with_the_undo(lab2: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    log: list[str] = []
    tx = Transaction(journal, log.append)
    with host(lab2, "nas") as nas, host(lab2, "client") as c1, host(lab2, "client2") as c2:
        clients = {"client": c1, "client2": c2}
        try:
            jobs = []
            for load in serve_and_mount(clients, nas, tx):
                path = f"/var/tmp/nfstune-test-{load.name}.fio"
                tx.record(c1, "tempfile", path)
                c1.write_file(path, job_file(fio_commands(WorkloadId.SEQ_WRITE, load.scratch, SIZES).run).encode())
                jobs.append(ClientJob(load.name, load.server, path))
            assert all(f"fio --server=ip:{LAB_IPS[n]},8765" in c.run(FIO_SERVERS).stdout for n, c in clients.items())
            done = c1.run(front_end_argv(jobs), timeout=300)
            document = json.loads(done.stdout[done.stdout.index("{") :])
            per_client = {s["hostname"]: s for s in document["client_stats"] if s["jobname"] != "All clients"}
            # fio names each client as its --client argument gave it
            assert sorted(per_client) == sorted(f"{LAB_IPS[n]},8765" for n in clients) or sorted(per_client) == sorted(
                LAB_IPS[n] for n in clients
            )
            assert all(s["write"]["io_bytes"] == SIZES.seq_file_bytes and s["error"] == 0 for s in per_client.values())
        finally:
            tx.undo(announce=True)
        for c in clients.values():
            assert c.run(FIO_SERVERS).stdout == ""
            assert "nfstune" not in c.run("ls -A /var/tmp").stdout
        assert nas.run("ls -A /export").stdout.split() == ["lost+found"]
    assert sum("fio --server stopped" in line for line in log) == 2
    assert journal.pending() == []


def test_a_fio_server_left_by_a_crash_is_stopped_at_the_next_connect(lab2: LabConfig, tmp_path: Path) -> None:
    store = tmp_path / "nfstune.sqlite3"
    with host(lab2, "client2") as c2:
        start_server(c2, Transaction(Journal(open_store(store)), lambda _m: None), LAB_IPS["client2"], 8799)
        assert "8799" in c2.run(FIO_SERVERS).stdout
    # a fresh process, a fresh store connection: only the journal on disk knows
    with host(lab2, "client2") as c2:
        undone = recover_on_connect([c2], Journal(open_store(store)), lambda _m: None)
        assert [e.kind for e in undone] == ["process"]
        assert c2.run(FIO_SERVERS).stdout == ""
        assert "nfstune-fio-server" not in c2.run("ls -A /var/tmp").stdout


def test_a_taken_port_is_an_error_naming_the_host_and_nothing_stays(lab2: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    tx = Transaction(journal, lambda _m: None)
    with host(lab2, "client") as c1:
        first = start_server(c1, tx, LAB_IPS["client"], 8798)
        try:
            # on any address: another program's socket on 0.0.0.0 takes the port as surely
            for address in (LAB_IPS["client"], "127.0.0.1"):
                with pytest.raises(NfstuneError, match=r"lab client .*: port 8798 is already in use there"):
                    start_server(c1, tx, address, 8798)
            assert len(journal.pending()) == 1  # the refused starts journaled nothing
            assert c1.run(FIO_SERVERS).stdout.split()[0] == str(first.pid)
        finally:
            tx.undo()
        assert c1.run(FIO_SERVERS).stdout == ""
    assert journal.pending() == []


def test_clients_write_and_read_at_once_and_a_cancel_leaves_no_fio(lab2: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    log: list[str] = []
    tx = Transaction(journal, log.append)
    cancel = threading.Event()
    with host(lab2, "nas") as nas, host(lab2, "client") as c1, host(lab2, "client2") as c2:
        clients = {"client": c1, "client2": c2}
        try:
            load = serve_and_mount(clients, nas, tx)
            runner = ClientsRunner(nas, tx, cancel=cancel, log=log.append)
            alone = runner.run(WorkloadId.SEQ_WRITE, SIZES, load[:1])
            together = runner.run(WorkloadId.SEQ_WRITE, SIZES, load)
            read = runner.run(WorkloadId.SEQ_READ, SIZES, load)
            assert list(alone.per_client) == ["client"]
            assert list(together.per_client) == list(read.per_client) == ["client", "client2"]
            for result in (alone, together, read):
                assert all(r.bytes == SIZES.seq_file_bytes for r in result.per_client.values())
            assert together.total_bytes == 2 * SIZES.seq_file_bytes and 0 < together.fairness <= 1
            # each client wrote a file of its own, in its own scratch directory
            files = nas.run("find /export -name nfstune-seq.dat -size +1M").stdout.split()
            assert len(files) == 2 and len({f.rsplit("/", 2)[1] for f in files}) == 2
            threading.Timer(3.0, cancel.set).start()
            with pytest.raises(Cancelled):
                runner.run(WorkloadId.SEQ_WRITE, replace(SIZES, seq_file_bytes=1024 * MIB), load)
        finally:
            tx.undo(announce=True)
        for c in clients.values():
            assert c.run("pgrep -ax fio || true").stdout == "", f"{c.label}: fio still runs"
            assert "nfstune" not in c.run("ls -A /var/tmp").stdout
        assert nas.run("ls -A /export").stdout.split() == ["lost+found"]
    assert journal.pending() == []


def test_a_server_that_cannot_bind_says_why_and_is_undone(lab2: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    tx = Transaction(journal, lambda _m: None)
    with host(lab2, "client") as c1:
        try:
            # an address of the lab's network that this client does not have: fio's bind fails and fio exits
            with pytest.raises(ChangeFailed, match=r"lab client .*10\.99\.0\.9:8797 stopped at once: .*\S"):
                start_server(c1, tx, "10.99.0.9", 8797)
        finally:
            tx.undo()
        assert c1.run(FIO_SERVERS).stdout == ""
        assert "nfstune" not in c1.run("ls -A /var/tmp").stdout
    assert journal.pending() == []
