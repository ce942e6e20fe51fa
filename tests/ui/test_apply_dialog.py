"""The Apply dialog shows what is wrong in the server's exports files before anything is written (the "host (rw)"
trap, no_root_squash to everyone, the line where exportfs stops reading), and no plan is made over a file that
exportfs does not read to its end."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from nfstune.advice.recommend import Measured, recommend
from nfstune.changes.apply import ApplyPlan, plan_apply
from nfstune.errors import ConfigError
from nfstune.ui.apply_dialog import DiffDialog

EXPORTS = {
    "/etc/exports": "# nas\n/srv/l host (rw)\n/srv/w *(rw,no_root_squash)\n/srv/data 10.0.0.0/24(rw,async)\n",
    "/etc/exports.d/z.exports": "/srv/z h(rw)\n/srv/bad h(rw,bogus)\n",
}


def plan_for(files: dict[str, str], share: str) -> ApplyPlan:
    rec = recommend(share=share, server="nas", exports=files, fstab="", measured=Measured())
    return plan_apply(
        files,
        "",
        share,
        rec.exports_line,
        rec.fstab_line,
        server=("nas", "root@nas:22"),
        client=("laptop", "root@laptop:22"),
    )


def shown(html: str) -> str:
    document = QTextDocument()
    document.setHtml(html)
    return document.toPlainText()


def test_the_dialog_shows_the_exports_findings(qtbot: QtBot) -> None:
    plan = plan_for(EXPORTS, "/srv/data")
    assert plan.server_edit.new.decode().endswith("/srv/data 10.0.0.0/24(rw,sync)\n")
    dialog = DiffDialog(plan.diff, None, plan.findings)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.findings.isVisible()
    text = shown(dialog.findings.text())
    assert "/etc/exports line 2 (/srv/l *): '(rw)' has no host before '('" in text
    assert "/etc/exports line 3 (/srv/w *): no_root_squash for *" in text
    assert '/etc/exports.d/z.exports line 2: unknown keyword "bogus"' in text
    assert "exportfs ignores the rest of the file" in text
    assert "+/srv/data 10.0.0.0/24(rw,sync)" in dialog.diff.toPlainText()


def test_without_findings_the_box_is_hidden(qtbot: QtBot) -> None:
    plan = plan_for({"/etc/exports": "/srv/data 10.0.0.0/24(rw,async)\n"}, "/srv/data")
    assert plan.findings == ()
    dialog = DiffDialog(plan.diff, None, plan.findings)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert not dialog.findings.isVisible()


def test_nothing_is_planned_over_a_file_exportfs_stops_reading() -> None:
    with pytest.raises(
        ConfigError,
        match=r"/etc/exports.d/z.exports line 2: unknown keyword \"bogus\".*does not "
        r"read that file to its end",
    ):
        plan_apply(
            EXPORTS,
            "",
            "/srv/z",
            "/srv/z h(rw,sync)",
            "nas:/srv/z /mnt/z nfs hard 0 0",
            server=("nas", "k"),
            client=("laptop", "k"),
        )
    # the trap line itself is left alone: the recommendation keeps it, and the plan is a no-op
    plan = plan_for(EXPORTS, "/srv/l")
    assert plan.server_edit.noop and any("has no host before" in f for f in plan.findings)
