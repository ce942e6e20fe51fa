"""The recommendation said as a decision: the headline in an admin's words for each kind of recommendation, the one
line of why from the biggest measured gain, what changes in a line, and reasons and notes cut to a few words."""

from __future__ import annotations

from dataclasses import replace

from nfstune.advice.decision import decision, line_changes, short_note, short_reasons
from nfstune.advice.recommend import Measured, recommend
from nfstune.advice.threads import ThreadsAdvice
from tests.unit.test_advice import ASYNC_S, SYNC_S, verdict

FASTER = Measured(async_vs_sync={"small-files": verdict(SYNC_S, ASYNC_S, ("sync", "async"))})
HALF_THE_TIME = [13.1, 12.8, 13.2, 13.0, 12.9]  # small-files seconds: twice as fast as SYNC_S


def test_a_change_on_both_hosts_names_each_and_the_async_gain_behind_its_warning() -> None:
    rec = recommend(
        share="/srv/data",
        server="nas",
        mount_point="/mnt/data",
        exports="/srv/data 192.168.1.0/24(rw,async,no_root_squash)\n",
        measured=FASTER,
    )
    said = decision(rec, server_label="nas", client_label="this computer")
    assert said.headline == "Change 1 option on nas and add 1 line on this computer"
    assert said.why.startswith("sync keeps your data safe; async was measured 4.3x faster on small files")
    assert said.why.endswith("see the warning before choosing it")


def test_settings_as_recommended_say_there_is_nothing_to_change() -> None:
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data h(rw,sync)\n",
        fstab="nas:/srv/data /home/me/data nfs vers=4.2 0 0\n",
        measured=Measured(),
    )
    said = decision(rec, server_label="nas", client_label="this computer")
    assert said.headline == "Your settings already read as recommended: nothing to change"
    assert said.why == "Nothing measured in this session was faster than what you have"


def test_without_a_login_the_line_is_added_here_and_the_nas_is_changed_in_its_own_interface() -> None:
    rec = recommend(share="/volume1/data", server="nas", measured=Measured(), fstab=None, server_login=False)
    said = decision(rec, server_label="nas (no login)", client_label="this computer")
    assert said.headline == "Add this line on this computer; change the NAS in its own interface"
    assert "Without a login on the NAS" in said.why and "async" not in said.why


def test_a_version_measured_faster_is_the_why_and_both_hosts_change_an_option() -> None:
    faster = verdict(SYNC_S, HALF_THE_TIME, ("vers=4.2", "vers=3"))
    rec = recommend(
        share="/export",
        server="nas",
        exports="/export h(rw,async)\n",
        fstab="nas:/export /mnt/nas nfs vers=4.2,hard 0 0\n",
        measured=Measured(best_version="3", version_reason="measured faster", version_verdicts={"small-files": faster}),
    )
    said = decision(rec, server_label="nas", client_label="laptop")
    assert said.headline == "Change 1 option on nas and 1 option on laptop"
    assert said.why.startswith("vers=3 was measured 2.0x faster on small files; sync keeps your data safe: with async")
    assert [c.text for c in line_changes(rec.fstab_before, rec.fstab_line)] == ["vers=4.2 \u2192 vers=3"]
    (vers, *_) = short_reasons(rec.fstab_reasons, rec)
    assert (vers.option, vers.words) == ("vers=3", "measured 2.0x faster on small files")


def test_one_host_alone_says_the_other_has_nothing_to_change_and_threads_are_a_server_change() -> None:
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data h(rw,sync)\n",
        fstab="nas:/srv/data /home/me/data nfs vers=4.2 0 0\n",
        measured=Measured(),
    )
    conf = ThreadsAdvice("nfsd threads: ...", "/etc/nfs.conf", "[nfsd]\n", "[nfsd]\nthreads=32\n", "threads=32", 32)
    said = decision(replace(rec, threads=conf), server_label="nas", client_label="laptop")
    assert said.headline == "Set 32 nfsd threads on nas; nothing to change on laptop"
    new = recommend(share="/srv/n", server="nas", exports="/srv/n h(rw,sync)\n", measured=Measured())
    said = decision(new, server_label="nas", client_label="laptop")
    assert said.headline == "Add 1 line on laptop; nothing to change on nas"


def test_line_changes_are_the_words_that_differ() -> None:
    assert line_changes(None, "/srv h(rw,sync)") == ()
    assert line_changes("/srv h(rw,sync)", "/srv h(rw,sync)") == ()
    (change,) = line_changes("/srv a(rw,async) b(ro)", "/srv a(rw,sync) b(ro)")
    assert (change.old, change.new, change.text) == (("async",), ("sync",), "a: async \u2192 sync")
    (added,) = line_changes("/srv/a -ro,async host1", "/srv/a -ro,async host1(sync)")
    assert added.text == "host1: + sync"  # the client's own sync, after the defaults it overrides
    (added,) = line_changes("nas:/a /A nfs4 ro,sec=krb5p 0 0", "nas:/a /A nfs4 ro,sec=krb5p,vers=4.1 0 0")
    assert added.text == "+ vers=4.1"
    (merged,) = line_changes("nas:/a /A nfs nfsvers=3,v3,hard 0 0", "nas:/a /A nfs vers=4.2,hard 0 0")
    assert merged.text == "nfsvers=3,v3 \u2192 vers=4.2"


def test_short_reasons_keep_the_first_clause_and_put_a_risk_on_its_own_line() -> None:
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data 192.168.1.0/24(rw,async,no_root_squash) *(rw)\n",
        measured=FASTER,
    )
    rows = {(r.option, r.words, r.risk) for r in short_reasons(rec.exports_reasons, rec)}
    assert ("sync", "writes are on disk before the server confirms them", False) in rows
    assert ("192.168.1.0/24: rw,no_root_squash", "kept as you have it", False) in rows
    assert ("no_root_squash", "root on that client is root on these files too", True) in rows
    assert ("*", "every host may write to this export", True) in rows


def test_a_note_is_its_first_sentence_and_a_measured_option_not_advised_says_so() -> None:
    note = (
        "no_wdelay, sync-4k: no_wdelay against wdelay: not settled (0.2 % faster so far; 95 % CI 9.0 % slower to "
        "10 % faster). Not recommended: the kernel ignores no_wdelay on NFSv3/v4."
    )
    assert short_note(note) == "no_wdelay, sync-4k: no_wdelay against wdelay: not settled \u2014 not recommended"
    soft = "Your fstab entry has soft, which nfstune leaves as it is: nfs(5): a soft timeout can corrupt data."
    assert (
        short_note(soft)
        == "Your fstab entry has soft, which nfstune leaves as it is: nfs(5): a soft timeout can corrupt data"
    )


def test_a_gain_that_drives_the_change_leads_the_why_and_async_is_only_pointed_at() -> None:
    faster = verdict(SYNC_S, HALF_THE_TIME, ("vers=4.2", "vers=3"))
    version = {"best_version": "3", "version_reason": "measured faster", "version_verdicts": {"small-files": faster}}
    measured = replace(FASTER, **version)
    rec = recommend(
        share="/export",
        server="nas",
        exports="/export h(rw,sync)\n",
        fstab="nas:/export /mnt/nas nfs vers=4.2 0 0\n",
        measured=measured,
    )
    said = decision(rec, server_label="nas", client_label="laptop")
    assert said.headline == "Change 1 option on laptop; nothing to change on nas"
    assert said.why == (
        "vers=3 was measured 2.0x faster on small files; sync keeps your data safe (async: see its warning)"
    )
