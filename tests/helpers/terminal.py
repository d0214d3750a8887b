"""`evo-ledger play` driven through a pseudo-terminal, as a person at the table types."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import time

TIMEOUT = 30.0


class Terminal:
    """A command running in a pseudo-terminal: what it prints is read back, lines are typed into it."""

    def __init__(self, *args: str, env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True, close_fds=True
        )
        os.close(slave)
        self.seen = ""

    def expect(self, pattern: str) -> re.Match[str]:
        """Read until `pattern` shows in what was printed since the last match."""
        deadline = time.monotonic() + TIMEOUT
        while (match := re.search(pattern, self.seen)) is None:
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never showed; the terminal shows:\n{self.seen[-2000:]}")
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                self.seen += os.read(self.master, 65536).decode("utf-8", "replace")
        self.seen = self.seen[match.end() :]
        return match

    def type(self, text: str) -> None:
        os.write(self.master, text.encode("utf-8"))

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=TIMEOUT)
        os.close(self.master)
