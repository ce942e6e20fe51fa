"""nfstune's icon as PNGs, drawn from its SVG by Qt's own renderer (the one the window uses).

    .venv/bin/python tools/render_icons.py [--out DIR]

Reads resources/icons/hicolor/scalable/apps/nfstune.svg and writes <size>x<size>/apps/nfstune.png for every size of
SIZES into DIR (default: resources/icons/hicolor, beside the SVG). Run it after changing the SVG, and commit the PNGs:
tests/unit/test_icons.py renders them again and fails while the committed ones differ.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HICOLOR = Path(__file__).resolve().parents[1] / "resources" / "icons" / "hicolor"
SVG = HICOLOR / "scalable" / "apps" / "nfstune.svg"
# the sizes desktops ask the hicolor theme for, menus (16-48) to docks and the alt-tab switcher (64-256)
SIZES = (16, 24, 32, 48, 64, 128, 256)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=HICOLOR, help="the hicolor folder to write into")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # a QPainter on a QImage needs one
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        print(f"Qt cannot read {SVG}", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        target = args.out / f"{size}x{size}" / "apps" / "nfstune.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.convertToFormat(QImage.Format.Format_ARGB32).save(str(target), "PNG"):
            print(f"cannot write {target}", file=sys.stderr)
            return 1
        print(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
