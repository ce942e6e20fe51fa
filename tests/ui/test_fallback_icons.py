"""The icons of the buttons and messages: each name the app asks the desktop's theme for has a drawing of ours that
Qt finds by that name alone when the theme has none, and that reads on a light and on a dark window."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QIcon, QImage
from PySide6.QtWidgets import QApplication, QStyleFactory

from nfstune import paths
from nfstune.ui import icons
from nfstune.ui.theme import contrast_ratio, dark_palette

SVG = "{http://www.w3.org/2000/svg}"
NO_THEME = "nfstune-no-such-theme"
FOLDER = Path(__file__).resolve().parents[2] / "resources" / "icons" / "fallback"


@pytest.fixture
def no_theme(qapp: QApplication) -> Iterator[None]:
    """A desktop whose theme has none of the icons: only the fallback search path is left to find them."""
    saved = (QIcon.themeName(), QIcon.fallbackThemeName(), QIcon.themeSearchPaths(), QIcon.fallbackSearchPaths())
    QIcon.setThemeName(NO_THEME)
    QIcon.setFallbackThemeName(NO_THEME)
    QIcon.setThemeSearchPaths([])
    QIcon.setFallbackSearchPaths([str(FOLDER)])
    yield
    theme, fallback_theme, theme_paths, fallback_paths = saved
    QIcon.setThemeSearchPaths(theme_paths)
    QIcon.setFallbackSearchPaths(fallback_paths)
    QIcon.setFallbackThemeName(fallback_theme)
    QIcon.setThemeName(theme)


def opaque_pixels(image: QImage) -> int:
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    return sum(image.pixelColor(x, y).alpha() > 128 for y in range(image.height()) for x in range(image.width()))


def test_the_bundled_folder_is_the_one_the_app_reads_and_holds_one_svg_per_name() -> None:
    assert paths.fallback_icons_dir().resolve() == FOLDER
    assert sorted(p.name for p in FOLDER.iterdir()) == sorted(f"{name}.svg" for name in icons.NAMES.values())


@pytest.mark.parametrize("name", sorted(icons.NAMES.values()))
def test_each_name_loads_from_the_fallback_search_path_alone(no_theme: None, name: str) -> None:
    found = QIcon.fromTheme(name)
    assert not found.isNull(), name
    image = found.pixmap(32, 32).toImage()
    assert image.width() == 32 and opaque_pixels(image) > 32  # drawn, not an empty page


@pytest.mark.parametrize("what", sorted(icons.NAMES))
def test_the_module_gives_a_drawn_icon_without_a_theme(no_theme: None, what: str) -> None:
    QIcon.setFallbackSearchPaths([])  # its own fallback, given to fromTheme, is enough
    image = icons.icon(what).pixmap(24, 24).toImage()
    assert not image.isNull() and opaque_pixels(image) > 24


def svg_colours(path: Path) -> set[str]:
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 16 16"
    assert (root.findtext(f"{SVG}title") or "").strip()
    found = set()
    for element in root.iter():
        for attribute in ("fill", "stroke"):
            value = element.get(attribute)
            if value not in (None, "none"):
                assert re.fullmatch(r"#[0-9a-f]{6}", value or ""), (path.name, value)
                found.add(value or "")
    return found


def window_colours() -> tuple[QColor, QColor]:
    light = QStyleFactory.create("Fusion").standardPalette().color(dark_palette().ColorRole.Window)
    return light, dark_palette().color(dark_palette().ColorRole.Window)


@pytest.mark.parametrize("name", sorted(icons.NAMES.values()))
def test_each_drawing_reads_on_a_light_and_a_dark_window(qapp: QApplication, name: str) -> None:
    """One colour against either window (3:1, as WCAG asks of a control's graphics); a severity's shape carries
    its own mark, which reads against the shape whatever the window."""
    colours = [QColor(c) for c in svg_colours(FOLDER / f"{name}.svg")]
    if len(colours) == 1:
        assert all(contrast_ratio(colours[0], window) >= 3 for window in window_colours()), name
    else:
        assert name.startswith("dialog-") and len(colours) == 2
        assert contrast_ratio(*colours) >= 4.5, name
