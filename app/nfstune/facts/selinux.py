"""SELinux on an NFS server (Fedora, RHEL and its rebuilds), as the probe reads it without root. Pure.

Why it matters to nfstune: a scratch export it makes (isolated mode, the filesystems recipe) is a new filesystem
on a new directory, and rpc.mountd runs confined (nfsd_t; nfsd_selinux(8)). The policy lets nfsd_t read and
export any ordinary file type only while the booleans nfs_export_all_ro / nfs_export_all_rw are on
(fedora-selinux/selinux-policy policy/modules/contrib/rpc.te, `tunable_policy(nfs_export_all_ro', ...)`); they are
on in Fedora's and RHEL's targeted policy, and an admin who turned them off labels each export by hand
(public_content_t / public_content_rw_t), which nfstune's scratch export would not be.
`getenforce`, `getsebool` and `ls -Z` need no root: /sys/fs/selinux/enforce and booleans/* are world-readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXPORT_BOOLEANS = ("nfs_export_all_ro", "nfs_export_all_rw")


@dataclass(frozen=True)
class SelinuxFacts:
    mode: str  # "enforcing", "permissive" or "disabled"
    export_all_ro: bool | None  # getsebool nfs_export_all_ro; None when unknown
    export_all_rw: bool | None
    share_label: str | None  # `ls -Zd` of the probed path: "system_u:object_r:nfs_t:s0"

    @property
    def share_type(self) -> str | None:
        """The type of the share's label ("nfs_t"), its third field."""
        parts = (self.share_label or "").split(":")
        return parts[2] if len(parts) >= 3 else None


def parse_selinux(mode: str, booleans: str, label: str) -> SelinuxFacts | None:
    """`getenforce` (Enforcing / Permissive / Disabled; or /sys/fs/selinux/enforce's 1 / 0), `getsebool NAME...`
    ("nfs_export_all_ro --> on") and `ls -Zd PATH` ("CONTEXT PATH"). None without SELinux (no getenforce and no
    selinuxfs: Debian, Ubuntu)."""
    word = mode.strip().split()[0].lower() if mode.strip() else ""
    state = {"enforcing": "enforcing", "1": "enforcing", "permissive": "permissive", "0": "permissive"}.get(word)
    if state is None and word != "disabled":
        return None
    values = dict(re.findall(r"^(\w+)\s+-->\s+(on|off)\b", booleans, re.MULTILINE))
    ro, rw = ({"on": True, "off": False}.get(values.get(name, "")) for name in EXPORT_BOOLEANS)
    context = label.split()[0] if label.split() else ""
    return SelinuxFacts(
        state or "disabled", ro, rw, context if re.fullmatch(r"[\w.-]+:[\w.-]+:[\w.-]+(:\S+)?", context) else None
    )
