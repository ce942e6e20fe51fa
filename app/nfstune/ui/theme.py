"""One look across the window: a palette that follows the desktop's light or dark scheme, dialog buttons without
icons, and the few text colours the pages set, each a pair chosen by scheme so that it reads on both.

Fusion (Qt's own style, what nfstune gets where the desktop offers no native one) paints with whatever palette it
is given and does not darken itself on every platform: a dark palette is set when the desktop asks for dark. A native
style (Breeze, ...) follows the desktop itself and is left alone.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleHintReturn, QStyleOption, QWidget

Scheme = Qt.ColorScheme
Role = QPalette.ColorRole

# text colours by meaning: (on a light window, on a dark one); each >= 4.5:1 against its window (WCAG AA)
TEXT_COLOURS: dict[str, tuple[str, str]] = {
    "good": ("#16702a", "#7ed491"),  # completed, healthy
    "bad": ("#b3261e", "#ff8a80"),  # failed, cancelled, read with care
    "warning": ("#8a4b00", "#ffc266"),
    "muted": ("#505050", "#b0b0b0"),
}

# Fusion's dark palette: the roles a widget reads; the disabled group greys text out
_DARK: dict[Role, str] = {
    Role.Window: "#2b2b2b",
    Role.WindowText: "#e8e8e8",
    Role.Base: "#1f1f1f",
    Role.AlternateBase: "#2f2f2f",
    Role.ToolTipBase: "#3a3a3a",
    Role.ToolTipText: "#e8e8e8",
    Role.PlaceholderText: "#9a9a9a",
    Role.Text: "#e8e8e8",
    Role.Button: "#353535",
    Role.ButtonText: "#e8e8e8",
    Role.BrightText: "#ff6b6b",
    Role.Light: "#4a4a4a",
    Role.Midlight: "#3e3e3e",
    Role.Mid: "#5a5a5a",
    Role.Dark: "#1a1a1a",
    Role.Shadow: "#000000",
    Role.Highlight: "#3d7bd9",
    Role.HighlightedText: "#ffffff",
    Role.Link: "#8ab4f8",
    Role.LinkVisited: "#c58af9",
}
_DARK_DISABLED: dict[Role, str] = {Role.WindowText: "#808080", Role.Text: "#808080", Role.ButtonText: "#808080"}


def current_scheme() -> Scheme:
    return QGuiApplication.styleHints().colorScheme()


def is_dark(scheme: Scheme | None = None) -> bool:
    """Whether the window is dark: the scheme given, else the palette in use (a native style's too, which may be
    dark where the platform reports no scheme)."""
    if scheme is not None:
        return scheme == Scheme.Dark
    return QGuiApplication.palette().color(Role.Window).lightnessF() < 0.5


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in _DARK.items():
        palette.setColor(role, QColor(colour))
    for role, colour in _DARK_DISABLED.items():
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(colour))
    return palette


def palette_for(scheme: Scheme, style: QStyle) -> QPalette:
    return dark_palette() if scheme == Scheme.Dark else style.standardPalette()


def text_colour(meaning: str, scheme: Scheme | None = None) -> QColor:
    """The colour for text that means `meaning` ("good", "bad", "warning", "muted") on the scheme's window."""
    light, dark = TEXT_COLOURS[meaning]
    return QColor(dark if is_dark(scheme) else light)


def relative_luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2's contrast ratio, 1 to 21: text wants 4.5 or more."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def primary_colours(palette: QPalette) -> tuple[QColor, QColor]:
    """A page's one suggested action (GNOME's blue button): the scheme's highlight behind its highlighted text,
    the highlight darkened until the text reads on it (4.5:1)."""
    fill, text = palette.color(Role.Highlight), palette.color(Role.HighlightedText)
    while contrast_ratio(fill, text) < 4.5 and fill.lightness() > 0:
        fill = fill.darker(110)
    return fill, text


def primary_button_style(palette: QPalette) -> str:
    """A push button drawn as the suggested action; greyed out as any button when disabled."""
    fill, text = primary_colours(palette)
    disabled = palette.color(QPalette.ColorGroup.Disabled, Role.ButtonText).name()
    return (
        f"QPushButton {{ background: {fill.name()}; color: {text.name()}; font-weight: bold;"
        f" border: 1px solid {fill.darker(130).name()}; border-radius: 3px; padding: 4px 16px; }}"
        f"QPushButton:hover {{ background: {fill.lighter(110).name()}; }}"
        f"QPushButton:pressed {{ background: {fill.darker(115).name()}; }}"
        # the keyboard's place: a ring in the window's text colour, which reads beside the blue in either scheme
        f"QPushButton:focus {{ border: 2px solid {palette.color(Role.WindowText).name()}; }}"
        f"QPushButton:disabled {{ background: {palette.color(Role.Button).name()}; color: {disabled};"
        f" border: 1px solid {palette.color(Role.Mid).name()}; font-weight: normal; }}"
    )


CHECK_INDICATORS = (
    QStyle.PrimitiveElement.PE_IndicatorCheckBox,
    QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck,
)


class _QuietButtons(QProxyStyle):
    """The style, but dialog buttons carry no icons: Fusion's red and green marks beside OK and Cancel say nothing
    the words do not, and read as alarm and go."""

    def styleHint(  # noqa: N802 (Qt's name)
        self,
        hint: QStyle.StyleHint,
        option: QStyleOption | None = None,
        widget: QWidget | None = None,
        returnData: QStyleHintReturn | None = None,  # noqa: N803 (Qt's name)
    ) -> int:
        if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
            return 0
        return super().styleHint(hint, option, widget, returnData)

    def drawPrimitive(  # noqa: N802 (Qt's name)
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        # Fusion outlines a check box in the window's colour darkened: on a dark window an unticked box all but
        # vanished (the Recipes list, "I cannot log in"); a ring in the scheme's Mid-light reads at 3:1
        if element in CHECK_INDICATORS and option.palette.color(Role.Window).lightnessF() < 0.5:
            painter.save()
            painter.setPen(QPen(option.palette.color(Role.WindowText).darker(170), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
            painter.restore()


def _style_name(style: QStyle) -> str:
    """The style's own name, also once it is wrapped in our proxy (whose own name is empty)."""
    base = style.baseStyle() if isinstance(style, QProxyStyle) else style
    return base.name().lower()


class Theme(QObject):
    """Applies the look to the application, and again whenever the desktop's scheme changes."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app
        self.fusion = _style_name(app.style()) == "fusion"
        if not isinstance(app.style(), _QuietButtons):
            app.setStyle(_QuietButtons(app.style().name()))
        app.styleHints().colorSchemeChanged.connect(self._on_color_scheme_changed)
        self._on_color_scheme_changed(current_scheme())

    @Slot(Qt.ColorScheme)
    def _on_color_scheme_changed(self, scheme: Scheme) -> None:
        if self.fusion:  # a native style paints the desktop's scheme itself
            self.app.setPalette(palette_for(scheme, self.app.style()))


def install_theme(app: QApplication) -> Theme:
    existing = app.findChild(Theme)
    return existing if isinstance(existing, Theme) else Theme(app)
