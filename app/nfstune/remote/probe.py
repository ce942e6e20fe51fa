"""Read a host's facts in one SSH round trip: one POSIX sh script, sections between markers, parsed here.

Every part of the script tolerates a missing file or tool (it prints an empty section) and nothing in it needs
root: what root alone may read (/proc/fs/nfsd/threads and versions) is reported in HostFacts.unreadable, and the
thread count then comes from the world-readable /proc/net/rpc/nfsd instead. Likewise the firewall's rules
(firewalld's zone settings, ufw's user.rules) are read only by a root login; any login sees whether one is on.
"""

from __future__ import annotations

import ipaddress

from nfstune.errors import NfstuneError
from nfstune.facts.appliance import APPLIANCE_MARKERS
from nfstune.facts.model import HostFacts
from nfstune.facts.probe_output import SECTION_MARK, UNREADABLE, parse_probe_output
from nfstune.facts.selinux import EXPORT_BOOLEANS
from nfstune.remote.errors import CommandFailed
from nfstune.remote.host import Host
from nfstune.shell_text import sh_line

# Tools whose presence is reported (HostFacts.tools); sbin directories are added to PATH first, because an
# ordinary login on Debian has no /usr/sbin in PATH and exportfs, tc and friends live there.
# nfsdctl: how nfs-utils 2.7 and later (Debian trixie) start and configure the server, beside rpc.nfsd.
CHECKED_TOOLS = (
    "exportfs",
    "showmount",
    "nfsstat",
    "mount.nfs",
    "tc",
    "dmsetup",
    "sudo",
    "fio",
    "iperf3",
    "ip",
    "findmnt",
    "lsblk",
    "systemctl",
    "mkfs.ext4",
    "mkfs.xfs",
    "mkfs.btrfs",
    "rpc.nfsd",
    "nfsdctl",
)

_PRELUDE = r"""
set -f
PATH="$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/syno/sbin:/usr/syno/bin"
LC_ALL=C
export PATH LC_ALL
s() { printf '\n%s %s\n' '__MARK__' "$1"; }
has() { command -v "$1" >/dev/null 2>&1; }
rd() { if [ -r "$1" ]; then cat "$1" 2>/dev/null; elif [ -e "$1" ]; then echo '__UNREADABLE__'; fi; }
T=
timeout 10 true >/dev/null 2>&1 && T='timeout 10'
"""

# Each line prints one section; stderr is dropped everywhere and no line depends on an earlier one succeeding.
_BODY = r"""
s format; echo 1
s path; printf '%s\n' "$p"
s peer; printf '%s\n' "$peer"
f=/etc/os-release
[ -e "$f" ] || f=/usr/lib/os-release
s os-release; cat "$f" 2>/dev/null
s hostname; uname -n 2>/dev/null
s kernel; uname -r 2>/dev/null
s arch; uname -m 2>/dev/null
s uid; id -u 2>/dev/null
s cpus; nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || grep -c '^processor' /proc/cpuinfo 2>/dev/null
s memtotal; grep '^MemTotal:' /proc/meminfo 2>/dev/null
s nfsd-threads; rd /proc/fs/nfsd/threads
s nfsd-th; grep '^th ' /proc/net/rpc/nfsd 2>/dev/null
s nfsd-max-block-size; rd /proc/fs/nfsd/max_block_size
s nfsd-versions; rd /proc/fs/nfsd/versions
s nfsd-portlist; rd /proc/fs/nfsd/portlist
s rdma
for n in $(ls /sys/class/infiniband 2>/dev/null); do
  d=/sys/class/infiniband/$n
  k=hardware; [ -e "$d/parent" ] && k=software
  echo "$n $k $(tr -d ' ' < "$d/ports/1/state" 2>/dev/null)"
done
s nfs-server; has systemctl && $T systemctl is-active nfs-server 2>/dev/null
s dpkg; has dpkg-query && dpkg-query -W -f '${Package}\t${Version}\t${db:Status-Abbrev}\n' \
  nfs-kernel-server nfs-common 2>/dev/null
s rpm; has rpm && rpm -q --qf '%{NAME}\t%{VERSION}\n' nfs-utils 2>/dev/null
s mount-nfs; has mount.nfs && mount.nfs -V 2>&1
a=$addr
[ -z "$a" ] && [ -n "$peer" ] && has getent && a=$(getent ahosts "$peer" 2>/dev/null | { read -r x _; echo "$x"; })
s peer-address; printf '%s\n' "$a"
r=
[ -n "$a" ] && has ip && r=$(ip -o route get "$a" 2>/dev/null || ip route get "$a" 2>/dev/null)
s route; printf '%s\n' "$r"
dev=
set -- $r
while [ $# -gt 1 ]; do [ "$1" = dev ] && dev=$2; shift; done
s nic-speed; [ -n "$dev" ] && cat "/sys/class/net/$dev/speed" 2>/dev/null
s nic-mtu; [ -n "$dev" ] && cat "/sys/class/net/$dev/mtu" 2>/dev/null
s nic-driver; [ -n "$dev" ] && readlink "/sys/class/net/$dev/device/driver" 2>/dev/null
s firewalld
if has firewall-cmd && [ "$($T firewall-cmd --state 2>/dev/null)" = running ]; then
  echo 'state running'
  z=
  [ -n "$dev" ] && z=$($T firewall-cmd --get-zone-of-interface="$dev" 2>/dev/null)
  [ -z "$z" ] && z=$($T firewall-cmd --get-default-zone 2>/dev/null)
  echo "zone $z"
  [ -n "$z" ] && $T firewall-cmd --zone="$z" --list-all 2>/dev/null
fi
s ufw-conf; rd /etc/ufw/ufw.conf
s ufw-default; [ -e /etc/ufw/ufw.conf ] && rd /etc/default/ufw
s ufw-rules; [ -e /etc/ufw/ufw.conf ] && rd /etc/ufw/user.rules
s selinux; if has getenforce; then getenforce 2>/dev/null; else cat /sys/fs/selinux/enforce 2>/dev/null; fi
s selinux-booleans; has getsebool && getsebool __BOOLEANS__ 2>/dev/null
s selinux-label; [ -n "$p" ] && [ -e /sys/fs/selinux/enforce ] && ls -Zd "$p" 2>/dev/null
s findmnt; [ -n "$p" ] && has findmnt && $T findmnt -P -o SOURCE,FSTYPE,TARGET,OPTIONS --target "$p" 2>/dev/null
s df; [ -n "$p" ] && { $T df -P -T -B1 "$p" 2>/dev/null || $T df -P -k "$p" 2>/dev/null; }
src=
[ -n "$p" ] && has findmnt && src=$($T findmnt -n -o SOURCE --target "$p" 2>/dev/null)
[ -z "$src" ] && [ -n "$p" ] && src=$($T df -P "$p" 2>/dev/null | { read -r _; read -r x _; echo "$x"; })
src=${src%%\[*}
s lsblk; case "$src" in /dev/*) has lsblk && $T lsblk -P -s -o NAME,TYPE,ROTA,MODEL "$src" 2>/dev/null;; esac
s fio; has fio && fio --version 2>/dev/null
s iperf3; has iperf3 && iperf3 --version 2>/dev/null | { read -r l; echo "$l"; }
s tools; for t in __TOOLS__; do w=$(command -v "$t" 2>/dev/null) && echo "$t $w"; done
s markers
for f in __EXISTS__; do [ -e "$f" ] && echo "exists $f"; done
for c in __COMMANDS__; do w=$(command -v "$c" 2>/dev/null) && echo "command $c $w"; done
for f in __LINES__; do
  [ -f "$f" ] && [ -r "$f" ] || continue
  n=0
  while [ $n -lt 20 ] && IFS= read -r l; do echo "line $f $l"; n=$((n+1)); done < "$f"
done
s end
"""


def _markers(kind: str) -> str:
    return " ".join(dict.fromkeys(subject for k, subject, _, _ in APPLIANCE_MARKERS if k == kind))


def build_probe_script(path: str | None = None, peer: str | None = None) -> str:
    """The probe as one sh script. `path` (absolute) selects the filesystem to describe, `peer` (an address or a
    name the host can resolve) the route and NIC to describe."""
    if path is not None and not path.startswith("/"):
        raise NfstuneError(f"the path to probe must be absolute: {path!r}")
    if peer is not None and (not peer.strip() or peer.startswith("-") or any(c.isspace() for c in peer)):
        raise NfstuneError(f"not a peer address or host name: {peer!r}")
    try:
        address = str(ipaddress.ip_address(peer)) if peer else ""
    except ValueError:
        address = ""  # a name: resolved on the host, as the host itself would resolve it
    values = sh_line("p={p}; peer={peer}; addr={addr}\n", p=path or "", peer=peer or "", addr=address)
    prelude = _PRELUDE.replace("__MARK__", SECTION_MARK).replace("__UNREADABLE__", UNREADABLE)
    body = (
        _BODY.replace("__TOOLS__", " ".join(CHECKED_TOOLS))
        .replace("__EXISTS__", _markers("exists"))
        .replace("__COMMANDS__", _markers("command"))
        .replace("__LINES__", _markers("line"))
        .replace("__BOOLEANS__", " ".join(EXPORT_BOOLEANS))
    )
    return prelude.lstrip() + values + body.lstrip()


def probe(host: Host, *, path: str | None = None, peer: str | None = None, timeout: float = 60.0) -> HostFacts:
    """One SSH command, never with sudo. Raises CommandFailed only when the shell produced no probe output at all
    (a missing fact is None, not an error)."""
    result = host.run(build_probe_script(path, peer), timeout=timeout, check=False)
    if f"{SECTION_MARK} format" not in result.stdout:
        raise CommandFailed(host.label, "nfstune host probe", result.exit_status, result.stderr)
    return parse_probe_output(result.stdout)
