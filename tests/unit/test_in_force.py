"""What a check compares before it measures (results/in_force.py): the applied fstab line against the mount as
/proc/mounts shows it, the applied exports line against `exportfs -s`, nfsd's threads."""

from __future__ import annotations

from nfstune.nfs.fstab_rewrite import parse_fstab_line
from nfstune.nfs.kernel_view import parse_exportfs_s
from nfstune.nfs.mounts import parse_proc_mounts
from nfstune.results.in_force import compare_export, compare_mount, compare_threads, kernel_options

PROC = (
    "nas:/export /mnt/nfs nfs4 rw,relatime,vers=4.2,rsize=524288,wsize=524288,namlen=255,hard,proto=tcp,timeo=600,"
    "retrans=2,sec=sys,clientaddr=10.99.0.2,local_lock=none,addr=10.99.0.1 0 0\n"
)
EXPORTFS_S = "/export  10.99.0.0/24(sync,wdelay,hide,no_subtree_check,sec=sys,rw,secure,no_root_squash,no_all_squash)\n"


def negotiated() -> object:
    (mount,) = parse_proc_mounts(PROC)
    return mount.options


def test_fstab_only_options_are_left_out_of_nfstunes_own_mount() -> None:
    entry = parse_fstab_line("nas:/export /mnt/nfs nfs vers=4.2,hard,_netdev,nofail,x-systemd.automount 0 0")
    assert kernel_options(entry.options).render() == "vers=4.2,hard"


def test_the_applied_version_in_force_is_verified() -> None:
    wanted = kernel_options(parse_fstab_line("nas:/export /mnt/nfs nfs vers=4.2,hard,rsize=1048576 0 0").options)
    found = compare_mount("client", wanted, negotiated(), "/mnt/nfs")  # type: ignore[arg-type]
    assert found.ok
    assert "vers=4.2" in found.verified[0]
    assert any("rsize=1048576 asked, 524288 granted" in note for note in found.notes)


def test_another_version_in_force_is_said_plainly() -> None:
    wanted = kernel_options(parse_fstab_line("nas:/export /mnt/nfs nfs vers=3,hard 0 0").options)
    found = compare_mount("client", wanted, negotiated(), "/mnt/nfs")  # type: ignore[arg-type]
    (mismatch,) = found.mismatches
    assert mismatch.text == "client: the NFS version of /mnt/nfs: applied vers=3, in force vers=4.2"


def test_vers_4_is_in_force_as_any_minor_version() -> None:
    wanted = kernel_options(parse_fstab_line("nas:/export /mnt/nfs nfs vers=4 0 0").options)
    assert compare_mount("client", wanted, negotiated(), "/mnt/nfs").ok  # type: ignore[arg-type]


def test_the_export_in_force_is_compared_with_the_applied_line() -> None:
    table = parse_exportfs_s(EXPORTFS_S)
    assert compare_export("nas", "/export", {"10.99.0.0/24": ("rw", "sync", "no_subtree_check")}, table).ok
    found = compare_export("nas", "/export", {"10.99.0.0/24": ("rw", "async")}, table)
    (mismatch,) = found.mismatches
    assert "applied rw,async" in mismatch.text and "in force" in mismatch.text
    assert not compare_export("nas", "/export", {"10.0.0.9": ("rw",)}, table).ok  # not exported to that client


def test_threads_not_yet_running_are_said_with_how_they_take_effect() -> None:
    assert compare_threads("nas", 16, 16).ok
    found = compare_threads("nas", 16, 8)
    assert found.mismatches[0].text == "nas: nfsd threads: applied 16, in force 8"
    assert "restart" in found.notes[0]
