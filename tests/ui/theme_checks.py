"""What the theme tests share: the WCAG 2 contrast ratio worked out from its definition (not from the module under
test), and the application as nfstune sets it up, put back afterwards as the other tests had it."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from nfstune.ui import theme
from nfstune.ui.app import application


def wcag(foreground: QColor, background: QColor) -> float:
    """The WCAG 2 ratio worked out here, from the definition, not from the module under test."""

    def lum(c: QColor) -> float:
        def ch(v: float) -> float:
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF())

    a, b = sorted((lum(foreground), lum(background)), reverse=True)
    return (a + 0.05) / (b + 0.05)


def nfstune_app(qapp: QApplication) -> Iterator[QApplication]:
    """For a module's `app` fixture: the application as nfstune sets it up; afterwards the scheme, style and
    palette the other tests had."""
    style = qapp.style().name()
    application()
    yield qapp
    qapp.styleHints().unsetColorScheme()
    follower = qapp.findChild(theme.Theme)
    if follower is not None:
        qapp.styleHints().colorSchemeChanged.disconnect(follower._on_color_scheme_changed)
        follower.setParent(None)
    qapp.setStyle(style)
    qapp.setPalette(qapp.style().standardPalette())
