"""The step of a guided hand change on the Run page: what to change on the NAS and where, first, then Continue and
Stop (at the end: how the NAS is left). Draws only: the page gives it the prompt and hears the answer."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from nfstune.session.admin import AS_IT_WAS, CONTINUE, STOP, WITH_CHANGE, HandPrompt
from nfstune.ui.tint import tint


class HandStep(QFrame):
    answered = Signal(str)  # CONTINUE | STOP | AS_IT_WAS | WITH_CHANGE

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Change by hand")
        self.title = QLabel(wordWrap=True)
        self.title.setStyleSheet("font-weight: bold; font-size: 11pt;")
        # at the end, how the NAS runs now and what the choice means: read before where, as the decision it is
        self.lead = QLabel(wordWrap=True)
        self.where = QLabel(wordWrap=True, textInteractionFlags=Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QLabel(wordWrap=True)
        tint(self.note, "muted")
        self.go = QPushButton("&Continue")
        self.go.setDefault(True)
        self.stop = QPushButton("&Stop")
        self.go.clicked.connect(lambda: self._answer(self._go_answer))
        self.stop.clicked.connect(lambda: self._answer(self._stop_answer))
        self._go_answer, self._stop_answer = CONTINUE, STOP
        buttons = QHBoxLayout()
        buttons.addWidget(self.go)
        buttons.addWidget(self.stop)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.lead)
        layout.addWidget(self.where)
        layout.addWidget(self.note)
        layout.addLayout(buttons)
        self.hide()

    def ask(self, prompt: HandPrompt) -> None:
        if prompt.kind == "switch":
            self.title.setText(prompt.text)
            self.note.setText(
                f"Continue once the change is saved on the NAS: block {prompt.block + 1} of {prompt.blocks} then "
                "measures it. Stop ends here, with the verdict from the blocks measured so far."
            )
            self.lead.hide()
            self.note.show()
            self.go.setText("&Continue")
            self.stop.setText("&Stop")
            self._go_answer, self._stop_answer = CONTINUE, STOP
        else:
            self.title.setText("How should the NAS be left?")
            self.lead.setText(prompt.text)
            self.lead.show()
            self.note.hide()
            self.go.setText("Leave it &as it was")
            self.stop.setText("Leave it &with the change")
            self._go_answer, self._stop_answer = AS_IT_WAS, WITH_CHANGE
        self.where.setText(f"{prompt.where_label}: {prompt.where}" if prompt.where else "")
        self.where.setVisible(bool(prompt.where))
        self.go.setEnabled(True)
        self.stop.setEnabled(True)
        self.show()
        self.go.setFocus()

    def _answer(self, answer: str) -> None:
        self.go.setEnabled(False)
        self.stop.setEnabled(False)
        self.hide()
        self.answered.emit(answer)
