"""/etc/fstab lines as libmount reads them, checked against libmount itself (`findmnt --tab-file`, util-linux):
which lines are entries, and what they say. A line with a comment after its pass number is an entry (libmount
reads nothing after the pass), and nfstune's edits keep that comment."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from nfstune.advice.recommend import Measured, recommend
from nfstune.changes.apply import plan_apply
from nfstune.nfs.fstab import Fstab, FstabEntry
from nfstune.nfs.fstab_rewrite import fstab_edit
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
    "nas:/glued /mnt/glued nfs rw 0 0#x",
    "nas:/glued /mnt/glued nfs rw 0#x",
    "nas:/hashed /mnt/hashed nfs rw,hard#x 0 0",
    "nas:/more /mnt/more nfs rw 0 0 1 2",
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
    assert len(ours) == 7  # the two commented NFS lines among them


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
    edit = fstab_edit(text, "nas:/export /mnt/nas nfs ro,vers=3 0 0", host="laptop")
    after = edit.new.decode()
    assert after == text.replace("vers=4.2", "vers=3")  # that line's options only; no second line
    assert "line 2" in edit.summary


def _libmount_reads(tmp_path: Path, text: str) -> list[list[str]]:
    """SOURCE, TARGET, FSTYPE, OPTIONS of each entry findmnt reads from `text` as an fstab."""
    path = tmp_path / "fstab"
    path.write_text(text)
    found = subprocess.run(
        ["findmnt", "--tab-file", str(path), "-n", "-r", "-o", "SOURCE,TARGET,FSTYPE,OPTIONS"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [line.split(" ") for line in found.stdout.splitlines()]


EXPORTED = {"/etc/exports": "/srv/x 10.0.0.0/24(rw,sync,no_subtree_check)\n"}


@pytest.mark.skipif(shutil.which("findmnt") is None, reason="util-linux's findmnt is not installed")
@pytest.mark.parametrize(
    ("line", "options"),
    [
        ("nas:/srv/x /mnt/x nfs4 rw,hard 0 0 # my note", "rw,hard,vers=4.1"),
        ("nas:/srv/x\t/mnt/x\tnfs\trw,vers=4.2,hard\t0\t0\t# tabs, and\ta tab inside", "rw,vers=4.1,hard"),
        ("nas:/srv/x /mnt/x nfs rw,hard 0 0 #", "rw,hard,vers=4.1"),
        ("nas:/srv/x /mnt/x nfs rw,hard 0 0 #glued to its first word", "rw,hard,vers=4.1"),
        ("nas:/srv/x /mnt/x nfs rw,hard 0 2 backups go here, no hash", "rw,hard,vers=4.1"),
        ("  nas:/srv/x   /mnt/x nfs rw,hard 0 0   # led and trailed by blanks   ", "rw,hard,vers=4.1"),
    ],
    ids=["comment", "tabs", "bare hash", "hash glued to text", "words without hash", "blanks around"],
)
def test_recommend_and_apply_tune_an_entry_with_text_after_its_pass_number(
    tmp_path: Path, line: str, options: str
) -> None:
    """libmount reads nothing after the pass number: the entry is the share's, Apply tunes it, and what the admin
    wrote after the pass stays, byte for byte."""
    fstab = "UUID=1234 / ext4 errors=remount-ro 0 1\n" + line + "\n"
    rec = recommend(share="/srv/x", server="nas", exports=EXPORTED, fstab=fstab, measured=Measured(best_version="4.1"))
    assert rec.fstab_before == line
    plan = plan_apply(
        EXPORTED,
        fstab,
        "/srv/x",
        rec.exports_line,
        rec.fstab_line,
        server=("nas", "root@nas:22"),
        client=("laptop", "me@laptop:22"),
    )
    after = plan.client_edit.new.decode()
    old_options = _libmount_reads(tmp_path, fstab)[1][3]
    assert after == fstab.replace(old_options, options)  # only the options field changed: the comment is kept
    assert _libmount_reads(tmp_path, after)[1] == ["nas:/srv/x", "/mnt/x", line.split()[2], options]
    assert rec.fstab_line == after.splitlines()[1]  # what the admin was shown is what Apply writes


@pytest.mark.parametrize(
    "line",
    [
        "nas:/srv/x /mnt/x nfs4 rw,hard # a comment where dump should be",
        "nas:/srv/x /mnt/x nfs4 rw,hard 0 0#x",
        "nas:/srv/x /mnt/x nfs4 rw,hard 0#x",
    ],
)
def test_an_entry_mount_skips_is_named_and_not_taken_for_the_share(line: str) -> None:
    """A "#" glued to the pass number or in place of dump makes libmount skip the whole line ("parse error
    ... ignored"): the share has no entry mount reads, and the recommendation says why."""
    fstab = line + "\n"
    assert Fstab.parse(fstab).entries() == []
    rec = recommend(share="/srv/x", server="nas", exports=EXPORTED, fstab=fstab, measured=Measured())
    assert rec.fstab_before is None
    (note,) = [n for n in rec.notes if "line 1" in n]
    assert "nas:/srv/x" in note and "mount skips" in note
