"""NAS appliances, which own their NFS configuration: how the probe's markers name one, and where its own UI sets
what nfstune would otherwise write into /etc/exports. Pure."""

from __future__ import annotations

# Appliance markers: (kind, subject, vendor, needle). The script prints `exists PATH`, `command NAME PATH` or
# `line PATH FIRST-LINE` for what it finds; a line counts for the vendor when it contains the needle.
TRUENAS, OPENMEDIAVAULT, SYNOLOGY, QNAP, UNRAID = "TrueNAS", "OpenMediaVault", "Synology DSM", "QNAP", "Unraid"
APPLIANCE_MARKERS: tuple[tuple[str, str, str, str], ...] = (
    ("line", "/etc/version", TRUENAS, "truenas"),  # CORE: "TrueNAS-13.0-U6.1 (...)"
    ("line", "/etc/version", TRUENAS, "freenas"),
    ("exists", "/data/freenas-v1.db", TRUENAS, ""),  # the middleware's configuration database
    ("command", "midclt", TRUENAS, ""),
    ("exists", "/etc/openmediavault", OPENMEDIAVAULT, ""),
    ("command", "omv-confdbadm", OPENMEDIAVAULT, ""),
    ("exists", "/etc/synoinfo.conf", SYNOLOGY, ""),
    ("line", "/etc.defaults/VERSION", SYNOLOGY, "productversion"),
    ("command", "synopkg", SYNOLOGY, ""),
    ("exists", "/etc/config/qpkg.conf", QNAP, ""),
    ("exists", "/etc/platform.conf", QNAP, ""),
    ("command", "getcfg", QNAP, ""),
    ("line", "/etc/unraid-version", UNRAID, ""),
)


def detect_appliance(markers: str) -> tuple[str | None, tuple[str, ...]]:
    """(the vendor with the most markers found, or None; every marker found, as words)."""
    found: list[tuple[str, str]] = []  # (vendor, evidence)
    for line in markers.splitlines():
        kind, _, rest = line.partition(" ")
        subject, _, detail = rest.partition(" ")
        for m_kind, m_subject, vendor, needle in APPLIANCE_MARKERS:
            if (kind, subject) == (m_kind, m_subject) and needle in detail.lower():
                words = {"exists": f"{subject} exists", "command": f"{subject} is in PATH ({detail.strip()})"}
                found.append((vendor, words.get(kind, f"{subject} says {detail.strip()!r}")))
    votes = [vendor for vendor, _ in found]
    order = [vendor for _, _, vendor, _ in APPLIANCE_MARKERS]
    best = max(votes, key=lambda v: (votes.count(v), -order.index(v)), default=None)
    return best, tuple(dict.fromkeys(evidence for _, evidence in found))


# Where each appliance's own UI sets what nfstune would otherwise set by adding `async` to /etc/exports (their
# middleware writes /etc/exports from its own configuration: openmediavault's file says "your changes will get
# lost", so an edit by hand does not last). Sources:
# - Synology: DSM help "Assign NFS Permissions" (synology.com/en-global/knowledgebase/DSM/help/DSM/AdminCenter/
#   file_share_privilege_nfs): Control Panel > Shared Folder > Edit > NFS Permissions > Create/Edit an NFS rule;
#   the rule's checkbox is "Enable asynchronous" in the DSM 3.1-4.2 user guides ("tick Enable asynchronous").
# - QNAP: QTS 4.5.x "Configuring NFS Service Settings" (docs.qnap.com): Control Panel > Privilege > Shared
#   Folders > Edit Shared Folder Permissions > NFS host access, where "sync: Disabled" is async.
# - OpenMediaVault: the workbench's NFS share form (openmediavault/openmediavault, deb/openmediavault/workbench/
#   src/app/pages/services/nfs/nfs-share-form-page.component.ts): Services > NFS > Shares, field "Extra options"
#   (default "subtree_check,insecure"), which goes into the export's options.
# - TrueNAS: the NFS share has no sync/async field (the sharing.nfs API, api.truenas.com); iX suggests the ZFS
#   property sync=disabled on the dataset instead (github.com/truenas/os pull 208), which the UI shows as the
#   dataset's "Sync" option (Standard / Always / Disabled; TrueNAS docs "FRG: Storage"). It acts on every
#   protocol, not only NFS, and the menu path differs between CORE and SCALE, so none is given here.
# - Unraid and others: not verified, so no menu path is invented.
_ASYNC_SETTINGS = {
    SYNOLOGY: "Control Panel > Shared Folder > Edit > NFS Permissions > edit the rule > tick 'Enable asynchronous'",
    QNAP: "Control Panel > Privilege > Shared Folders > Edit Shared Folder Permissions > NFS host access > "
    "set 'sync' to Disabled",
    OPENMEDIAVAULT: "Services > NFS > Shares > edit the share > add 'async' to 'Extra options'",
    TRUENAS: "the NFS share has no async switch; the nearest is the dataset's 'Sync' option set to 'Disabled' "
    "(ZFS sync=disabled), which affects every protocol on that dataset, not only NFS",
}


def async_setting_hint(appliance: str | None) -> str | None:
    """What to change in the appliance's UI instead of adding `async` to /etc/exports; None on a plain Linux
    server (where nfstune edits /etc/exports itself)."""
    if appliance is None:
        return None
    return _ASYNC_SETTINGS.get(appliance, "in the vendor's NFS share settings")


def server_setting_hint(export_set: tuple[str, ...] | frozenset[str]) -> str:
    """Where a NAS nfstune cannot log in to sets what a server-side configuration would change: for async, each
    vendor's own setting (above); for anything else, its NFS share settings, since no vendor's menu is verified."""
    if "async" in export_set:
        return "; ".join(f"{vendor}: {where}" for vendor, where in _ASYNC_SETTINGS.items())
    return "in the NAS's own NFS settings, or on the server's /etc/exports by hand"
