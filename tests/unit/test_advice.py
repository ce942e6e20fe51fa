"""The recommendation: the admin's own entry with only sync changed, sync always in it, async only as an opt-in
with its warning and measured gain; the client's own fstab entry edited in place; every line escaped as exportfs
and mount read it."""

from __future__ import annotations

import pytest

from nfstune.advice.recommend import EXPORTS_ASYNC_WARNING, Measured, recommend
from nfstune.changes.apply import plan_apply
from nfstune.errors import ConfigError
from nfstune.nfs.export_options import ASYNC
from nfstune.nfs.exports import parse
from nfstune.nfs.exports_rewrite import exports_edit
from nfstune.nfs.fstab import Fstab
from nfstune.nfs.fstab_rewrite import fstab_edit
from nfstune.nfs.mounts import split_source
from nfstune.statistics.verdict import Question, Verdict, judge

SYNC_S = [26.0, 25.8, 26.3, 26.1, 25.9]  # lab-poc figures: untar on a sync export, hdd profile (seconds)
ASYNC_S = [6.4, 6.1, 5.9, 6.2, 6.0]


def verdict(
    baseline: list[float],
    other: list[float],
    names: tuple[str, str],
    *,
    higher_is_better: bool = False,
    expect_same: bool = False,
) -> Verdict:
    """The verdict of `other` against `baseline`, round by round (the figures' order)."""
    question = Question(
        ("w",),
        dict(enumerate(baseline, 1)),
        dict(enumerate(other, 1)),
        higher_is_better,
        names,
        expect_same=expect_same,
        why_same="the kernel ignores no_wdelay on v3/v4",
    )
    (found,) = judge([question])
    return found


FASTER = Measured(async_vs_sync={"small-files": verdict(SYNC_S, ASYNC_S, ("sync", "async"))})


def test_async_is_never_the_recommended_line_but_an_alternative_with_the_warning() -> None:
    rec = recommend(
        share="/export", server="nas", exports="/export 10.99.0.0/24(rw,async,no_root_squash)\n", measured=FASTER
    )
    assert rec.exports_line == "/export 10.99.0.0/24(rw,sync,no_root_squash)"
    assert rec.exports_before == "/export 10.99.0.0/24(rw,async,no_root_squash)"
    assert rec.async_alternative is not None
    assert rec.async_alternative.line == "/export 10.99.0.0/24(rw,async,no_root_squash)"
    assert rec.async_alternative.warning == EXPORTS_ASYNC_WARNING
    assert "4.3x faster" in rec.async_alternative.gain and "UPS" in rec.async_alternative.conditions
    assert "none of them sees an error" in rec.async_alternative.risk
    assert "changed from async for 10.99.0.0/24" in rec.exports_reasons[0].why


def test_no_async_alternative_without_a_measured_gain() -> None:
    same = verdict(SYNC_S, [26.2, 25.7, 26.0, 26.4, 25.9], ("sync", "async"))  # within 1 % in every round
    assert not same.effect
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data 192.168.1.0/24(rw)\n",
        measured=Measured(async_vs_sync={"small-files": same}),
    )
    assert rec.async_alternative is None
    assert "async was not measured faster here (small-files: " + same.text + ")" in rec.exports_reasons[0].why
    assert rec.exports_line == "/srv/data 192.168.1.0/24(rw)"  # already sync (the default): left as written


def test_async_is_offered_only_where_faster_and_a_slower_workload_is_said() -> None:
    faster = verdict(SYNC_S, ASYNC_S, ("sync", "async"))  # 4x fewer seconds in every round
    slower = verdict(
        [50.0, 52.0, 49.0, 51.0, 50.5], [40.0, 41.5, 39.0, 41.0, 40.2], ("sync", "async"), higher_is_better=True
    )  # MB/s: a fifth less in every round
    unsettled = verdict([4.0, 4.1, 3.9, 4.2, 4.0], [2.0, 6.5, 3.0, 5.9, 2.4], ("sync", "async"))
    assert (faster.kind, slower.kind, unsettled.kind) == ("faster", "slower", "not settled")
    measured = Measured(async_vs_sync={"small-files": faster, "seq-write": slower, "sync-4k": unsettled})
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", measured=measured)
    alt = rec.async_alternative
    assert alt is not None and alt.gain.startswith("small-files: " + faster.text)
    assert "Slower with async: seq-write: " + slower.text in alt.gain and "sync-4k" not in alt.gain
    assert "95 % CI" in alt.gain and "significant" not in alt.gain
    why = rec.exports_reasons[0].why
    assert "async measured faster (" in why and unsettled.text in why and "significant" not in why
    # nothing faster: no alternative, whatever else was measured
    rec = recommend(
        share="/export",
        server="nas",
        exports="/export h(rw)\n",
        measured=Measured(async_vs_sync={"seq-write": slower, "sync-4k": unsettled}),
    )
    assert rec.async_alternative is None and "async was not measured faster" in rec.exports_reasons[0].why


def test_a_new_export_gets_safe_options_for_the_named_clients_only() -> None:
    rec = recommend(share="/srv/new", server="nas", exports={}, client_spec="10.0.0.0/24", measured=FASTER)
    assert rec.exports_line == "/srv/new 10.0.0.0/24(rw,sync,no_subtree_check,root_squash)"
    assert rec.exports_before is None
    assert rec.async_alternative is not None
    assert rec.async_alternative.line == "/srv/new 10.0.0.0/24(rw,async,no_subtree_check,root_squash)"
    for spec in (None, "*", "0.0.0.0/0", "host*", "::/0"):
        with pytest.raises(ConfigError, match=r"not exported yet|names some hosts"):
            recommend(share="/srv/new", server="nas", exports={}, client_spec=spec, measured=Measured())
    with pytest.raises(ConfigError, match="is not a client"):
        recommend(share="/srv/new", server="nas", exports={}, client_spec="a(rw) b", measured=Measured())


def test_a_share_after_the_line_where_exportfs_stops_is_not_taken_for_a_new_one() -> None:
    with pytest.raises(ConfigError, match=r"line 2 exports /srv/x, but exportfs stops reading that file at line 1"):
        recommend(
            share="/srv/x", server="nas", exports="/a h(bogus)\n/srv/x h(rw)\n", client_spec="h", measured=Measured()
        )


def test_fstab_line_never_carries_folklore_options() -> None:
    rec = recommend(
        share="/export",
        server="nas",
        mount_point="/mnt/nas",
        exports={},
        client_spec="nas-clients.lan",
        measured=Measured(negotiated_rsize=131072, server_max_block_size=131072),
    )
    assert rec.fstab_line == "nas:/export /mnt/nas nfs vers=4.2,hard,_netdev,nofail 0 0"
    for banned in ("no_wdelay", "fsid=0", "soft", "udp", "noac", "rsize", "wsize", "insecure", "async"):
        assert banned not in rec.fstab_line and banned not in rec.exports_line
    assert any("negotiated 131072" in r.why and "max_block_size 131072" in r.why for r in rec.fstab_reasons)


def test_the_admins_own_folklore_is_kept_not_added_to() -> None:
    exports = "/export *(ro,no_wdelay,fsid=0,insecure)\n"
    rec = recommend(share="/export", server="nas", exports=exports, measured=Measured())
    assert rec.exports_line == "/export *(ro,no_wdelay,fsid=0,insecure)"


WDELAY = [10.1, 10.3, 9.9, 10.0, 10.2, 10.0]  # MB/s per round


def test_no_wdelay_is_reported_as_measured_and_never_recommended() -> None:
    same = verdict(WDELAY, [10.2, 10.2, 10.0, 9.9, 10.1, 10.1], ("wdelay", "no_wdelay"), higher_is_better=True)
    assert same.kind == "same"
    rec = recommend(
        share="/export", server="nas", exports="/export h(rw)\n", measured=Measured(no_wdelay={"seq-write": same})
    )
    (note,) = rec.notes
    assert note.startswith(f"no_wdelay, seq-write: {same.text}. Not recommended: ") and "NFSv2 only" in note


def test_an_unreliable_or_unsettled_no_wdelay_note_does_not_contradict_itself() -> None:
    """It said "19 % faster (significant) ... a difference this size is this host's run-to-run variation"."""
    unreliable = verdict(
        WDELAY, [12.2, 12.4, 12.0, 12.1, 12.3, 12.1], ("wdelay", "no_wdelay"), higher_is_better=True, expect_same=True
    )  # 20 % apart in every round
    unsettled = verdict(WDELAY, [7.0, 14.0, 9.0, 13.5, 8.0, 12.0], ("wdelay", "no_wdelay"), higher_is_better=True)
    assert (unreliable.kind, unsettled.kind) == ("unreliable", "not settled")
    measured = Measured(no_wdelay={"seq-write": unreliable, "sync-4k": unsettled})
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", measured=measured)
    for note, v in zip(rec.notes, (unreliable, unsettled), strict=True):
        assert note.startswith(f"no_wdelay, {'seq-write' if v is unreliable else 'sync-4k'}: {v.text}. ")
        assert note.endswith(
            "Not recommended: the kernel ignores no_wdelay on NFSv3/v4, and the measurement shows no settled effect."
        )
        assert "significant" not in note and "variation" not in note
    assert "no_wdelay" not in rec.exports_line


# --- issue 9: the admin's own entry, with only sync changed --------------------------------------------------


def effective(text: str, share: str) -> dict[str, tuple[bool, bool, bool]]:
    """client -> (read_only, root_squash, async) as exportfs reads the share's entry."""
    entry = parse(text + "\n").find(share)
    assert entry is not None and entry.error is None
    return {c.name: (c.options.read_only, c.options.root_squash, c.options.flag(ASYNC)) for c in entry.clients}


def test_a_bare_path_stays_read_only_for_the_world() -> None:
    """/srv/ro exports read-only to everyone; the old advice made it `*(rw,sync,no_subtree_check,root_squash)`."""
    rec = recommend(share="/srv/ro", server="nas", exports="/srv/ro\n", measured=FASTER)
    assert rec.exports_line == "/srv/ro"
    assert effective(rec.exports_line, "/srv/ro") == {"*": (True, True, False)}
    assert any("read-only" in r.why for r in rec.exports_reasons)
    edit = exports_edit({"/etc/exports": "/srv/ro\n"}, "/srv/ro", rec.exports_line)
    assert edit.noop


def test_the_defaults_word_and_implied_ro_are_kept() -> None:
    """`/srv/a -ro,no_root_squash host1` became `host1(rw,...)`: the defaults word was ignored."""
    text = "/srv/a -ro,no_root_squash,async host1\n"
    rec = recommend(share="/srv/a", server="nas", exports=text, measured=FASTER)
    assert rec.exports_line == "/srv/a -ro,no_root_squash,async host1(sync)"
    assert effective(rec.exports_line, "/srv/a") == {"host1": (True, False, False)}
    edit = exports_edit({"/etc/exports": text}, "/srv/a", rec.exports_line)
    assert edit.new == b"/srv/a -ro,no_root_squash,async host1(sync)\n"
    # already sync: nothing to change, the words stay as written
    rec = recommend(share="/srv/a", server="nas", exports="/srv/a -ro,no_root_squash host1\n", measured=FASTER)
    assert rec.exports_line == "/srv/a -ro,no_root_squash host1"


def test_options_nfstune_does_not_tune_are_kept() -> None:
    """fsid=7, mountpoint and nordirplus were dropped (a changed fsid gives every client stale file handles)."""
    text = (
        "/srv/f 10.1.0.0/16(rw,async,fsid=7,anonuid=1000,mountpoint,nordirplus,reexport=none,xprtsec=tls,sec=krb5p)\n"
    )
    rec = recommend(share="/srv/f", server="nas", exports=text, measured=FASTER)
    assert rec.exports_line == (
        "/srv/f 10.1.0.0/16(rw,sync,fsid=7,anonuid=1000,mountpoint,nordirplus,reexport=none,xprtsec=tls,sec=krb5p)"
    )
    (client,) = parse(rec.exports_line + "\n").entries[0].clients
    assert (client.options.fsid, client.options.anonuid, client.options.mountpoint) == (7, 1000, "")
    assert [f.name for f in client.options.sec] == ["krb5p"] and client.options.reexport == "none"


def test_every_client_and_the_continuation_style_are_kept() -> None:
    text = "# c\n/srv/m -async a(rw) \\\n   b(ro,sec=krb5p)  # note\n/srv/other *(ro)\n"
    rec = recommend(share="/srv/m", server="nas", exports=text, measured=Measured())
    assert rec.exports_line == "/srv/m -async a(rw,sync) \\\n   b(ro,sec=krb5p,sync)"
    edit = exports_edit({"/etc/exports": text}, "/srv/m", rec.exports_line)
    assert edit.new.decode() == "# c\n/srv/m -async a(rw,sync) \\\n   b(ro,sec=krb5p,sync)  # note\n/srv/other *(ro)\n"


def test_the_host_space_rw_trap_is_reported_and_never_rewritten() -> None:
    """`/srv/l host (rw)`: host gets the defaults and everyone gets rw. It was never reported, and Apply made
    `host(rw,...) (rw)` of it."""
    rec = recommend(share="/srv/l", server="nas", exports="/srv/l host (rw)\n", measured=FASTER)
    assert rec.exports_line == "/srv/l host (rw)"
    assert any("'(rw)' has no host before '('" in note for note in rec.notes)
    assert any(r.option == "*" and "RISK: every host may write" in r.why for r in rec.exports_reasons)
    # the dangerous edit the old advice made is refused by the apply plan
    with pytest.raises(ConfigError, match="rw where it was ro"):
        exports_edit({"/etc/exports": "/srv/l host (rw)\n"}, "/srv/l", "/srv/l host(rw,sync) (rw)")


def test_no_root_squash_to_everyone_is_flagged() -> None:
    rec = recommend(share="/srv/w", server="nas", exports="/srv/w *(rw,no_root_squash)\n", measured=Measured())
    assert rec.exports_line == "/srv/w *(rw,no_root_squash)"
    assert any(r.option == "no_root_squash" and r.why.startswith("RISK") for r in rec.exports_reasons)


def test_an_exports_d_file_is_the_one_recommended() -> None:
    files = {"/etc/exports": "/srv/x *(ro)\n", "/etc/exports.d/p.exports": "/srv/p h(rw,async)\n"}
    rec = recommend(share="/srv/p", server="nas", exports=files, measured=Measured())
    assert (rec.exports_file, rec.exports_line) == ("/etc/exports.d/p.exports", "/srv/p h(rw,sync)")


# --- fstab ---------------------------------------------------------------------------------------------------

USER_FSTAB = (
    "UUID=1 / ext4 defaults 0 1\n"
    "other:/x /mnt/other nfs rw 0 0\n"
    "nas:/srv/data/\t/home/me/My\\040Data  nfs4  ro,sec=krb5p,noexec,x-systemd.automount,vers=4.1  0  0\n"
)


def test_the_users_fstab_entry_is_kept() -> None:
    """The old Apply replaced it: mount point moved, ro, sec=krb5p, noexec, x-systemd.automount dropped."""
    rec = recommend(share="/srv/data", server="nas", exports="/srv/data h(rw)\n", fstab=USER_FSTAB, measured=Measured())
    assert rec.fstab_line == USER_FSTAB.splitlines()[2] == rec.fstab_before
    assert fstab_edit(USER_FSTAB, rec.fstab_line).noop
    assert any(r.why.startswith("kept as you have it") for r in rec.fstab_reasons)


def test_only_a_measured_version_changes_the_users_entry() -> None:
    measured = Measured(best_version="4.2", version_reason="4.2 measured 20% faster")
    rec = recommend(share="/srv/data", server="nas", exports="/srv/data h(rw)\n", fstab=USER_FSTAB, measured=measured)
    assert rec.fstab_line == (
        "nas:/srv/data/\t/home/me/My\\040Data  nfs4  ro,sec=krb5p,noexec,x-systemd.automount,vers=4.2  0  0"
    )
    edit = fstab_edit(USER_FSTAB, rec.fstab_line)
    assert edit.new.decode() == USER_FSTAB.replace("vers=4.1", "vers=4.2")
    # the old kind of line, which moves the mount and drops the user's options, is refused
    with pytest.raises(ConfigError, match=r"line 3 .*mount point would move.*ro would be dropped"):
        fstab_edit(USER_FSTAB, "nas:/srv/data /mnt/nfs nfs vers=4.2,hard,_netdev,nofail 0 0")


def test_a_new_fstab_line_avoids_a_mount_point_in_use() -> None:
    rec = recommend(
        share="/srv/n",
        server="nas",
        exports="/srv/n h(rw)\n",
        mount_point="/mnt/other",
        fstab=USER_FSTAB,
        measured=Measured(),
    )
    assert rec.fstab_line == "nas:/srv/n /mnt/other-2 nfs vers=4.2,hard,_netdev,nofail 0 0"
    assert rec.fstab_before is None


# --- escaping ------------------------------------------------------------------------------------------------


def test_a_share_with_a_space_is_escaped_in_both_files() -> None:
    """`/srv/my share` gave an exports line read as path /srv/my and host share, and a 7-field fstab line."""
    rec = recommend(share="/srv/my share", server="nas", exports={}, client_spec="10.0.0.0/24", measured=Measured())
    (entry,) = parse(rec.exports_line + "\n").entries
    assert entry.path == "/srv/my share" and [c.spec for c in entry.clients] == ["10.0.0.0/24"]
    (line,) = Fstab.parse(rec.fstab_line + "\n").lines
    assert len(line.text.split()) == 6
    assert line.entry is not None and line.entry.device == "nas:/srv/my share"
    assert line.entry.mount_point == "/mnt/nfs"
    edit = exports_edit({}, "/srv/my share", rec.exports_line)
    assert parse(edit.new.decode()).find("/srv/my share") is not None


def test_a_share_with_other_special_characters_reads_back() -> None:
    share = '/srv/ünï "q"\\x\ty'
    rec = recommend(share=share, server="nas", exports={}, client_spec="@team", measured=Measured())
    (entry,) = parse(rec.exports_line + "\n").entries
    assert entry.path == share and entry.clients[0].spec == "@team"
    line = Fstab.parse(rec.fstab_line).lines[0]
    assert line.entry is not None and split_source(line.entry.device) == ("nas", share)


def test_an_ipv6_server_is_bracketed() -> None:
    """`2001:db8::1:/srv/v6`: mount.nfs splits at the first colon."""
    rec = recommend(share="/srv/v6", server="2001:db8::1", exports="/srv/v6 h(rw)\n", measured=Measured())
    assert rec.fstab_line.startswith("[2001:db8::1]:/srv/v6 ")
    line = Fstab.parse(rec.fstab_line).lines[0]
    assert line.entry is not None and split_source(line.entry.device) == ("2001:db8::1", "/srv/v6")
    # the user's own entry written with another spelling of the address is found and kept
    fstab = "[2001:DB8:0::1]:/srv/v6/ /v6 nfs ro 0 0\n"
    rec = recommend(share="/srv/v6", server="2001:db8::1", exports="/srv/v6 h(rw)\n", fstab=fstab, measured=Measured())
    assert rec.fstab_line == fstab.rstrip("\n")
    with pytest.raises(ConfigError, match=r"IPv6 server goes in brackets"):
        fstab_edit(None, "2001:db8::1:/srv/v6 /mnt/v6 nfs hard 0 0")


def test_a_new_fstab_line_pins_the_version_and_says_why_without_contradicting_itself() -> None:
    """The line writes vers=4.2: its reason must not tell the admin to leave the version to the client."""
    rec = recommend(share="/export", server="nas", exports="/export h(rw)\n", measured=Measured())
    assert rec.fstab_before is None and "vers=4.2" in rec.fstab_line
    why = next(r.why for r in rec.fstab_reasons if r.option == "vers=4.2")
    assert "leave it" not in why and "tries 4.2 first" not in why
    assert why.startswith("the newest version")


ADDRESS_FSTAB = "UUID=1 / ext4 defaults 0 1\n10.0.0.5:/srv/data  /home/me/data  nfs  ro,vers=4.1  0  0\n"


def test_an_entry_naming_the_server_by_address_is_the_shares_entry() -> None:
    """nfstune knows the server as nas, the admin's fstab names it 10.0.0.5 (what the client resolves nas to): that
    line is the share's, kept as written (its address, its ro), not a second line beside it."""
    measured = Measured(best_version="4.2", version_reason="4.2 measured 20% faster")
    blind = recommend(
        share="/srv/data", server="nas", exports="/srv/data h(rw)\n", fstab=ADDRESS_FSTAB, measured=measured
    )
    assert blind.fstab_before is None  # without the addresses: a new line, without the admin's ro
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data h(rw)\n",
        fstab=ADDRESS_FSTAB,
        measured=measured,
        server_aliases=("nas", "10.0.0.5"),
    )
    assert rec.fstab_before == ADDRESS_FSTAB.splitlines()[1]
    assert rec.fstab_line == "10.0.0.5:/srv/data  /home/me/data  nfs  ro,vers=4.2  0  0"
    # Apply, told the same addresses, edits that line's options only
    new_line = "nas:/srv/data /home/me/data nfs ro,vers=4.2 0 0"
    edit = fstab_edit(ADDRESS_FSTAB, new_line, server_aliases=("nas", "10.0.0.5"))
    assert edit.new.decode() == ADDRESS_FSTAB.replace("vers=4.1", "vers=4.2")
    with pytest.raises(ConfigError, match=r"already mounts 10\.0\.0\.5:/srv/data .* choose another mount point"):
        fstab_edit(ADDRESS_FSTAB, new_line)  # without them: the same mount point, refused
    # another server's address is not an alias
    assert (
        fstab_edit(ADDRESS_FSTAB, "nas:/srv/data /mnt/d nfs vers=4.2 0 0", server_aliases=("nas", "10.0.0.6"))
        .new.decode()
        .count("\n")
        == 3
    )


@pytest.mark.parametrize(
    "files",
    [
        {
            "/etc/exports": (
                "/srv/x 10.0.0.0/24(rw,sync,no_subtree_check)\n/srv/x 192.168.1.7(rw,async,no_subtree_check)\n"
            )
        },
        {
            "/etc/exports": "/srv/x 10.0.0.0/24(rw,sync,no_subtree_check)\n",
            "/etc/exports.d/laptop.exports": "# the laptop\n/srv/x 192.168.1.7(rw,async,no_subtree_check)\n",
        },
    ],
    ids=["two lines of /etc/exports", "/etc/exports and a file in exports.d"],
)
def test_a_share_exported_by_two_entries_names_the_one_left_as_it_is(files: dict[str, str]) -> None:
    """Only the first entry is recommended and edited: an async client in the other stayed async with no word."""
    rec = recommend(share="/srv/x", server="nas", exports=files, measured=Measured())
    assert rec.exports_line == "/srv/x 10.0.0.0/24(rw,sync,no_subtree_check)"
    other_file = list(files)[-1]
    other_line = files[other_file].splitlines().index("/srv/x 192.168.1.7(rw,async,no_subtree_check)") + 1
    (note,) = [n for n in rec.notes if "also exports /srv/x" in n]
    assert note.startswith(f"{other_file} line {other_line} also exports /srv/x (to 192.168.1.7)")
    assert "edits only the first, /etc/exports line 1" in note and "192.168.1.7 there still writes async" in note
    # and Apply says the same beside its diff
    plan = plan_apply(
        files,
        None,
        "/srv/x",
        rec.exports_line,
        rec.fstab_line,
        server=("nas", "root@nas:22"),
        client=("laptop", "me@laptop:22"),
    )
    assert note in plan.findings


NAS, LAPTOP = ("nas", "root@nas:22"), ("laptop", "me@laptop:22")


@pytest.mark.parametrize(
    "files",
    [
        {"/etc/exports": "/srv/x 10.0.0.0/24(rw,sync)\n/srv/x/ 192.168.1.7(rw,async)\n"},
        {
            "/etc/exports": "/srv/x 10.0.0.0/24(rw,sync)\n",
            "/etc/exports.d/laptop.exports": "# the laptop\n/srv//x/ 192.168.1.7(rw,async)\n",
        },
    ],
    ids=["a trailing slash", "a doubled slash in exports.d"],
)
def test_a_second_entry_written_with_another_spelling_of_the_path_is_named(files: dict[str, str]) -> None:
    """exportfs reads "/srv/x/" as /srv/x (realpath(3)): that entry exports the share too."""
    rec = recommend(share="/srv/x", server="nas", exports=files, measured=Measured())
    other_file = list(files)[-1]
    written = files[other_file].splitlines()[-1].split()[0]
    (note,) = [n for n in rec.notes if "also exports /srv/x" in n]
    assert note.startswith(f"{other_file} line {len(files[other_file].splitlines())} also exports /srv/x")
    assert f"written {written}" in note and "192.168.1.7 there still writes async" in note
    plan = plan_apply(files, None, "/srv/x", rec.exports_line, rec.fstab_line, server=NAS, client=LAPTOP)
    assert note in plan.findings


def test_the_first_entry_written_with_a_trailing_slash_is_the_one_recommended_and_applied() -> None:
    """Before, "/srv/x/" was passed over: the sync entry after it was taken for the share's, and the async one that
    exportfs uses first stayed async with no word."""
    files = {"/etc/exports": "/srv/x/ 10.0.0.0/24(rw,async,insecure)\n/srv/x 192.168.1.7(rw,sync)\n"}
    rec = recommend(share="/srv/x", server="nas", exports=files, measured=Measured())
    assert rec.exports_before == "/srv/x/ 10.0.0.0/24(rw,async,insecure)"
    assert rec.exports_line == "/srv/x/ 10.0.0.0/24(rw,sync,insecure)"
    assert any(n.startswith("/etc/exports line 1 (10.0.0.0/24): ") and "insecure" in n for n in rec.notes)
    assert any(n.startswith("/etc/exports line 2 also exports /srv/x (to 192.168.1.7)") for n in rec.notes)
    plan = plan_apply(files, None, "/srv/x", rec.exports_line, rec.fstab_line, server=NAS, client=LAPTOP)
    assert plan.server_edit.new.decode() == files["/etc/exports"].replace("async", "sync")
