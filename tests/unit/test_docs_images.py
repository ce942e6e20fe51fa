"""Every picture the README and the screenshots' index show is in the repository (a renamed or dropped screenshot
left the README pointing at nothing)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)|<img src=\"([^\"]+\.png)\"|\]\(([^)\s]+\.png)\)")


@pytest.mark.parametrize("document", ["README.md", "docs/screenshots/README.md"])
def test_every_picture_a_document_shows_exists(document: str) -> None:
    path = ROOT / document
    if not path.exists():
        pytest.skip(f"{document} is written by `make screenshots`")
    found = [next(g for g in m.groups() if g) for m in PICTURE.finditer(path.read_text())]
    assert found, f"{document} shows no picture"
    missing = [name for name in found if not (path.parent / name).is_file()]
    assert missing == [], f"{document} shows pictures that are not there: {missing}"
