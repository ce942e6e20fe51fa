"""A stand-in freedesktop notification server for tests/unit/test_watch_status.py: registers
org.freedesktop.Notifications on the session bus the environment names (QtDBus), answers Notify with an id, and
writes each call's arguments as a JSON line to the file given. Prints "ready" once it is on the bus."""

from __future__ import annotations

import json
import sys
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Slot
from PySide6.QtDBus import QDBusConnection


class Notifications(QObject):
    def __init__(self, out: str) -> None:
        super().__init__()
        self.out = out

    @Slot(str, "uint", str, str, str, "QStringList", "QVariantMap", int, result="uint")
    def Notify(  # noqa: N802 (the D-Bus method's name)
        self,
        app: str,
        replaces: int,
        icon: str,
        summary: str,
        body: str,
        actions: list[str],
        hints: dict[str, Any],
        timeout: int,
    ) -> int:
        hints = {k: v if isinstance(v, str) else int(v) for k, v in hints.items()}
        with open(self.out, "a", encoding="utf-8") as calls:
            calls.write(json.dumps([app, replaces, icon, summary, body, list(actions), hints, timeout]) + "\n")
        return 1


def main() -> None:
    app = QCoreApplication([])
    bus = QDBusConnection.sessionBus()
    server = Notifications(sys.argv[1])
    exported = bus.registerObject(
        "/org/freedesktop/Notifications",
        "org.freedesktop.Notifications",
        server,
        QDBusConnection.RegisterOption.ExportAllSlots,
    )
    if not exported or not bus.registerService("org.freedesktop.Notifications"):
        raise SystemExit(f"could not register on the session bus: {bus.lastError().message()}")
    print("ready", flush=True)
    app.exec()


if __name__ == "__main__":
    main()
