"""`make screenshots`: PNGs of nfstune's windows, taken from a real window under Xvfb (not offscreen).

Boots the practice lab if it is not up (it stays up), starts `nfstune` as a user would, waits for its first
poll, and captures the screen with ImageMagick's `import`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

SCREEN = "1366x768x24"  # the smallest screen the window must be usable on


def main(out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    nfstune = [sys.executable, "-m", "nfstune"]
    subprocess.run([*nfstune, "lab", "up"], check=True)
    env = dict(os.environ)
    xvfb = None
    if not env.get("DISPLAY"):
        env["DISPLAY"] = ":99"
        xvfb = subprocess.Popen(["Xvfb", ":99", "-screen", "0", SCREEN, "-nolisten", "tcp"])
        time.sleep(1.5)
    env["QT_QPA_PLATFORM"] = "xcb"
    gui = subprocess.Popen(nfstune, env=env)
    try:
        time.sleep(12)  # window up, first SSH poll of both VMs done
        if gui.poll() is not None:
            raise SystemExit(f"nfstune exited early with status {gui.returncode}")
        target = out / "lab-window.png"
        subprocess.run(["import", "-window", "root", str(target)], env=env, check=True)
        subprocess.run(["convert", str(target), "-trim", "+repage", str(target)], check=True)  # drop the empty screen
        print(f"wrote {target}")
    finally:
        gui.terminate()
        gui.wait(timeout=15)
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
