"""The desktop window (PySide6). Nothing outside ui/ imports Qt."""
