"""Where the browser tests find Debian's Chromium, the flags it is started with, and where they keep what they
show (screenshots)."""

from __future__ import annotations

import os

from tests.helpers.support import ROOT

CHROMIUM = os.environ.get("EVO_CHROMIUM", "/usr/bin/chromium")
INSTALL = "apt-get update && apt-get install -y chromium   (as root)"


# As the machine's notes advise: no network of its own, no first-run work, a fresh profile.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


ARTIFACTS = ROOT / "test-artifacts"
