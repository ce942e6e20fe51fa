"""A NAS nfstune cannot log in to (an appliance with SSH off, a login without root), seen from the client alone:
the shares it exports (`showmount -e`; a server that serves NFSv4 only answers no MOUNT requests, so the share
the admin named stands alone) and the NFS versions it serves, found by mounting the share with each in turn. What
the client cannot see (the server's memory, disks, threads, system) stays unknown: None in its HostFacts.

The trial mounts last one command: each is made on a temporary mount point and unmounted before the next, and the
command's own trap unmounts and removes the point however it ends, so nothing is left for a journal to undo."""

from __future__ import annotations

from nfstune.facts.model import HostFacts
from nfstune.nfs.mounts import mount_source
from nfstune.remote import Host
from nfstune.shell_text import sh_line

# most recent first, as mount.nfs names them
TRIED_VERSIONS = ("4.2", "4.1", "4.0", "3")

NO_LOGIN_NOTES = (
    "nfstune cannot log in to the server: nothing is changed or run there. Only what the client decides is "
    "compared (mount options, read-ahead, the NFS version, the transport); every configuration that changes the "
    "server is skipped with where to change it yourself",
    "the server's page cache cannot be dropped: a read may come from the server's memory rather than its disks. "
    "Every configuration reads the same file in the same round, so they are compared on the same footing; the "
    "read figures say what the client and the network do, not what the server's disks can do",
    "no server disk ceiling (neither its rate nor its synchronous write latency) and no network ceiling but the "
    "round trip (iperf3 needs a login on the server; ping runs on the client alone), and no server samples",
)


# said where a login on the NAS has no root: that counts as no login
NO_ROOT_HINT = (
    "Without root on the NAS, the client-side questions can still be answered from the client alone: "
    "`nfstune run --no-server-login`, or tick \u201cI cannot log in to this NAS\u201d on the Connect page"
)


def no_login_label(address: str) -> str:
    return f"{address} (no login)"


def versions_script(address: str, share: str) -> str:
    """Mount `share` with each version in turn (once, no retries) and say which mounted: `vers 4.2 yes`, or
    `vers 3 no <mount's message>`."""
    return sh_line(
        "m=$(mktemp -d /tmp/nfstune-versions.XXXXXX) || exit 1; "
        """gone() {{ umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; rmdir "$m" 2>/dev/null; }}; """
        "trap gone EXIT; trap 'gone; exit 1' HUP INT TERM; "
        "for v in {versions}; do "
        'if out=$(mount -t nfs -o nosharecache,vers=$v,retry=0 {source} "$m" 2>&1); then '
        'echo "vers $v yes"; umount "$m" || umount -l "$m"; '
        """else echo "vers $v no $(printf '%s' "$out" | tr '\\n' ' ')"; fi; done""",
        versions=TRIED_VERSIONS,
        source=mount_source(address, share),
    )


def parse_versions(output: str) -> tuple[frozenset[str], dict[str, str]]:
    """(the versions that mounted; why each other one did not), by mount.nfs's names."""
    served: set[str] = set()
    refused: dict[str, str] = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        version, _, rest = rest.partition(" ")
        answer, _, why = rest.partition(" ")
        if word != "vers" or version not in TRIED_VERSIONS:
            continue
        if answer == "yes":
            served.add(version)
        else:
            refused[version] = why.strip()
    return frozenset(served), refused


def as_nfsd_versions(served: frozenset[str], refused: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """What /proc/fs/nfsd/versions would say (kernel_view.offered_versions reads it): "+4" for any 4.x, and 4.0 only
    as "-4.0" when it is off."""
    enabled = {v for v in served if v != "4.0"} | ({"4"} if any(v.startswith("4") for v in served) else set())
    return frozenset(enabled), refused


def parse_showmount(output: str) -> list[str]:
    """The exported paths of `showmount -e --no-headers` ("/srv/data 192.168.1.0/24,host"), in its order."""
    paths = []
    for line in output.splitlines():
        if line.startswith("/"):
            path = line.rsplit(None, 1)[0] if len(line.split()) > 1 else line.strip()
            paths.append(path.rstrip())
    return list(dict.fromkeys(paths))


def nas_exports(client: Host, address: str) -> list[str] | None:
    """What `showmount -e` on the client lists; None when the server does not answer it (NFSv4 only, rpcbind
    blocked) or showmount is missing."""
    result = client.run(["showmount", "-e", "--no-headers", address], check=False, timeout=60)
    return parse_showmount(result.stdout) if result.exit_status == 0 else None


def nas_facts(client: Host, address: str, share: str) -> HostFacts:
    """The server as the client sees it: its name, and the versions it serves `share` with (None: none mounted,
    with nfs_server_state saying why)."""
    result = client.run(versions_script(address, share), sudo=True, check=False, timeout=600)
    return facts_seen(address, result.stdout, result.stderr)


def facts_seen(address: str, tried: str, stderr: str = "") -> HostFacts:
    """The server's facts from the trial mounts' output (versions_script): what is not seen from the client is
    None."""
    served, refused = parse_versions(tried)
    why = "; ".join(f"vers={v}: {text}" for v, text in sorted(refused.items()) if text)
    enabled, disabled = as_nfsd_versions(served, frozenset(refused))
    return HostFacts(
        complete=bool(served or refused),
        hostname=address,
        os_id=None,
        os_version_id=None,
        os_pretty_name=None,
        kernel=None,
        architecture=None,
        uid=None,
        cpu_count=None,
        mem_total_bytes=None,
        nfs_utils_version=None,
        nfs_utils_source=None,
        # systemd's word on the server stands for "it serves NFS"; from the client, a mount that worked says so
        nfs_server_state="active" if served else f"not mountable from the client ({why or stderr.strip()})",
        nfsd_threads=None,
        nfsd_max_block_size=None,
        nfsd_versions_enabled=enabled if served else None,
        nfsd_versions_disabled=disabled if served else None,
        nfsd_listeners=None,
        rdma_devices=(),
        route=None,
        filesystem=None,
        fio_version=None,
        iperf3_version=None,
        tools=frozenset(),
        appliance=None,
        appliance_evidence=(),
        unreadable=(),
        firewall=None,  # not seen from the client: a firewall in the way shows as a mount that failed
        selinux=None,
    )
