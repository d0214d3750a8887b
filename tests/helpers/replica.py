"""A PostgreSQL primary and its streaming replica, started by the test in a fresh temporary folder.

The primary is made with `initdb`, the replica with `pg_basebackup` from it; each listens on a free loopback port
and on a socket in the folder. PostgreSQL refuses to run as root, so as root every server program runs as the
`postgres` user (else `nobody`), otherwise as the test's own user. The folder is made in the system's temporary
folder, which that user can enter. Both servers are stopped and the folder removed when the block ends.
Where the server programs are missing the tests are skipped, saying how to install them; under CI=true they fail.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.helpers.databases import missing
from tools.ensure_test_programs import INSTALL_POSTGRES, SERVER_PROGRAMS, postgres_bindir

DATABASE = "evo"
UNPRIVILEGED_USERS = ("postgres", "nobody")
START_ATTEMPTS = 5  # a free port taken by another process before the server binds it is tried again
LOG_TAIL_LINES = 20


def server_account() -> pwd.struct_passwd | None:
    """The user to run the server programs as, where the test runs as root: `postgres`, else `nobody`."""
    for name in UNPRIVILEGED_USERS:
        with suppress(KeyError):
            return pwd.getpwnam(name)
    return None


def server_programs_missing() -> str | None:
    if postgres_bindir() is None:
        return (
            f"PostgreSQL's server programs ({', '.join(SERVER_PROGRAMS)}) are not in EVO_TEST_POSTGRES_BIN,"
            " `pg_config --bindir` or /usr/lib/postgresql/*/bin"
        )
    if os.geteuid() == 0 and server_account() is None:
        return f"the tests run as root, and no user ({', '.join(UNPRIVILEGED_USERS)}) exists to run PostgreSQL as"
    return None


def require_server_programs() -> None:
    problem = server_programs_missing()
    if problem is None:
        return
    enable = f"install them with `{INSTALL_POSTGRES}` (as root), or set EVO_TEST_POSTGRES_BIN to their folder"
    missing(problem, f"CI runs the replica tests ({enable})", f"{enable}, to run the replica tests")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def log_tail(log: Path) -> str:
    lines = log.read_text(errors="replace").splitlines() if log.exists() else ["(no log)"]
    return "\n".join(lines[-LOG_TAIL_LINES:])


@dataclass
class Server:
    data: Path
    log: Path
    port: int = 0

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"


# A test's server: nothing in it needs to survive a crash of the machine.
PRIMARY_SETTINGS = """
listen_addresses = '127.0.0.1'
unix_socket_directories = '{folder}'
fsync = off
"""


@dataclass(frozen=True)
class ServerPrograms:
    """PostgreSQL's programs in `bindir`, run in `folder` as `account` (None: as the test's own user)."""

    bindir: Path
    folder: Path
    account: pwd.struct_passwd | None

    def run(self, program: str, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bindir / program), *arguments],
            cwd=self.folder,
            env=self.environment(),
            capture_output=True,
            text=True,
            check=False,
            user=None if self.account is None else self.account.pw_uid,
            group=None if self.account is None else self.account.pw_gid,
            extra_groups=None if self.account is None else [],
        )

    def environment(self) -> dict[str, str]:
        """The test's environment without the PG* variables that would point the programs elsewhere."""
        inherited = {name: value for name, value in os.environ.items() if not name.startswith("PG")}
        return {**inherited, "HOME": str(self.folder)}

    def run_or_fail(self, program: str, *arguments: str) -> None:
        done = self.run(program, *arguments)
        if done.returncode != 0:
            raise AssertionError(
                f"{program} {' '.join(arguments)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
            )

    def start(self, server: Server) -> None:
        """Starts `server` on a free port, on another where that one was taken before the server bound it."""
        for _ in range(START_ATTEMPTS):
            server.port = free_port()
            with (server.data / "postgresql.auto.conf").open("a") as settings:
                settings.write(f"port = {server.port}\n")
            server.log.unlink(missing_ok=True)
            started = self.run("pg_ctl", "-D", str(server.data), "-w", "-t", "60", "-l", str(server.log), "start")
            if started.returncode == 0:
                return
            if "Address already in use" not in log_tail(server.log):
                break
        raise AssertionError(f"PostgreSQL did not start in {server.data}; its log ends:\n{log_tail(server.log)}")

    def stop(self, server: Server) -> None:
        if not (server.data / "postmaster.pid").exists():
            return
        if self.run("pg_ctl", "-D", str(server.data), "-w", "-t", "30", "stop", "-m", "fast").returncode != 0:
            self.run("pg_ctl", "-D", str(server.data), "-w", "-t", "30", "stop", "-m", "immediate")

    def make_primary(self, primary: Server) -> None:
        self.run_or_fail(
            "initdb", "-A", "trust", "-U", "postgres", "-N", "-E", "UTF8", "--no-locale", "-D", str(primary.data)
        )
        with (primary.data / "postgresql.conf").open("a") as settings:
            settings.write(PRIMARY_SETTINGS.format(folder=self.folder))
        self.start(primary)
        with psycopg.connect(primary.admin_url, autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {DATABASE}")

    def make_replica(self, replica: Server, primary: Server) -> None:
        source = ["-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"]
        self.run_or_fail("pg_basebackup", *source, "-D", str(replica.data), "-R", "-X", "stream", "-c", "fast")
        self.start(replica)
        wait_until_streaming(replica)


def streaming(replica: Server) -> bool:
    try:
        with psycopg.connect(replica.admin_url, autocommit=True, connect_timeout=3) as connection:
            row = connection.execute("SELECT pg_is_in_recovery(), (SELECT status FROM pg_stat_wal_receiver)").fetchone()
    except psycopg.OperationalError:
        return False
    return row == (True, "streaming")


def wait_until_streaming(replica: Server, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not streaming(replica):
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the replica is not streaming after {seconds} s; its log ends:\n{log_tail(replica.log)}"
            )
        time.sleep(0.05)


@dataclass(frozen=True)
class PrimaryAndReplica:
    programs: ServerPrograms
    primary: Server
    replica: Server

    @property
    def primary_url(self) -> str:
        return self.primary.url

    @property
    def replica_url(self) -> str:
        return self.replica.url

    def caught_up(self, seconds: float = 30.0) -> None:
        """Waits until the replica has replayed everything the primary had written when called."""
        with psycopg.connect(self.primary.admin_url, autocommit=True) as primary:
            written = primary.execute("SELECT pg_current_wal_lsn()").fetchone()
        assert written is not None
        lag_query = "SELECT pg_wal_lsn_diff(%s::pg_lsn, pg_last_wal_replay_lsn())"
        deadline = time.monotonic() + seconds
        with psycopg.connect(self.replica.admin_url, autocommit=True) as replica:
            while True:
                row = replica.execute(lag_query, [written[0]]).fetchone()
                lag = None if row is None else row[0]
                if lag is not None and lag <= 0:
                    return
                if time.monotonic() > deadline:
                    raise AssertionError(f"after {seconds} s the replica is still {lag} bytes behind the primary")
                time.sleep(0.02)

    def stop_primary(self) -> None:
        self.programs.stop(self.primary)


@contextmanager
def primary_and_replica() -> Iterator[PrimaryAndReplica]:
    """A primary with a database `evo` and a replica streaming from it, both stopped and removed when the block
    ends."""
    require_server_programs()
    bindir = postgres_bindir()
    assert bindir is not None
    account = server_account() if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="evo-replica-"))
    if account is not None:
        os.chown(folder, account.pw_uid, account.pw_gid)
    programs = ServerPrograms(bindir, folder, account)
    primary = Server(folder / "primary", folder / "primary.log")
    replica = Server(folder / "replica", folder / "replica.log")
    try:
        programs.make_primary(primary)
        programs.make_replica(replica, primary)
        yield PrimaryAndReplica(programs, primary, replica)
    finally:
        for server in (replica, primary):
            programs.stop(server)
        shutil.rmtree(folder, ignore_errors=True)
