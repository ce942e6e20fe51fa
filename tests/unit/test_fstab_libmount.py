"""/etc/fstab lines as libmount reads them, checked against libmount itself (`findmnt --tab-file`, util-linux):
which lines are entries, and what they say. A line with a comment after its pass number is an entry (libmount
reads nothing after the pass), and nfstune's edits keep that comment."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nfstune.nfs.fstab import Fstab, FstabEntry
from nfstune.nfs.fstab_plan import plan_fstab_change
from nfstune.nfs.mount_options import MountOptions

LINES = [
    "nas:/export  /mnt/nas  nfs  ro,vers=4.2  0  0   # the NAS, read-only since the move",
    "nas:/media /mnt/media nfs rw,hard 0 0 backups go here",
    "a b c d 0 0 extra",
    "x:/y /z nfs rw 0 # a comment where the pass number should be",
    "q:/r /s nfs rw # a comment where the dump number should be",
    "x:/y /z nfs rw 0x1 0",
    "only two",
    "\t# a comment line",
    "UUID=1234 / ext4 errors=remount-ro 0 1",
    "nas:/short /mnt/short nfs",
]


@pytest.mark.skipif(shutil.which("findmnt") is None, reason="util-linux's findmnt is not installed")
def test_the_entries_are_the_lines_libmount_reads(tmp_path: Path) -> None:
    path = tmp_path / "fstab"
    path.write_text("\n".join(LINES) + "\n")
    found = subprocess.run(
        ["findmnt", "--tab-file", str(path), "-n", "-r", "-o", "SOURCE,TARGET,FSTYPE,OPTIONS"],
        capture_output=True,
        text=True,
        check=False,
    )
    libmount = [line.split(" ") for line in found.stdout.splitlines()]
    ours = [
        [e.device, e.mount_point, e.fstype, e.options.render() if e.options else ""]
        for e in Fstab.parse(path.read_text()).entries()
    ]
    assert ours == libmount
    assert len(ours) == 5  # the two commented NFS lines among them


def test_an_edit_keeps_the_comment_after_the_pass_number() -> None:
    text = "UUID=1234 / ext4 errors=remount-ro 0 1\n" + LINES[0] + "\n"
    fstab = Fstab.parse(text)
    assert fstab.lines[1].rest == "   # the NAS, read-only since the move"
    with_vers = fstab.lines[1].with_options(MountOptions.parse("ro,vers=3"))
    assert with_vers.text == LINES[0].replace("vers=4.2", "vers=3")
    # a whole new entry on that line: all six fields, so the comment still follows the pass number
    replaced = fstab.replace_line(1, FstabEntry("nas:/export", "/mnt/nas", "nfs", MountOptions.parse("ro")))
    assert replaced.lines[1].text == "nas:/export  /mnt/nas  nfs  ro  0  0   # the NAS, read-only since the move"
    assert replaced.lines[1].entry == Fstab.parse(replaced.render()).lines[1].entry


def test_apply_edits_the_commented_entry_instead_of_adding_a_second_one_without_ro() -> None:
    text = "UUID=1234 / ext4 errors=remount-ro 0 1\n" + LINES[0] + "\n"
    edit = plan_fstab_change(text, "nas:/export /mnt/nas nfs ro,vers=3 0 0", host="laptop")
    after = edit.new.decode()
    assert after == text.replace("vers=4.2", "vers=3")  # that line's options only; no second line
    assert "line 2" in edit.summary
