"""The recommendation: sync always in the line, async only as an opt-in with its warning and measured gain."""

from __future__ import annotations

from nfstune.advice import EXPORTS_ASYNC_WARNING, Measured, recommend
from nfstune.bench.stats import compare

SYNC_S = [26.0, 25.8, 26.3, 26.1, 25.9]  # lab-poc figures: untar on a sync export, hdd profile (seconds)
ASYNC_S = [6.4, 6.1, 5.9, 6.2, 6.0]


def test_async_is_never_the_recommended_line_but_an_alternative_with_the_warning() -> None:
    comp = compare(SYNC_S, ASYNC_S, higher_is_better=False, names=("sync", "async"), unit="s")
    rec = recommend(
        share="/export", client_spec="10.99.0.0/24", server="nas", mount_point="/mnt/data",
        current_options=("rw", "async", "no_root_squash"), measured=Measured(async_vs_sync={"small-files": comp}),
    )  # fmt: skip
    assert rec.exports_line == "/export 10.99.0.0/24(rw,sync,no_subtree_check,no_root_squash)"
    assert rec.async_alternative is not None
    assert rec.async_alternative.line == "/export 10.99.0.0/24(rw,async,no_subtree_check,no_root_squash)"
    assert rec.async_alternative.warning == EXPORTS_ASYNC_WARNING
    assert "4.3x faster" in rec.async_alternative.gain and "UPS" in rec.async_alternative.conditions
    assert "no error" in rec.async_alternative.risk or "none of them sees an error" in rec.async_alternative.risk


def test_no_async_alternative_without_a_significant_gain() -> None:
    comp = compare(SYNC_S, [26.2, 25.7, 26.0, 26.4, 25.9], higher_is_better=False, names=("sync", "async"))
    rec = recommend(
        share="/srv/data", client_spec="*", server="nas", mount_point="/mnt/nas",
        measured=Measured(async_vs_sync={"small-files": comp}),
    )  # fmt: skip
    assert rec.async_alternative is None
    assert "async measured no faster here" in rec.exports_reasons[0].why
    assert rec.exports_line == "/srv/data *(rw,sync,no_subtree_check,root_squash)"


def test_fstab_line_never_carries_folklore_options() -> None:
    rec = recommend(
        share="/export", client_spec="*", server="nas", mount_point="/mnt/nas",
        current_options=("rw", "no_wdelay", "fsid=0", "insecure"),
        measured=Measured(negotiated_rsize=131072, server_max_block_size=131072),
    )  # fmt: skip
    assert rec.fstab_line == "nas:/export /mnt/nas nfs vers=4.2,hard,_netdev,nofail 0 0"
    for banned in ("no_wdelay", "fsid=0", "soft", "udp", "noac", "rsize", "wsize"):
        assert banned not in rec.fstab_line and banned not in rec.exports_line
    assert any("negotiated 131072" in r.why and "max_block_size 131072" in r.why for r in rec.fstab_reasons)


def test_no_wdelay_is_reported_as_measured_and_never_recommended() -> None:
    same = compare(
        [10.1, 10.3, 9.9, 10.0], [10.2, 10.0, 10.1, 9.8], higher_is_better=True, names=("wdelay", "no_wdelay")
    )
    rec = recommend(
        share="/export", client_spec="*", server="nas", mount_point="/mnt/nas",
        measured=Measured(no_wdelay={"seq-write": same}),
    )  # fmt: skip
    (note,) = rec.notes
    assert "no measurable difference" in note and "NFSv2 only" in note


def test_a_significant_no_wdelay_difference_is_called_host_variation() -> None:
    faster = compare(
        [10.1, 10.3, 9.9, 10.0], [12.2, 12.0, 12.1, 11.8], higher_is_better=True, names=("wdelay", "no_wdelay")
    )
    rec = recommend(
        share="/export", client_spec="*", server="nas", mount_point="/mnt/nas",
        measured=Measured(no_wdelay={"seq-write": faster}),
    )  # fmt: skip
    (note,) = rec.notes
    assert "significant" in note and "run-to-run variation, not the option" in note
    assert "no_wdelay" not in rec.exports_line
