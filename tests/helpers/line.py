"""What joins a phone to the server in the browser tests: a TCP forwarder the test cuts and mends. A browser's own
"offline" (its network emulation) tells the page there is no connection, but lets through a request made as a page
opens again, or by its service worker, a moment before it applies; a cut line lets nothing through."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from urllib.parse import urlsplit

CHUNK = 65_536


class Line:
    """A forwarder on a free port of this machine to the server at `server` (host, port): `base` is the URL the
    browser is given. Cut, each connection open is closed and each new one closed as it comes, unread, so that
    every request fails as with no signal; mended, connections are forwarded again."""

    def __init__(self, server: tuple[str, int]) -> None:
        self._server = server
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()
        self._is_cut = False
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            self._is_cut = True
            for connection in self._open:
                _closed(connection)
            self._open.clear()

    def mend(self) -> None:
        with self._lock:
            self._is_cut = False

    def close(self) -> None:
        self.cut()
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                phone, _ = self._listener.accept()
            except OSError:
                return  # the line was closed
            with self._lock:
                if self._is_cut:
                    _closed(phone)
                    continue
                server = socket.create_connection(self._server)
                self._open |= {phone, server}
            for source, sink in ((phone, server), (server, phone)):
                threading.Thread(target=self._forward, args=(source, sink), daemon=True).start()

    def _forward(self, source: socket.socket, sink: socket.socket) -> None:
        """What `source` sends, passed to `sink` until either closes; then both are closed."""
        with suppress(OSError):  # either end closed
            while chunk := source.recv(CHUNK):
                sink.sendall(chunk)
        with self._lock:
            for connection in (source, sink):
                self._open.discard(connection)
                _closed(connection)


def _closed(connection: socket.socket) -> None:
    """The connection shut both ways (which wakes a thread waiting to read it), then closed."""
    with suppress(OSError):  # already shut
        connection.shutdown(socket.SHUT_RDWR)
    connection.close()


@contextmanager
def line_to(base: str) -> Iterator[Line]:
    """A line to the server at `base`, closed once the test is done."""
    address = urlsplit(base)
    line = Line((address.hostname or "127.0.0.1", address.port or 80))
    try:
        yield line
    finally:
        line.close()
