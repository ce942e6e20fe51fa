"""nfstune's icon: the SVG, and beside it in the hicolor layout the PNG of every size desktops ask for, each drawn
from the SVG as it is now (tools/render_icons.py draws them; run it after changing the SVG)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage

REPO = Path(__file__).resolve().parents[2]
HICOLOR = REPO / "resources" / "icons" / "hicolor"
SVG = HICOLOR / "scalable" / "apps" / "nfstune.svg"
SIZES = (16, 24, 32, 48, 64, 128, 256)


def png(folder: Path, size: int) -> Path:
    return folder / f"{size}x{size}" / "apps" / "nfstune.png"


def pixels(path: Path) -> np.ndarray:
    image = QImage(str(path))
    assert not image.isNull(), path
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4).copy()


def test_the_svg_is_square_and_has_a_title() -> None:
    root = ET.parse(SVG).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 256 256" and root.get("width") == root.get("height") == "256"
    assert root.findtext("{http://www.w3.org/2000/svg}title") == "nfstune"


def test_one_png_for_each_size_and_nothing_else() -> None:
    shipped = sorted(p.relative_to(HICOLOR) for p in HICOLOR.rglob("*") if p.is_file())
    expected = sorted([png(Path(), size) for size in SIZES] + [SVG.relative_to(HICOLOR)])
    assert shipped == expected


@pytest.mark.parametrize("size", SIZES)
def test_each_png_is_the_size_its_folder_says(size: int) -> None:
    image = pixels(png(HICOLOR, size))
    assert image.shape == (size, size, 4)
    alpha = image[..., 3]
    assert alpha[0, 0] == 0 and alpha.max() == 255  # drawn on a transparent ground


def test_the_pngs_are_drawn_from_the_svg_as_it_is(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    subprocess.run(
        [sys.executable, str(REPO / "tools" / "render_icons.py"), "--out", str(tmp_path)],
        check=True,
        env=env,
        capture_output=True,
    )
    assert set(tmp_path.rglob("*.png")) == {png(tmp_path, size) for size in SIZES}
    for size in SIZES:
        fresh, committed = pixels(png(tmp_path, size)), pixels(png(HICOLOR, size))
        # the same renderer (Qt is pinned) draws the same pixels; a changed SVG moves far more than this
        difference = np.abs(fresh.astype(int) - committed.astype(int))
        assert difference.max() <= 2, f"{size}x{size}: run tools/render_icons.py and commit the PNGs"
