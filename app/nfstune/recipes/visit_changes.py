"""What a configuration changes on the hosts for each visit, and what a session changes once: the lists of host
changes (changes/host_change.py) the plan shows and the engine applies, in their order. Decided here only."""

from __future__ import annotations

from collections.abc import Sequence

from nfstune.bench.clients_runner import JOB_PREFIX as CLIENTS_JOB_PREFIX
from nfstune.bench.sizing import files_bytes
from nfstune.bench.workloads import SMALL_FILES_TAR, WorkloadSizes
from nfstune.changes.fio_server import FioServerOn
from nfstune.changes.host_change import HostChange, client_name
from nfstune.changes.isolated import ScratchFilesystem, export_options, scratch_size_mib
from nfstune.changes.mount import ClientDirectory, Mount, ReadAhead, ScratchDirectory
from nfstune.changes.nfs_scratch import ScratchOverNfs
from nfstune.changes.nfsd_listener import RdmaListener
from nfstune.changes.nfsd_threads import NfsdThreads
from nfstune.changes.share_export import ExportOptions
from nfstune.changes.tempfile import Tempfile
from nfstune.recipes.model import Config


def visit_changes(config: Config, largest: WorkloadSizes) -> tuple[HostChange, ...]:
    """A visit of `config`: a scratch filesystem (made for the `largest` sizes growth may reach) or the export's
    options, nfsd's threads, the mount on every client it runs from and each one's own directory, the read-ahead."""
    changes: list[HostChange] = []
    if config.filesystem is not None:
        size = scratch_size_mib(files_bytes(largest), config.filesystem)
        changes.append(ScratchFilesystem(config.filesystem, export_options(config.export.set), size))
    elif config.export:
        changes.append(ExportOptions(config.export))
    if config.nfsd_threads is not None:
        changes.append(NfsdThreads(config.nfsd_threads))
    options = config.mount.render()
    names = [client_name(k) for k in range(1, (config.clients or 0) + 1)]
    changes.append(Mount(options))
    changes += [Mount(options, name) for name in names[1:]]  # the further clients mount it as the first does
    changes += [ClientDirectory(name) for name in names]
    if config.read_ahead_kb is not None:
        changes.append(ReadAhead(config.read_ahead_kb))
    return tuple(changes)


def session_changes(
    configs: Sequence[Config], visits: Sequence[tuple[Config, Sequence[str]]], *, server_login: bool
) -> tuple[HostChange, ...]:
    """What a session changes once, before the first recipe, undone at its end: the scratch directory in the export
    (made by the client over NFS without a login on the server), the small-files tar on the client (made by the
    workload's own prepare step), nfsd's RDMA listeners, fio's server on each client that several-client
    configurations load the server from, and each client's fio job file on the first client. `visits`: each
    visit's configuration and its workloads."""
    changes: list[HostChange] = [ScratchDirectory() if server_login else ScratchOverNfs()]
    if any("small-files" in workloads for _, workloads in visits):
        changes.append(Tempfile("client", SMALL_FILES_TAR))
    changes += [RdmaListener(port) for port in sorted({c.rdma_port for c in configs if c.rdma_port is not None})]
    most = max((c.clients or 0 for c in configs), default=0)
    changes += [FioServerOn(client_name(number)) for number in range(1, most + 1)]
    jobs = dict.fromkeys(
        f"{CLIENTS_JOB_PREFIX}{client_name(k)}.fio" for config, _ in visits for k in range(1, (config.clients or 0) + 1)
    )
    changes += [Tempfile("client", job) for job in jobs]
    return tuple(changes)
