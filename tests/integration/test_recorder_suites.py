"""The eventsourcing library's own recorder test suites, run against each store configuration we support."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from contextlib import ExitStack
from typing import Any, ClassVar

import psycopg
from eventsourcing.persistence import InfrastructureFactory
from eventsourcing.tests.persistence import (
    AggregateRecorderTestCase,
    ApplicationRecorderTestCase,
    NonInterleavingNotificationIDsBaseCase,
    ProcessRecorderTestCase,
    TrackingRecorderTestCase,
)

from evo_ledger.settings import Settings
from evo_ledger.store.recorders import persistence_env
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database, require_postgres


def join_threads_started_since(before: set[threading.Thread]) -> None:
    """Some suite tests signal their reader threads to stop without joining them; close nothing under them."""
    for thread in set(threading.enumerate()) - before:
        if not thread.daemon:  # connection pools run daemon threads for as long as they are open
            thread.join(timeout=10)


class OnDurableSQLite:
    """A fresh SQLite file, opened as the ledger opens it, for each test."""

    factory: Any

    def setUp(self) -> None:
        self.threads_before = set(threading.enumerate())
        self.folder = tempfile.mkdtemp()
        env = persistence_env(Settings(os.path.join(self.folder, "store.sqlite")))
        self.factory = InfrastructureFactory.construct(env)
        super().setUp()  # type: ignore[misc]

    def tearDown(self) -> None:
        super().tearDown()  # type: ignore[misc]
        join_threads_started_since(self.threads_before)
        self.factory.close()
        shutil.rmtree(self.folder)


@ON_POSTGRES
class OnPostgres:
    """A database made for the test class; its tables dropped after each test."""

    url: ClassVar[str]
    databases: ClassVar[ExitStack]
    factory: Any

    @classmethod
    def setUpClass(cls) -> None:
        require_postgres()
        cls.databases = ExitStack()
        cls.url = cls.databases.enter_context(fresh_postgres_database())
        super().setUpClass()  # type: ignore[misc]

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()  # type: ignore[misc]
        cls.databases.close()

    def setUp(self) -> None:
        self.threads_before = set(threading.enumerate())
        self.factory = InfrastructureFactory.construct(persistence_env(Settings(self.url)))
        super().setUp()  # type: ignore[misc]

    def tearDown(self) -> None:
        super().tearDown()  # type: ignore[misc]
        join_threads_started_since(self.threads_before)
        self.factory.close()
        with psycopg.connect(self.url, autocommit=True) as connection:
            connection.execute("DROP SCHEMA public CASCADE")
            connection.execute("CREATE SCHEMA public")


class TestDurableSQLiteAggregateRecorder(OnDurableSQLite, AggregateRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.aggregate_recorder()


class TestDurableSQLiteApplicationRecorder(OnDurableSQLite, ApplicationRecorderTestCase[Any]):
    def create_recorder(self) -> Any:
        return self.factory.application_recorder()


class TestDurableSQLiteTrackingRecorder(OnDurableSQLite, TrackingRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.tracking_recorder()


class TestDurableSQLiteProcessRecorder(OnDurableSQLite, ProcessRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.process_recorder()


class TestPostgresAggregateRecorder(OnPostgres, AggregateRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.aggregate_recorder()


class TestPostgresApplicationRecorder(OnPostgres, ApplicationRecorderTestCase[Any]):
    def create_recorder(self) -> Any:
        return self.factory.application_recorder()


class TestPostgresTrackingRecorder(OnPostgres, TrackingRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.tracking_recorder()


class TestPostgresProcessRecorder(OnPostgres, ProcessRecorderTestCase):
    def create_recorder(self) -> Any:
        return self.factory.process_recorder()


class TestDurableSQLiteNonInterleavingNotificationIDs(OnDurableSQLite, NonInterleavingNotificationIDsBaseCase):
    def create_recorder(self) -> Any:
        return self.factory.application_recorder()


class TestPostgresNonInterleavingNotificationIDs(OnPostgres, NonInterleavingNotificationIDsBaseCase):
    def create_recorder(self) -> Any:
        return self.factory.application_recorder()
