"""Plain text for a rich-text QLabel."""

from __future__ import annotations

import html


def rich(text: str) -> str:
    """Qt's rich text shows "&#x27;" as it is, so quotes stay unescaped (they need none outside attributes);
    leading blanks are kept as the indent they are."""
    body = text.lstrip(" ")
    return "&nbsp;" * (len(text) - len(body)) + html.escape(body, quote=False)
