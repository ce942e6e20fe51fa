"""Mount options, /proc/mounts and fstab: the lab captures, edits, and exact round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nfstune.nfs.fstab import Fstab, FstabEntry, FstabLine
from nfstune.nfs.mount_options import RECOVERY_FLAGS, SHARECACHE_FLAGS, MountOption, MountOptions
from nfstune.nfs.mounts import (
    ProcMount,
    escape_field,
    mounts_of_server,
    parse_proc_mounts,
    unescape_field,
)

CAPTURES = Path(__file__).parent.parent / "captures" / "nfs"
PROC_MOUNTS = (CAPTURES / "client-proc-mounts.txt").read_text()
FSTAB = (CAPTURES / "fstab-sample.txt").read_text()

# paths with everything the kernel escapes, plus non-ASCII and a literal "\040" that must survive as text
special_text = st.lists(st.characters() | st.sampled_from([" ", "\t", "\n", "\\", "\\040", "é", "0"])).map("".join)


def nfs_mount(mount_point: str) -> ProcMount:
    return next(mount for mount in parse_proc_mounts(PROC_MOUNTS) if mount.mount_point == mount_point)


# --- mount options -------------------------------------------------------------------------------------------


def test_options_of_the_nconnect_mount() -> None:
    options = nfs_mount("/mnt/capture-a").options
    assert options.vers == "4.2"
    assert (options.rsize, options.wsize, options.nconnect) == (131072, 131072, 2)
    assert (options.proto, options.recovery, options.timeo, options.retrans) == ("tcp", "hard", 600, 2)
    assert (options.sec, options.addr, options.clientaddr) == ("sys", "10.99.0.1", "10.99.0.2")
    assert options.local_lock == "none"
    assert options.sharecache is None and options.attribute_cache is None and options.actimeo is None


def test_options_of_the_v3_and_the_soft_mounts() -> None:
    v3 = nfs_mount("/mnt/capture-b").options
    assert (v3.vers, v3.rsize, v3.sharecache) == ("3", 32768, False)
    assert v3.get("mountproto") == "udp"  # mount.nfs asked mountd over UDP though NFS runs on TCP
    soft = nfs_mount("/mnt/capture-e\ttab\\back").options
    assert (soft.recovery, soft.timeo, soft.retrans) == ("soft", 150, 3)
    # actimeo=30 is shown as its parts; acdirmin=30 is the default, so the kernel leaves it out
    assert [soft.get(name) for name in ("acregmin", "acregmax", "acdirmin", "acdirmax")] == ["30", "30", None, "30"]


def test_the_last_option_wins() -> None:
    options = MountOptions.parse("vers=3,nfsvers=4.1,hard,soft,noac,ac,nosharecache,sharecache,udp,rsize=1,rsize=2")
    assert (options.vers, options.recovery, options.attribute_cache, options.sharecache) == ("4.1", "soft", True, True)
    assert (options.proto, options.rsize) == ("udp", 2)
    assert MountOptions.parse("vers=4.2,v3").vers == "3"
    assert MountOptions.parse("proto=rdma6,tcp").proto == "tcp"


def test_unreadable_or_absent_numbers_are_none() -> None:
    options = MountOptions.parse("rsize=big,wsize=,timeo")
    assert (options.rsize, options.wsize, options.timeo, options.nconnect) == (None, None, None, None)
    assert options.get("wsize") == "" and options.get("timeo") is None and options.has("timeo")


def test_set_keeps_the_order() -> None:
    options = MountOptions.parse("rw,vers=4.2,rsize=131072,hard")
    assert options.set("rsize", "65536").render() == "rw,vers=4.2,rsize=65536,hard"
    assert options.set("nconnect", "4").render() == "rw,vers=4.2,rsize=131072,hard,nconnect=4"
    assert options.set("noatime").render() == "rw,vers=4.2,rsize=131072,hard,noatime"
    assert MountOptions.parse("a=1,b,a=2,c").set("a", "3").render() == "a=3,b,c"
    assert options.remove("vers").render() == "rw,rsize=131072,hard"
    assert options.remove("nothing") == options


def test_choose_one_flag_of_a_group() -> None:
    options = MountOptions.parse("rw,hard,timeo=600,soft")
    assert options.choose(RECOVERY_FLAGS, "softerr").render() == "rw,softerr,timeo=600"
    assert options.choose(SHARECACHE_FLAGS, "nosharecache").render() == "rw,hard,timeo=600,soft,nosharecache"
    with pytest.raises(ValueError, match="not one of"):
        options.choose(RECOVERY_FLAGS, "intr")


def test_quoted_commas_do_not_split() -> None:
    text = 'rw,context="system_u:object_r:nfs_t:s0:c1,c2",vers=3'
    options = MountOptions.parse(text)
    assert options.names() == ["rw", "context", "vers"]
    assert options.get("context") == '"system_u:object_r:nfs_t:s0:c1,c2"'
    assert options.render() == text
    assert MountOptions.parse("comment=it's,rw").names() == ["comment", "rw"]  # libmount: " quotes, ' does not


def test_odd_option_text_renders_back() -> None:
    for text in ("", ",", "a,,b", "name=", "=value", "a=b=c", 'x="unclosed,y'):
        assert MountOptions.parse(text).render() == text
    assert MountOptions.parse("") == MountOptions()
    assert MountOptions.parse("a=b=c").options == (MountOption("a", "b=c"),)


@given(st.text())
def test_any_option_text_renders_back(text: str) -> None:
    assert MountOptions.parse(text).render() == text


option_names = st.text(alphabet=st.characters(exclude_characters=",=\"'"), min_size=1)
option_values = st.none() | st.text(alphabet=st.characters(exclude_characters=",\"'"))


@given(st.lists(st.builds(MountOption, option_names, option_values)))
def test_generated_option_lists_round_trip(options: list[MountOption]) -> None:
    rendered = MountOptions(tuple(options)).render()
    assert MountOptions.parse(rendered).options == tuple(options)
    assert MountOptions.parse(rendered).render() == rendered


# --- escapes, /proc/mounts -----------------------------------------------------------------------------------


def test_escapes() -> None:
    assert escape_field("/mnt/a b\tc\nd\\e") == "/mnt/a\\040b\\011c\\012d\\134e"
    assert unescape_field("/mnt/capture\\040c") == "/mnt/capture c"
    assert unescape_field("caf\\303\\251") == "café"  # escapes are bytes: two make one UTF-8 letter
    assert unescape_field("\\377") == "\udcff"  # not UTF-8: a surrogate, as errors="surrogateescape" gives
    assert unescape_field("a\\b\\400\\04") == "a\\b\\400\\04"  # not escapes: left alone
    assert escape_field("é") == "é"


@given(special_text)
def test_escape_then_unescape_gives_the_text_back(text: str) -> None:
    escaped = escape_field(text)
    assert not any(char in escaped for char in " \t\n")
    assert unescape_field(escaped) == text


def test_every_proc_mounts_line_renders_back() -> None:
    lines = PROC_MOUNTS.splitlines()
    mounts = parse_proc_mounts(PROC_MOUNTS)
    assert [mount.render() for mount in mounts] == lines
    assert [mount.mount_point for mount in mounts if mount.is_nfs] == [
        "/mnt/capture-a",
        "/mnt/capture-b",
        "/mnt/capture c",
        "/mnt/capture-e\ttab\\back",
    ]
    root = mounts[5]
    assert (root.device, root.mount_point, root.fstype, root.options.render()) == (
        "/dev/vda",
        "/",
        "ext4",
        "rw,noatime",
    )


def test_a_bad_proc_mounts_line_is_refused() -> None:
    for line in ("nas:/export /mnt nfs rw 0", "a b c d e f g", "a b c d x 0", "a b c d ² 0"):
        with pytest.raises(ValueError, match="not a /proc/mounts line"):
            ProcMount.parse(line)


@given(special_text, special_text, special_text, st.text(), st.integers(0, 9), st.integers(0, 9))
def test_proc_mounts_round_trip_for_any_paths(
    device: str, mount_point: str, fstype: str, options: str, dump: int, pass_number: int
) -> None:
    mount = ProcMount(device, mount_point, fstype, MountOptions.parse(options), dump, pass_number)
    line = mount.render()
    assert "\n" not in line and line.count(" ") == 5
    assert ProcMount.parse(line) == mount
    assert ProcMount.parse(line).render() == line


def test_the_users_own_mounts_of_the_server_are_found_with_their_real_paths() -> None:
    """What the desktop lists as the user's mounts of the server: every NFS mount whose source is on it, its
    path decoded, an IPv6 server found with or without brackets."""
    text = PROC_MOUNTS + "[2001:db8::1]:/srv /mnt/v6\\040share nfs4 rw,vers=4.2 0 0\nother:/x /mnt/o nfs rw 0 0\n"
    by_name = [m.mount_point for m in mounts_of_server(text, ("nas", None))]
    assert by_name == ["/mnt/capture-a", "/mnt/capture-b", "/mnt/capture c", "/mnt/capture-e\ttab\\back"]
    assert [m.mount_point for m in mounts_of_server(text, ("[2001:db8::1]",))] == ["/mnt/v6 share"]
    assert [m.device for m in mounts_of_server(text, ("2001:db8::1", ""))] == ["[2001:db8::1]:/srv"]
    assert mounts_of_server(text, ("10.99.0.1",)) == []  # the sources name the server "nas", not its address


# --- fstab -----------------------------------------------------------------------------------------------------


def test_fstab_sample_renders_back_exactly() -> None:
    fstab = Fstab.parse(FSTAB)
    assert fstab.render() == FSTAB
    assert len(fstab.lines) == FSTAB.count("\n")
    assert sum(line.is_comment for line in fstab.lines) == 12  # the indented one too
    assert sum(line.is_blank for line in fstab.lines) == 3
    assert [entry.mount_point for entry in fstab.entries()] == [
        "/",
        "/boot/efi",
        "none",
        "/srv/data",
        "/mnt/My Backups",
        "/mnt/nas",
        "/mnt/media",
        "/mnt/photos",
        "/tmp",
        "/proc",
    ]


def test_fstab_entries_are_read() -> None:
    fstab = Fstab.parse(FSTAB)
    root = fstab.find("/")
    assert root is not None and root.device.startswith("UUID=3f1c2a9e")
    assert (root.fstype, root.dump, root.pass_number) == ("ext4", 0, 1)
    data = fstab.find("/srv/data")
    assert data is not None and (data.device, data.pass_number) == ("LABEL=data", 2)
    nas = fstab.find("/mnt/nas")
    assert nas is not None and nas.is_nfs and nas.options is not None
    assert (nas.options.vers, nas.options.rsize, nas.options.has("_netdev"), nas.options.has("nofail")) == (
        "4.2",
        1048576,
        True,
        True,
    )
    media = fstab.find("/mnt/media")  # no 5th/6th field, trailing blanks
    assert media is not None and (media.fstype, media.dump, media.pass_number) == ("nfs4", None, None)
    assert media.options is not None and media.options.recovery == "soft"
    assert fstab.find("/mnt/My Backups") is not None and fstab.find("/mnt/My\\040Backups") is None


def test_replacing_an_entry_changes_that_line_only() -> None:
    fstab = Fstab.parse(FSTAB)
    nas = fstab.find("/mnt/nas")
    assert nas is not None and nas.options is not None
    edited = fstab.replace(
        "/mnt/nas", FstabEntry(nas.device, nas.mount_point, "nfs", nas.options.set("nconnect", "4"), 0, 0)
    )
    before, after = FSTAB.split("\n"), edited.render().split("\n")
    changed = [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]
    assert changed == [fstab.index_of("/mnt/nas")]
    assert (
        after[changed[0]]
        == "nas:/export\t/mnt/nas\tnfs\tvers=4.2,rsize=1048576,wsize=1048576,hard,_netdev,nofail,nconnect=4\t0\t0"
    )


def test_a_replaced_line_keeps_its_blanks() -> None:
    fstab = Fstab.parse(FSTAB)
    media = fstab.find("/mnt/media")
    assert media is not None
    edited = fstab.replace(
        "/mnt/media", FstabEntry(media.device, "/mnt/media files", "nfs4", MountOptions.parse("ro,hard"))
    )
    line = edited.lines[fstab.index_of("/mnt/media") or 0].text
    assert line == "nas.lan:/media   /mnt/media\\040files   nfs4   ro,hard   "
    assert Fstab.parse(edited.render()).find("/mnt/media files") == edited.find("/mnt/media files")


def test_adding_and_removing_entries() -> None:
    fstab = Fstab.parse(FSTAB)
    entry = FstabEntry("nas:/export", "/mnt/new", "nfs", MountOptions.parse("vers=4.2,_netdev,nofail"), 0, 0)
    added = fstab.add(entry)
    assert added.render() == FSTAB + "nas:/export\t/mnt/new\tnfs\tvers=4.2,_netdev,nofail\t0\t0\n"
    assert Fstab.parse(added.render()).find("/mnt/new") == entry
    assert added.remove("/mnt/new").render() == FSTAB
    removed = fstab.remove("/mnt/photos").render()
    assert removed == FSTAB.replace("192.168.1.20:/volume1/photos /mnt/photos nfs defaults,nconnect=4,_netdev\n", "")
    with pytest.raises(KeyError):
        fstab.remove("/mnt/nowhere")
    with pytest.raises(KeyError):
        fstab.replace("/mnt/nowhere", entry)


def test_files_without_a_final_newline() -> None:
    fstab = Fstab.parse("a /a ext4\nb /b ext4")
    assert fstab.remove("/b").render() == "a /a ext4\n"
    assert fstab.remove("/a").render() == "b /b ext4"
    assert fstab.add(FstabEntry("c", "/c", "xfs")).render() == "a /a ext4\nb /b ext4\nc\t/c\txfs\n"
    assert Fstab.parse("a /a ext4").remove("/a").render() == ""
    assert Fstab.parse("").add(FstabEntry("c", "/c", "xfs", None, 1)).render() == "c\t/c\txfs\tdefaults\t1\n"


def test_lines_that_are_not_entries_are_kept_as_they_are() -> None:
    text = "only two\na b c d x 0\na b c d 0 0 extra\n\\043dev /m\rn ext4\r\nd /d ext4 rw 0 2\r\n"
    fstab = Fstab.parse(text)
    assert fstab.render() == text
    # "a b c d 0 0 extra" is an entry: libmount reads nothing after the pass number (test_fstab_libmount.py)
    assert [line.entry is not None for line in fstab.lines] == [False, False, True, True, True]
    assert fstab.lines[3].entry == FstabEntry("#dev", "/m\rn", "ext4")  # a CR inside a field stays in it
    assert fstab.find("/d") == FstabEntry("d", "/d", "ext4", MountOptions.parse("rw"), 0, 2)  # CRLF line end


def test_a_device_starting_with_a_hash_is_not_written_as_a_comment() -> None:
    entry = FstabEntry("#weird", "/mnt/x", "nfs")
    line = FstabLine.parse(entry.render())
    assert not line.is_comment and line.entry == entry


def test_a_field_ending_in_cr_is_not_taken_for_a_crlf_line_end() -> None:
    entry = FstabEntry("dev", "/mnt/x\r", "nfs\r")
    assert entry.render() == "dev\t/mnt/x\\015\tnfs\\015"
    assert FstabLine.parse(entry.render()).entry == entry


def test_entries_that_cannot_be_written_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a device"):
        FstabEntry("", "/mnt", "nfs")
    with pytest.raises(ValueError, match="use options=None"):
        FstabEntry("a", "/mnt", "nfs", MountOptions())
    with pytest.raises(ValueError, match="negative"):
        FstabEntry("a", "/mnt", "nfs", None, -1)


fstab_text = st.text(
    alphabet=st.sampled_from([" ", "\t", "\n", "\r", "#", "\\", "0", "1", "7", "a", "=", ",", "/", "é"])
)


@given(fstab_text | st.text())
def test_any_text_renders_back_exactly(text: str) -> None:
    fstab = Fstab.parse(text)  # never raises
    assert fstab.render() == text


field_text = st.text(min_size=1)
entries = st.integers(3, 6).flatmap(
    lambda written: st.builds(
        FstabEntry,
        field_text,
        field_text,
        field_text,
        st.builds(MountOptions.parse, st.text(min_size=1)) if written > 3 else st.none(),
        st.integers(0, 9) if written > 4 else st.none(),
        st.integers(0, 9) if written > 5 else st.none(),
    )
)


@given(fstab_text, entries)
def test_an_added_entry_reads_back_and_the_rest_stays(text: str, entry: FstabEntry) -> None:
    fstab = Fstab.parse(text)
    added = Fstab.parse(fstab.add(entry).render())
    assert added.lines[-1].entry == entry
    assert [line.text for line in added.lines[:-1]] == [line.text for line in fstab.lines]
    if text == "" or text.endswith("\n"):
        assert added.remove_line(-1).render() == text


@given(fstab_text, entries)
def test_a_replaced_entry_reads_back_and_the_rest_stays(text: str, entry: FstabEntry) -> None:
    fstab = Fstab.parse(text + "\nold /old ext4 defaults 0 0\n" + text)
    index = next(i for i, line in enumerate(fstab.lines) if line.text == "old /old ext4 defaults 0 0")
    replaced = Fstab.parse(fstab.replace_line(index, entry).render())
    assert replaced.lines[index].entry == entry
    assert [line.text for i, line in enumerate(replaced.lines) if i != index] == [
        line.text for i, line in enumerate(fstab.lines) if i != index
    ]
