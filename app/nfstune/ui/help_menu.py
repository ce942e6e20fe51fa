"""The Help menu: the user guide, the diagnostics a bug report wants, and About (version, licence)."""

from __future__ import annotations

import html
from importlib import metadata
from pathlib import Path

from PySide6.QtCore import QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices, QFontDatabase, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

import nfstune
from nfstune import paths
from nfstune.ui.crash import versions
from nfstune.ui.icons import icon

# the README's part for users ends where the part for developers begins
GUIDE_START, GUIDE_END = "## Install", "## Tests"
CHECKOUT_DIR = Path(nfstune.__file__).resolve().parents[2]


def _distribution() -> metadata.PackageMetadata | None:
    try:
        return metadata.metadata("nfstune")
    except metadata.PackageNotFoundError:
        return None


def description() -> str:
    """The one line pyproject.toml describes nfstune with, as installed (the package docstring if it is not)."""
    meta = _distribution()
    summary = meta.get("Summary") if meta is not None else None
    return summary or (nfstune.__doc__ or "").split(": ", 1)[-1].strip()


def licence_text() -> str:
    """The LICENSE file: the checkout's, else the copy the wheel carries (PEP 639: licenses/ in its dist-info)."""
    shipped = CHECKOUT_DIR / "LICENSE"
    if shipped.is_file():
        return shipped.read_text(encoding="utf-8")
    try:
        return metadata.distribution("nfstune").read_text("licenses/LICENSE") or ""
    except metadata.PackageNotFoundError:
        return ""


def licence_name() -> str:
    meta = _distribution()
    return (meta.get("License-Expression") if meta is not None else None) or "MIT"


def about_text() -> str:
    copyright_line = next((line for line in licence_text().splitlines() if line.startswith("Copyright")), "")
    return "\n".join(
        [
            f"nfstune {nfstune.__version__}",
            description(),
            "",
            f"Licence: {licence_name()}" + (f" ({copyright_line})" if copyright_line else ""),
        ]
    )


def diagnostics_text() -> str:
    """What a bug report needs besides the steps: the versions, and where the data and logs are."""
    lines = [f"{name}: {version}" for name, version in versions().items()]
    lines += [f"data folder: {paths.data_dir()}", f"log folder: {paths.log_dir()}"]
    return "\n".join(lines)


def user_guide_markdown() -> str:
    """The README's user part: the checkout's README.md, else the copy installed as the package's description."""
    readme = CHECKOUT_DIR / "README.md"
    if readme.is_file():
        text = readme.read_text(encoding="utf-8")
    else:
        meta = _distribution()
        text = (meta.get_payload() if meta is not None else "") or ""  # type: ignore[attr-defined]
    start = text.find(GUIDE_START)
    end = text.find(GUIDE_END, max(start, 0))
    return text[max(start, 0) : end if end > 0 else None]


def write_user_guide(folder: Path) -> Path:
    """The user guide as an HTML page in `folder`: a browser shows it where a .md file may open in an editor."""
    document = QTextDocument()
    document.setMarkdown(user_guide_markdown())
    folder.mkdir(parents=True, exist_ok=True)
    page = folder / "user-guide.html"
    body = document.toHtml()
    page.write_text(body.replace("<head>", "<head><title>nfstune user guide</title>", 1), encoding="utf-8")
    return page


class DiagnosticsDialog(QDialog):
    """The diagnostics, copied to the clipboard as it opens and shown, to be read or pasted into an issue."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("nfstune: diagnostics")
        self.text = diagnostics_text()
        QApplication.clipboard().setText(self.text)
        said = QLabel("Copied to the clipboard: paste it into a bug report with the steps that led to the problem.")
        said.setWordWrap(True)
        shown = QPlainTextEdit(self.text, readOnly=True)
        shown.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        shown.setAccessibleName("Diagnostics")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(said)
        layout.addWidget(shown)
        layout.addWidget(buttons)
        self.resize(640, 320)


def about_box(parent: QWidget) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About nfstune")
    box.setIconPixmap(QApplication.windowIcon().pixmap(64))
    box.setTextFormat(box.textFormat().RichText)
    lines = about_text().splitlines()
    box.setText(f"<b>{html.escape(lines[0])}</b><br>" + "<br>".join(html.escape(line) for line in lines[1:]))
    box.setDetailedText(licence_text())
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    return box


class HelpMenu:
    """Help's actions on `window`'s menu bar; the dialogs are kept so that a test (and the window) can reach them."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.diagnostics: DiagnosticsDialog | None = None
        self.about: QMessageBox | None = None
        menu = window.menuBar().addMenu("&Help")
        self.guide_action = QAction(icon("help"), "&User guide", window, shortcut="F1")
        self.guide_action.triggered.connect(self._on_guide_triggered)
        self.diagnostics_action = QAction(icon("copy"), "&Copy diagnostics", window)
        self.diagnostics_action.triggered.connect(self._on_diagnostics_triggered)
        self.about_action = QAction("&About nfstune", window)
        self.about_action.triggered.connect(self._on_about_triggered)
        for action in (self.guide_action, self.diagnostics_action, self.about_action):
            menu.addAction(action)

    @Slot()
    def _on_guide_triggered(self) -> None:
        page = write_user_guide(paths.cache_dir() / "help")
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(page)))

    @Slot()
    def _on_diagnostics_triggered(self) -> None:
        self.diagnostics = DiagnosticsDialog(self.window)
        self.diagnostics.show()

    @Slot()
    def _on_about_triggered(self) -> None:
        self.about = about_box(self.window)
        self.about.show()
