"""The recommendation page: the lines with their reasons, async only behind an opt-in warning box, copy, save,
apply."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QPalette, QTextDocument
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from nfstune.advice.recommend import EXPORTS_ASYNC_WARNING, PLAIN_RISK, Measured, Recommendation, recommend
from nfstune.statistics.verdict import Question, Verdict, judge
from nfstune.ui.pages.recommendation import RecommendationPage
from nfstune.ui.theme import text_colour

SYNC_S = [26.0, 25.8, 26.3, 26.1, 25.9]  # lab-poc figures: untar on a sync export, hdd profile (seconds)
ASYNC_S = [6.4, 6.1, 5.9, 6.2, 6.0]
WDELAY_MS, NO_WDELAY_MS = [61.0, 64.0, 59.0, 63.0], [62.0, 60.0, 63.5, 61.0]
EXPORTS_SENTENCE = (
    "This option allows the NFS server to violate the NFS protocol and reply to requests before any changes made by "
    "that request have been committed to stable storage (e.g. disc drive)."
)


def verdict(baseline: list[float], other: list[float], names: tuple[str, str]) -> Verdict:
    """Lower is better (seconds, ms); round n of one beside round n of the other."""
    question = Question(("w",), dict(enumerate(baseline, 1)), dict(enumerate(other, 1)), False, names)
    (found,) = judge([question])
    return found


@pytest.fixture
def with_async() -> Recommendation:
    return recommend(
        share="/srv/data",
        server="nas",
        mount_point="/mnt/data",
        exports="/srv/data 192.168.1.0/24(rw,async,no_root_squash)\n",
        measured=Measured(
            async_vs_sync={"small-files": verdict(SYNC_S, ASYNC_S, ("sync", "async"))},
            no_wdelay={"sync-4k": verdict(WDELAY_MS, NO_WDELAY_MS, ("wdelay", "no_wdelay"))},
            negotiated_rsize=65536,
            server_max_block_size=65536,
        ),
    )


@pytest.fixture
def page(qtbot: QtBot) -> RecommendationPage:
    widget = RecommendationPage()
    qtbot.addWidget(widget)
    widget.resize(1366, 768)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shown_text(label: QLabel) -> str:
    """What a rich-text label shows, entities decoded."""
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText()


def test_lines_and_reasons(page: RecommendationPage, with_async: Recommendation) -> None:
    assert not page.copy_button.isEnabled() and not page.apply_button.isEnabled()  # nothing to act on yet
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    assert page.exports_line.text() == "/srv/data 192.168.1.0/24(rw,sync,no_root_squash)"
    assert page.fstab_line.text() == "nas:/srv/data /mnt/data nfs vers=4.2,hard,_netdev,nofail 0 0"
    assert page.exports_line.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByKeyboard
    assert page.exports_box.title() == "/etc/exports on nas" and page.fstab_box.title() == "/etc/fstab on laptop"
    reasons = shown_text(page.exports_reasons)
    assert "sync: writes are on disk before the server confirms them; async measured faster" in reasons
    assert "max_block_size 65536" in shown_text(page.fstab_reasons)
    notes = shown_text(page.notes_label)
    assert "no_wdelay, sync-4k: no_wdelay against wdelay: not settled (" in notes and "95 % CI" in notes
    assert "significant" not in notes + reasons


def test_async_box_is_hidden_until_asked_for(
    page: RecommendationPage, qtbot: QtBot, with_async: Recommendation
) -> None:
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    assert page.show_async_check.isVisible() and not page.show_async_check.isChecked()
    assert not page.async_box.isVisible() and not page.no_async_label.isVisible()
    page.show_async_check.setFocus()
    qtbot.keyClick(page.show_async_check, Qt.Key.Key_Space)  # the keyboard reaches it
    assert page.async_box.isVisible()
    assert page.async_title.text() == "Not recommended by default: async"
    assert page.async_line.text() == "/srv/data 192.168.1.0/24(rw,async,no_root_squash)"
    assert EXPORTS_SENTENCE in shown_text(page.async_warning)
    assert EXPORTS_ASYNC_WARNING in shown_text(page.async_warning)  # verbatim, quotes and all
    assert PLAIN_RISK in shown_text(page.async_risk) and "UPS" in shown_text(page.async_conditions)
    assert "async is 4.3x faster than sync" in shown_text(page.async_gain)
    page.show_async_check.setChecked(False)
    assert not page.async_box.isVisible()
    page.show_async_check.setChecked(True)
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")  # a new one starts hidden again
    assert not page.async_box.isVisible() and not page.show_async_check.isChecked()


def test_without_an_async_alternative_the_checkbox_is_hidden(page: RecommendationPage) -> None:
    same = verdict(SYNC_S, [26.2, 25.7, 26.0, 26.4, 25.9], ("sync", "async"))
    rec = recommend(
        share="/srv/data",
        exports="/srv/data *(ro)\n",
        server="nas",
        mount_point="/mnt/nas",
        measured=Measured(async_vs_sync={"small-files": same}),
    )
    assert rec.async_alternative is None
    page.show_recommendation(rec, server_label="nas", client_label="laptop", async_measured=True)
    assert not page.show_async_check.isVisible() and not page.async_box.isVisible()
    assert page.no_async_label.isVisible()
    assert page.no_async_label.text().startswith("async was measured and did not help here")
    page.show_recommendation(rec, server_label="nas", client_label="laptop")
    assert "not measured to help here, or was not measured" in page.no_async_label.text()


def test_copy_puts_both_lines_on_the_clipboard(
    page: RecommendationPage, qtbot: QtBot, with_async: Recommendation
) -> None:
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    QGuiApplication.clipboard().setText("something else")
    qtbot.mouseClick(page.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text().splitlines() == [
        "# /etc/exports on nas",
        with_async.exports_line,
        "# /etc/fstab on laptop",
        with_async.fstab_line,
    ]


def test_save_writes_lines_and_reasons(
    page: RecommendationPage, qtbot: QtBot, tmp_path: Path, with_async: Recommendation
) -> None:
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    target = tmp_path / "recommendation.txt"
    asked: list[str] = []

    def dialog(_parent: object, caption: str, suggested: str, _filter: str) -> tuple[str, str]:
        asked.append(caption)
        return str(target), _filter

    page.ask_save_path = dialog
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    lines = target.read_text().splitlines()
    assert asked == ["Save the recommendation"]
    assert with_async.exports_line in lines and with_async.fstab_line in lines
    # access is kept as the admin wrote it, and no_root_squash is named for what it allows
    assert (
        "#   192.168.1.0/24: rw,no_root_squash: kept as you have it; no_root_squash: root on that client is root on "
        "these files too (exports(5)); nfstune leaves access as is"
    ) in lines
    assert any(line.startswith("#   hard: the default") for line in lines)
    assert any("no_wdelay, sync-4k" in line for line in lines)
    assert page.status.text() == f"Wrote {target}"
    page.ask_save_path = lambda *args: ("", "")  # cancelled: nothing written, nothing said
    target.unlink()
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert not target.exists()


def test_apply_only_emits_and_shows_the_outcome(
    page: RecommendationPage, qtbot: QtBot, with_async: Recommendation
) -> None:
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    with qtbot.waitSignal(page.apply_requested, timeout=1000):
        qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    page.set_apply_state("Applied and verified", True)
    good, bad = text_colour("good").name(), text_colour("bad").name()
    shown = page.apply_state.palette().color(QPalette.ColorRole.WindowText).name()
    assert page.apply_state.text() == "Applied and verified" and shown == good
    page.set_apply_state("Rolled back: exportfs -ra failed", False)
    shown = page.apply_state.palette().color(QPalette.ColorRole.WindowText).name()
    assert page.apply_state.text().startswith("Rolled back") and shown == bad
    assert good != bad


def test_the_page_says_the_line_is_the_admins_own_entry(page: RecommendationPage) -> None:
    rec = recommend(
        share="/srv/a",
        server="nas",
        exports="/srv/a -ro,no_root_squash,async host1\n",
        fstab="nas:/srv/a/ /home/me/A nfs4 ro,sec=krb5p 0 0\n",
        measured=Measured(best_version="4.1", version_reason="4.1 measured faster"),
    )
    page.show_recommendation(rec, server_label="nas", client_label="laptop")
    assert page.exports_line.text() == "/srv/a -ro,no_root_squash,async host1(sync)"
    assert page.exports_state.text().startswith("Your entry in /etc/exports with only sync changed")
    assert page.exports_state.text().endswith("Now:\n/srv/a -ro,no_root_squash,async host1")
    assert page.fstab_line.text() == "nas:/srv/a/ /home/me/A nfs4 ro,sec=krb5p,vers=4.1 0 0"
    assert page.fstab_state.text().endswith("Now:\nnas:/srv/a/ /home/me/A nfs4 ro,sec=krb5p 0 0")
    new = recommend(share="/srv/n", server="nas", exports={}, client_spec="@team", measured=Measured())
    page.show_recommendation(new, server_label="nas", client_label="laptop")
    assert page.exports_state.text() == "The share is not exported yet: this line would be added to /etc/exports."
    assert page.fstab_state.text().startswith("The client has no entry for this share")


def test_the_admin_chooses_the_mount_point_of_a_new_fstab_line(
    page: RecommendationPage, qtbot: QtBot, with_async: Recommendation
) -> None:
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    assert page.mount_point_row.isVisible() and page.mount_point_edit.text() == "/mnt/data"
    chosen: list[str] = []
    page.mount_point_changed.connect(chosen.append)
    page.mount_point_edit.setText("data")  # not absolute: refused, said, nothing emitted
    page.mount_point_edit.editingFinished.emit()
    assert chosen == [] and "not an absolute path" in page.status.text()
    page.mount_point_edit.setText("/srv/nas data")
    page.mount_point_edit.editingFinished.emit()
    assert chosen == ["/srv/nas data"]


def test_an_existing_fstab_entry_keeps_its_mount_point(page: RecommendationPage) -> None:
    rec = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data h(rw,sync)\n",
        fstab="nas:/srv/data /home/me/data nfs vers=4.2 0 0\n",
        measured=Measured(),
    )
    page.show_recommendation(rec, server_label="nas", client_label="laptop")
    assert not page.mount_point_row.isVisible()


def test_undo_is_offered_before_any_recommendation_and_only_emits(page: RecommendationPage, qtbot: QtBot) -> None:
    assert page.undo_button.isEnabled()  # an Apply of an earlier session can be undone at any time
    with qtbot.waitSignal(page.undo_requested, timeout=1000):
        page.undo_button.click()


def test_without_a_login_on_the_server_the_fstab_line_stands_alone_and_apply_is_not_offered(
    page: RecommendationPage,
) -> None:
    rec = recommend(share="/volume1/data", server="nas", measured=Measured(), fstab=None, server_login=False)
    page.show_recommendation(rec, server_label="nas (no login)", client_label="client", can_apply=False)
    assert not page.exports_box.isVisible() and page.fstab_box.isVisible()
    assert not page.apply_button.isEnabled() and "no login there" in page.apply_button.toolTip()
    assert "its exports were not read" in shown_text(page.notes_label)
    page.copy_button.click()
    assert QGuiApplication.clipboard().text() == f"# /etc/fstab on client\n{rec.fstab_line}\n"
    # a later recommendation with a login offers both again
    page.show_recommendation(
        recommend(share="/srv/data", server="nas", measured=Measured(), exports="/srv/data 10.0.0.0/8(rw,sync)\n"),
        server_label="nas",
        client_label="client",
    )
    assert page.exports_box.isVisible() and page.apply_button.isEnabled()


def top(widget: QWidget, page: RecommendationPage) -> int:
    return widget.mapTo(page, QPoint(0, 0)).y()


def test_the_decision_comes_first_and_the_full_sentences_wait_behind_details(
    page: RecommendationPage, qtbot: QtBot, with_async: Recommendation
) -> None:
    assert page.headline.text().startswith("No recommendation yet")
    page.resize(1024, 700)
    page.show_recommendation(with_async, server_label="nas", client_label="this computer")
    assert page.headline.text() == "Change 1 option on nas and add 1 line on this computer"
    assert page.why.isVisible() and "async was measured 4.3x faster on small files" in page.why.text()
    assert page.headline.font().pointSizeF() > page.exports_line.font().pointSizeF() > page.why.font().pointSizeF()
    assert top(page.headline, page) < top(page.why, page) < top(page.exports_box, page) < top(page.fstab_box, page)
    # what changes in the line, marked, and the line as it was
    card = page.exports_box
    assert card.changes.isVisible() and "async" in shown_text(card.changes) and "sync" in shown_text(card.changes)
    assert card.was.text() == "was: /srv/data 192.168.1.0/24(rw,async,no_root_squash)"
    assert not page.fstab_box.was.isVisible()  # a new line was nothing before
    # a few words a reason on the card; the sentences with their intervals behind Details, closed
    words = [label.text() for label in card.findChildren(QLabel) if label.isVisible()]
    assert "writes are on disk before the server confirms them" in words
    assert not any("95 % CI" in text for text in words)
    assert not page.exports_reasons.isVisible() and not page.exports_state.isVisible()
    qtbot.mouseClick(card.details.button, Qt.MouseButton.LeftButton)
    assert page.exports_reasons.isVisible() and "95 % CI 4.1x to 4.4x faster" in shown_text(page.exports_reasons)
    assert page.exports_state.isVisible() and page.exports_state.text().startswith("Your entry in /etc/exports")
    # a note in one line; in full behind its own Details
    (row,) = [label.text() for label in page.notes_box.findChildren(QLabel) if label.isVisible()][1:]
    assert "not recommended" in row and "95 % CI" not in row
    assert not page.notes_label.isVisible()
    page.notes_details.set_open(True)
    assert page.notes_label.isVisible() and "the kernel ignores no_wdelay" in shown_text(page.notes_label)


def test_the_page_says_nothing_to_change_and_without_a_login_what_to_do_instead(page: RecommendationPage) -> None:
    same = recommend(
        share="/srv/data",
        server="nas",
        exports="/srv/data h(rw,sync)\n",
        fstab="nas:/srv/data /home/me/data nfs vers=4.2 0 0\n",
        measured=Measured(),
    )
    page.show_recommendation(same, server_label="nas", client_label="laptop")
    assert page.headline.text() == "Your settings already read as recommended: nothing to change"
    assert page.exports_box.status.isVisible() and "no change" in shown_text(page.fstab_box.status)
    assert not page.exports_box.changes.isVisible()
    alone = recommend(share="/volume1/data", server="nas", measured=Measured(), fstab=None, server_login=False)
    page.show_recommendation(alone, server_label="nas (no login)", client_label="laptop", can_apply=False)
    assert page.headline.text() == "Add this line on laptop; change the NAS in its own interface"
    assert "no login there" in page.status.text()  # said beside the greyed-out Apply, not only in its tooltip


def test_apply_is_the_only_way_to_the_diff_and_enter_in_the_mount_point_field_does_not_press_it(
    qtbot: QtBot, tmp_path: Path, with_async: Recommendation
) -> None:
    # inside a dialog, whose Enter presses its default button: the strictest place for the page to be
    host = QDialog()
    qtbot.addWidget(host)
    page = RecommendationPage(host)
    QVBoxLayout(host).addWidget(page)
    host.resize(1024, 700)
    host.show()
    qtbot.waitExposed(host)
    page.show_recommendation(with_async, server_label="nas", client_label="laptop")
    asked: list[bool] = []
    page.apply_requested.connect(lambda: asked.append(True))
    page.mount_point_edit.setFocus()
    qtbot.keyClick(page.mount_point_edit, Qt.Key.Key_Return)
    qtbot.keyClick(page.mount_point_edit, Qt.Key.Key_Enter)
    page.ask_save_path = lambda *args: (str(tmp_path / "r.txt"), "")
    for button in (page.copy_button, page.save_button):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert asked == [] and host.isVisible()
    assert not any(b.isDefault() for b in (page.apply_button, page.copy_button, page.save_button, page.undo_button))
    # last in the row of actions, where the eye ends
    row = [page.undo_button, page.copy_button, page.save_button, page.apply_button]
    assert sorted(row, key=lambda b: b.mapTo(page, QPoint(0, 0)).x())[-1] is page.apply_button
    qtbot.mouseClick(page.apply_button, Qt.MouseButton.LeftButton)
    assert asked == [True]
