"""A practice lab with more than one client (`nfstune lab up --clients N`), for real: every client answers SSH
with its own host key, all of them share one private link with the NAS, and `down` leaves nothing running. Its NAS
runs Debian trixie (`--release trixie`: kernel 6.12, nfs-utils 2.8 with nfsdctl), its clients bookworm: the probe
reads that NAS, and server-side recipes change its export and put everything back. Every VM has soft-RoCE (`--rdma`):
the transport recipe runs NFS over RDMA on it."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from nfstune import paths
from nfstune.bench.clients_runner import ClientsRunner, LoadClient
from nfstune.bench.workloads import MIB, WorkloadId, WorkloadSizes
from nfstune.changes.fio_server import start_server
from nfstune.changes.mount import ClientMount
from nfstune.changes.nfsd_listener import add_rdma_listener
from nfstune.changes.transaction import ChangeFailed, Transaction, recover_on_connect
from nfstune.errors import Cancelled, NfstuneError
from nfstune.lab import LabConfig, host, status, up
from nfstune.lab.config import LAB_IPS, MAX_CLIENTS
from nfstune.recipes.loader import load_recipe_file
from nfstune.remote import Host, HostKeyChanged
from nfstune.remote.probe import probe
from nfstune.store import Journal, open_store
from tests.lab.cli import nfstune_in
from tests.lab.engine_session import run_session
from tests.lab.recording import assert_plan_ran

pytestmark = pytest.mark.lab


def test_every_vm_is_up_with_its_own_port_and_role(lab3: LabConfig) -> None:
    states = status(lab3)
    assert [st.name for st in states] == ["nas", "client", "client2", "client3"]
    assert all(st.running and st.ssh == "ok" for st in states)
    assert [st.facts["role"] for st in states] == ["nas", "client", "client2", "client3"]
    assert len({st.port for st in states}) == 4
    assert states[0].facts["nfs_server"] == "active"


def test_each_client_has_its_own_host_key(lab3: LabConfig, tmp_path: Path) -> None:
    client_pub = lab3.host_key("client").with_suffix(".pub").read_text().split()
    assert client_pub != lab3.host_key("client2").with_suffix(".pub").read_text().split()
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"[127.0.0.1]:{lab3.port('client2')} {client_pub[0]} {client_pub[1]}\n")
    h = Host("127.0.0.1", port=lab3.port("client2"), key_filename=lab3.client_key, known_hosts=wrong, label="c2")
    with pytest.raises(HostKeyChanged):
        h.connect()


def test_the_clients_share_one_link_with_the_nas(lab3: LabConfig) -> None:
    # fio's front end on the first client must reach the servers on the others, over the lab link only
    with host(lab3, "client") as client, host(lab3, "client2") as client2:
        for h, peers in ((client, ("nas", "client2")), (client2, ("nas", "client"))):
            for peer in peers:
                result = h.run(["ping", "-c", "1", "-W", "5", LAB_IPS[peer]], check=False)
                assert result.exit_status == 0, f"{h.label} cannot reach {peer}: {result.stdout}{result.stderr}"
        route = client2.run(["ip", "-o", "route", "get", LAB_IPS["client"]]).stdout
        assert re.search(r"\bdev eth1\b", route) and " via " not in route


def test_a_file_written_by_one_client_is_read_by_the_other(lab3: LabConfig) -> None:
    mount = "/mnt/lab-clients-test"
    with host(lab3, "client") as client, host(lab3, "client2") as client2, host(lab3, "nas") as nas:
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


def test_cli_status_and_ssh_reach_a_further_client(lab3: LabConfig) -> None:
    env = os.environ | {"XDG_STATE_HOME": str(lab3.state_dir.parent.parent)}
    st = subprocess.run([sys.executable, "-m", "nfstune", "lab", "status"], capture_output=True, text=True, env=env)
    assert st.returncode == 0, st.stdout + st.stderr
    assert re.search(rf"^client2\s+127\.0\.0\.1:{lab3.port('client2')}\s+pid \d+\s+ok", st.stdout, re.M)
    assert len(re.findall(r"^(nas|client\d?) .* \(RDMA: rxe0\)$", st.stdout, re.M)) == 4, st.stdout  # `--rdma`
    ssh = subprocess.run(
        [sys.executable, "-m", "nfstune", "lab", "ssh", "client2", "hostname"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert (ssh.returncode, ssh.stdout.strip()) == (0, "client2"), ssh.stderr


def test_a_second_up_with_another_client_count_is_refused(lab3: LabConfig) -> None:
    from nfstune.lab import LabError

    for clients in (1, MAX_CLIENTS):
        with pytest.raises(LabError, match="already running"):
            again = LabConfig(state_dir=lab3.state_dir, cache_dir=lab3.cache_dir, clients=clients, release=lab3.release)
            up(again, lambda _m: None)
    assert [st.name for st in status(lab3)] == ["nas", "client", "client2", "client3"]


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


def test_a_fio_server_left_by_a_crash_is_stopped_at_the_next_connect(lab3: LabConfig, tmp_path: Path) -> None:
    store = tmp_path / "nfstune.sqlite3"
    with host(lab3, "client2") as c2:
        start_server(c2, Transaction(Journal(open_store(store)), lambda _m: None), LAB_IPS["client2"], 8799)
        assert "8799" in c2.run(FIO_SERVERS).stdout
    # a fresh process, a fresh store connection: only the journal on disk knows
    with host(lab3, "client2") as c2:
        undone = recover_on_connect([c2], Journal(open_store(store)), lambda _m: None)
        assert [e.kind for e in undone] == ["process"]
        assert c2.run(FIO_SERVERS).stdout == ""
        assert "nfstune-fio-server" not in c2.run("ls -A /var/tmp").stdout


def test_a_taken_port_is_an_error_naming_the_host_and_nothing_stays(lab3: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    tx = Transaction(journal, lambda _m: None)
    with host(lab3, "client") as c1:
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


def test_clients_write_and_read_at_once_and_a_cancel_leaves_no_fio(lab3: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    log: list[str] = []
    tx = Transaction(journal, log.append)
    cancel = threading.Event()
    with host(lab3, "nas") as nas, host(lab3, "client") as c1, host(lab3, "client2") as c2:
        clients = {"client": c1, "client2": c2}
        try:
            load = serve_and_mount(clients, nas, tx)
            runner = ClientsRunner(nas, tx, cancel=cancel, log=log.append)
            alone = runner.run(WorkloadId.SEQ_WRITE, SIZES, load[:1], "/export")
            together = runner.run(WorkloadId.SEQ_WRITE, SIZES, load, "/export")
            read = runner.run(WorkloadId.SEQ_READ, SIZES, load, "/export")
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
                runner.run(WorkloadId.SEQ_WRITE, replace(SIZES, seq_file_bytes=1024 * MIB), load, "/export")
        finally:
            tx.undo(announce=True)
        for c in clients.values():
            assert c.run("pgrep -ax fio || true").stdout == "", f"{c.label}: fio still runs"
            assert "nfstune" not in c.run("ls -A /var/tmp").stdout
        assert nas.run("ls -A /export").stdout.split() == ["lost+found"]
    assert journal.pending() == []


def test_a_server_that_cannot_bind_says_why_and_is_undone(lab3: LabConfig, tmp_path: Path) -> None:
    journal = Journal(open_store(tmp_path / "nfstune.sqlite3"))
    tx = Transaction(journal, lambda _m: None)
    with host(lab3, "client") as c1:
        try:
            # an address of the lab's network that this client does not have: fio's bind fails and fio exits
            with pytest.raises(ChangeFailed, match=r"lab client .*10\.99\.0\.9:8797 stopped at once: .*\S"):
                start_server(c1, tx, "10.99.0.9", 8797)
        finally:
            tx.undo()
        assert c1.run(FIO_SERVERS).stdout == ""
        assert "nfstune" not in c1.run("ls -A /var/tmp").stdout
    assert journal.pending() == []


# --- the many-clients recipe, end to end --------------------------------------------------------------------------

# The shipped recipe cut to what the CI's time allows (a user recipe of the same id replaces it): 1, 2 and 3
# clients under sync, sync-4k only, two rounds; the full recipe is the same code (the thread count's change is
# tested on its own in test_changes.py).
SHORT_MANY_CLIENTS = """\
id = "many-clients"
title = "many clients at once (short)"
summary = "The shipped many-clients recipe, cut for the lab test."
why = "To run every step of a session from several clients in the CI's time."
changes_host = "server"
workloads = ["sync-4k"]
baseline = "1 client, sync"
never_recommend = true
warning = "Every client of this export shares it with the test while it runs."

[rounds]
min = 2
max = 2
warmup = 0

[[configs]]
label = "1 client, sync"
clients = 1
export = { set = ["sync"] }

[[configs]]
label = "2 clients, sync"
clients = 2
export = { set = ["sync"] }

[[configs]]
label = "3 clients, sync"
clients = 3
export = { set = ["sync"] }
"""
# what must be byte-identical after a session, per host: the NFS configuration, the running thread count, the
# exports and mounts in force, and what nfstune leaves in /var/tmp, the export and the process list
STATE = (
    "cat /etc/exports /etc/nfs.conf /etc/fstab 2>&1; ls -A /etc/exports.d 2>&1; cat /proc/fs/nfsd/threads 2>&1; "
    "exportfs -v 2>&1; grep -v rpc_pipefs /proc/mounts; ls -A /var/tmp; ls -A /export 2>&1; pgrep -ax fio || true"
)


def test_many_clients_runs_from_three_clients_and_leaves_every_host_as_it_was(lab3: LabConfig, tmp_path: Path) -> None:
    names = ["nas", "client", "client2", "client3"]
    with contextlib.ExitStack() as stack:
        hosts = {name: stack.enter_context(host(lab3, name)) for name in names}
        before = {name: h.run(STATE, sudo=True).stdout for name, h in hosts.items()}
    data = tmp_path / "data"
    (data / "nfstune" / "recipes").mkdir(parents=True)
    (data / "nfstune" / "recipes" / "many-clients.toml").write_text(SHORT_MANY_CLIENTS)
    env = os.environ | {"XDG_STATE_HOME": str(lab3.state_dir.parent.parent), "XDG_DATA_HOME": str(data)}

    nfstune = nfstune_in(env, timeout=1500)

    run = nfstune("run", "--lab", "--recipe", "many-clients", "--no-ceilings", "--yes")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert "probing lab nas" in out and "client3" in out
    # the recipe's warning is said before anything changes
    warned = out.index("warning (many-clients): Every client of this export shares it with the test while it runs.")
    assert warned < out.index("starting fio's server"), out[:3000]
    assert len(re.findall(r"starting fio's server on 10\.99\.0\.\d:8765", out)) == 3
    # every repeat from three clients names all three and the figure they got together
    assert re.search(
        r"3 clients, sync sync-4k round 2: [\d.]+ ms together \(client [\d.]+ MB/s, "
        r"client2 [\d.]+ MB/s, client3 [\d.]+ MB/s\)",
        out,
    )
    with contextlib.ExitStack() as stack:
        hosts = {name: stack.enter_context(host(lab3, name)) for name in names}
        after = {name: h.run(STATE, sudo=True).stdout for name, h in hosts.items()}
    for name in names:
        assert after[name] == before[name], f"{name} differs after the session"

    session = re.search(r"^session (\d+): completed$", out, re.M)
    assert session is not None, out[-2000:]
    report = nfstune("report", session.group(1))
    assert report.returncode == 0, report.stderr
    html = nfstune("report", session.group(1), "--html", str(tmp_path / "report.html"))
    assert html.returncode == 0, html.stderr
    assert "several clients at once" in report.stdout
    for count in (1, 2, 3):
        assert re.search(rf"^  {count} clients?, sync +median", report.stdout, re.M), report.stdout
    assert re.search(
        r"3 clients, sync: each client MB/s: client [\d.]+, client2 [\d.]+, client3 [\d.]+; "
        r"slowest/fastest",
        report.stdout,
    )
    # each step judged against the count before it (whatever the verdict, its text names both)
    assert re.search(r"3 clients at once (is .* than|against) 2 clients at once", report.stdout), report.stdout
    page = (tmp_path / "report.html").read_text()
    assert "<h2>Several clients at once</h2>" in page and "client3" in page


# --- the NAS on Debian trixie ---------------------------------------------------------------------------------

# the shipped transport recipe on one workload, 2 rounds, no warm-up, small files: every configuration, the rdma
# one's listener on the NAS and the restart that removes it
TRANSPORT = (
    (paths.recipes_dir() / "transport.toml")
    .read_text()
    .replace('workloads = ["seq-write", "seq-read", "sync-4k"]', 'workloads = ["seq-write"]')
    .replace("[rounds]\nmin = 3\nmax = 8", "[rounds]\nmin = 2\nmax = 2\nwarmup = 0")
)
assert TRANSPORT.count("seq-write") == 1 and "warmup = 0" in TRANSPORT

SNAPSHOT = (
    "sha256sum /etc/exports /etc/nfs.conf; exportfs -s; ls -A /export /etc/exports.d 2>&1; cat /proc/fs/nfsd/threads; "
    "cat /proc/fs/nfsd/portlist"
)


def test_the_probe_reads_a_trixie_nas_beside_a_bookworm_client(lab3: LabConfig) -> None:
    with host(lab3, "nas") as nas_host, host(lab3, "client") as client_host:
        nas = probe(nas_host, path="/export", peer=LAB_IPS["client"])
        client = probe(client_host, peer=LAB_IPS["nas"])
    assert (nas.os_id, nas.os_version_id) == ("debian", "13") and (client.os_id, client.os_version_id) == (
        "debian",
        "12",
    )
    assert nas.kernel is not None and nas.kernel.startswith("6.12.")
    assert nas.nfs_utils_version is not None and nas.nfs_utils_version.startswith("2.8.")
    assert "nfsdctl" in nas.tools and nas.nfs_server_active
    assert nas.nfsd_threads == 16  # nfs-utils 2.8's default (bookworm's is 8)
    assert nas.nfsd_versions_enabled is not None and {"3", "4.2"} <= nas.nfsd_versions_enabled


def test_transport_runs_nfs_over_soft_roce_on_trixie_and_the_restart_removes_the_listener(
    lab3: LabConfig, tmp_path: Path
) -> None:
    (tmp_path / "transport.toml").write_text(TRANSPORT)
    recipe, errors = load_recipe_file(tmp_path / "transport.toml")
    assert errors == [] and recipe is not None
    sizes = WorkloadSizes(seq_file_bytes=32 * MIB, small_file_count=30, small_file_bytes=4096, sync_4k_count=50)
    ran = run_session(lab3, recipe, tmp_path, sizes=sizes, seed=3, snapshot=SNAPSHOT)
    assert (ran.facts["rdma_both"], ran.facts["rdma_software"]) == (True, True)  # `--rdma`: soft-RoCE on both
    assert "rdma 20049" not in ran.before
    # nfsd's listeners, exports, nfs.conf and threads as they were: the restart put back the server as it runs
    assert ran.after == ran.before and "/mnt/nfstune/" not in ran.client_mounts and ran.journal.pending() == []
    journaled = open_store(tmp_path / "s.sqlite3").execute("SELECT kind, target, state FROM journal").fetchall()
    assert [tuple(row) for row in journaled if row[0] == "listener"] == [("listener", "rdma 20049", "restored")]
    logs = [e.message for e in ran.events if e.kind == "log"]
    assert any("nfsd listens for RDMA on port 20049" in m for m in logs), logs
    assert any("undone: nfsd's rdma 20049 listener removed (the NFS server restarted)" in m for m in logs), logs
    # the listener, as every change of the session, ran as the plan showed it (issue 27)
    ran_changes = assert_plan_ran(ran.plan, ran.sent)
    assert sum("rdma 20049 > /proc/fs/nfsd/portlist" in s.line for s in ran_changes) == 1
    data = ran.results.session(ran.session_id)
    assert data["status"] == "completed"
    runs = {run["config_label"]: run for run in data["runs"]}
    assert set(runs) == {"tcp", "tcp, nconnect=4", "rdma"}
    negotiated = {label: run["negotiated_options"] for label, run in runs.items()}
    assert "proto=rdma" in negotiated["rdma"] and "port=20049" in negotiated["rdma"], negotiated
    assert "proto=tcp" in negotiated["tcp"] and "nconnect=4" in negotiated["tcp, nconnect=4"], negotiated
    assert all(len([r for r in run["repeats"] if not r["warmup"]]) == 2 for run in runs.values())
    speeds = {label: [r["mb_per_s"] for r in run["repeats"]] for label, run in runs.items()}
    print("seq-write MB/s by round on the trixie NAS:", speeds)


def test_a_listener_left_by_a_crash_is_removed_at_the_next_connect(lab3: LabConfig, tmp_path: Path) -> None:
    conn = open_store(tmp_path / "s.sqlite3")
    with host(lab3, "nas") as nas:
        threads = nas.run("cat /proc/fs/nfsd/threads").stdout
        assert add_rdma_listener(nas, Transaction(Journal(conn), print), 20049)
        assert "rdma 20049" in nas.run("cat /proc/fs/nfsd/portlist").stdout
        # the run dies here: no undo; the next nfstune finds the journal entry when it connects
    with host(lab3, "nas") as nas:
        undone = recover_on_connect([nas], Journal(open_store(tmp_path / "s.sqlite3")), print)
        assert [(e.kind, e.target) for e in undone] == [("listener", "rdma 20049")]
        assert "rdma" not in nas.run("cat /proc/fs/nfsd/portlist").stdout
        assert nas.run("cat /proc/fs/nfsd/threads").stdout == threads
        assert nas.run("systemctl is-active nfs-server", check=False).stdout.strip() == "active"
