"""Installs Debian's Chromium for the browser tests where it is missing and it can (as root, with apt-get);
otherwise says how, and the browser tests then skip (or fail under CI=true) with the same command.

    python -m tools.ensure_chromium
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

CHROMIUM = os.environ.get("EVO_CHROMIUM", "/usr/bin/chromium")
INSTALL = "apt-get update && apt-get install -y chromium"


def main() -> int:
    if Path(CHROMIUM).is_file():
        return 0
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        print(f"Chromium is not at {CHROMIUM}; the browser tests need it: {INSTALL}   (as root)", file=sys.stderr)
        return 0
    print(f"installing Chromium for the browser tests: {INSTALL}", file=sys.stderr, flush=True)
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(INSTALL, shell=True, env=environment, check=False, stdout=subprocess.DEVNULL)
    if done.returncode != 0 or not Path(CHROMIUM).is_file():
        print(f"Chromium could not be installed; run as root: {INSTALL}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
