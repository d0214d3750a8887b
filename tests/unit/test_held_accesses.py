"""The accesses a ledger holds between groups of appends: let go when changed, bounded, read once otherwise."""

from __future__ import annotations

from uuid import UUID, uuid4

from evo_ledger.app.access import GameAccess, HeldAccesses


class Store:
    """What the holder asks of the store: the accesses changed since a position, and some accesses read."""

    def __init__(self) -> None:
        self.position = 0
        self.changed: list[tuple[int, UUID]] = []
        self.reads: list[list[UUID]] = []

    def change(self, key: UUID) -> None:
        self.position += 1
        self.changed.append((self.position, key))

    def changes(self, since: int | None) -> tuple[int, set[UUID]]:
        if since is None:
            return self.position, set()
        return self.position, {key for position, key in self.changed if position > since}

    def read(self, keys: list[UUID]) -> dict[UUID, GameAccess | None]:
        self.reads.append(keys)
        return {key: GameAccess.grant(key, f"token of {key}") for key in keys}


def test_an_access_is_read_once_then_again_only_when_it_changed() -> None:
    store, holder = Store(), HeldAccesses(limit=10)
    one, two = uuid4(), uuid4()
    first = holder.current([one, two], store.changes, store.read)
    assert holder.current([one, two], store.changes, store.read) == first
    store.change(two)
    assert holder.current([one, two], store.changes, store.read)[one] is first[one]
    assert store.reads == [[one, two], [two]]


def test_the_accesses_read_first_are_let_go_beyond_the_limit() -> None:
    store, holder = Store(), HeldAccesses(limit=2)
    keys = [uuid4() for _ in range(3)]
    for key in keys:
        holder.current([key], store.changes, store.read)
    holder.current(keys[1:], store.changes, store.read)
    holder.current(keys[:1], store.changes, store.read)
    assert store.reads == [[key] for key in keys] + [keys[:1]]


def test_a_game_held_as_having_no_access_is_read_again_once_one_is_granted() -> None:
    store, holder = Store(), HeldAccesses(limit=10)
    key = uuid4()
    assert holder.current([key], store.changes, dict.fromkeys) == {key: None}
    store.change(key)
    assert holder.current([key], store.changes, store.read)[key] is not None
