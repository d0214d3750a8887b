"""The ledger's commands: every change, each made through the writer path (`WriterPath.commit`) and appended to
the log. An append to a game returns a receipt (the game's new version and head hash) that a recorder can keep as
proof of what it wrote.

Nothing is ever updated in place: a mistake is undone or corrected by a new event, and who may write to a game
changes by an event of its access.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from evo_ledger.app.access import GameAccess, check_recorders_own
from evo_ledger.app.ledger.application import LedgerApplication
from evo_ledger.app.ledger.queries import Queries
from evo_ledger.app.ledger.values import (
    ANYONE,
    AppendRequest,
    Idempotency,
    Outcome,
    Receipt,
    Recorder,
    ReplacedGame,
    VersionConflict,
)
from evo_ledger.app.ledger.vouched import VouchedReads
from evo_ledger.app.ledger.writer_path import Change, Made, WriterPath
from evo_ledger.app.personal import Seat, game_owner
from evo_ledger.app.readers import check_seen
from evo_ledger.app.selfplay import marked_options, player_names, self_play_of
from evo_ledger.app.stored_kits import (
    UNCOUNTED,
    KeptKit,
    KitCaller,
    StoredKit,
    built_in,
    checked_kit,
    is_kit_hash,
    removed,
    stored,
    stored_kit_id,
)
from evo_ledger.game import aggregate
from evo_ledger.game.aggregate import Game, seed_commitment
from evo_ledger.game.checkpoints import (
    CHECKPOINT_LOG_ID,
    CheckpointError,
    CheckpointIndex,
    CheckpointRace,
    Examined,
    Examiner,
    next_checkpoint,
    published,
)
from evo_ledger.game.labels import spoken_as_labels
from evo_ledger.game.notation import REVISION_KEYS
from evo_ledger.game.seal import Sealer
from evo_ledger.rules import AnyRuleset, get_ruleset
from evo_ledger.rules.base import OptionValue, SetupError, resolve_options
from evo_ledger.rules.kits import load_kit_document, ruleset_for_kit


def seats_in_options(
    rules: AnyRuleset, options: Mapping[str, OptionValue], labels: Mapping[str, str]
) -> dict[str, OptionValue]:
    """The options, each naming seats (a seat mark's) with their labels in place of their handles."""
    naming = {spec.name for spec in rules.options if spec.seat_mark}
    return {
        name: spoken_as_labels(value, labels) if name in naming and isinstance(value, str) else value
        for name, value in options.items()
    }


CHECKPOINT_RACE = "another checkpoint was taken at the same moment: take it again"


class Commands:
    """Every change: games created, generated and recorded; undos, corrections and notes; whether hidden facts
    are shown at the end; who may write to a game; checkpoints taken; games imported; kits stored and removed."""

    def __init__(self, store: LedgerApplication, queries: Queries, vouched: VouchedReads) -> None:
        self.store = store
        self.queries = queries
        self.vouched = vouched
        self.writer = WriterPath(store, queries, vouched)

    def create_game(
        self,
        ruleset: str | None,
        kit: str,
        players: Sequence[str | tuple[str, str | None]],
        options: Mapping[str, OptionValue] | None = None,
        recorder_token: str | None = None,
        seat_tokens: Mapping[str, str] | None = None,
        reveal_at_end: bool = True,
    ) -> Receipt:
        """A new game: `players` in seat order, each a name or (name, stable id); with a recorder token, only
        its holder may append (its digest is stored with the game's first event, in one transaction); with seat
        tokens (by player), each reads what its seat may see. The ruleset is the one the kit names; a `ruleset`
        given must be that one. Without `reveal_at_end`, the game's second event keeps its hidden facts from
        those who could not see them during play also once it is over (`set_reveal_at_end`). `kit`: a built-in
        kit's name, a kit file's path, or the hash of a kit built in or stored here (`Queries.kit_document`)."""
        make = partial(self.new_game, ruleset, kit, players, options, recorder_token, seat_tokens, reveal_at_end)
        return self.writer.append(Change.starting(make))

    def new_game(
        self,
        ruleset: str | None,
        kit: str,
        players: Sequence[str | tuple[str, str | None]],
        options: Mapping[str, OptionValue] | None = None,
        recorder_token: str | None = None,
        seat_tokens: Mapping[str, str] | None = None,
        reveal_at_end: bool = True,
    ) -> list[Any]:
        """A new game as `create_game` makes it, not yet stored: the game, then its access if it has one, and the
        record of the stored kit it starts on where it is that kit's first game."""
        document, loaded = self.queries.kit_document(kit)
        seats = [(p, None) if isinstance(p, str) else p for p in players]
        reserved = sorted({name for name, _ in seats} & set(REVISION_KEYS))
        if reserved:
            raise SetupError(f"{reserved[0]!r} cannot be a player's name: a game file's line of its own begins with it")
        rules = ruleset_for_kit(document, kit, ruleset)
        aggregate.check_distinct_players([{"name": name, "id": given or name} for name, given in seats])
        rules.setup(loaded, [name for name, _ in seats], options or {})  # the handles, as the rules would seat them
        labelled = self.store.personal.seat_labels([Seat(*seat) for seat in seats], self.queries.seats.earlier_seat_id)
        by_handle = {seat.handle: seat.label for seat in labelled}
        stored_seats = [(seat.label, seat.stable_id) for seat in labelled]
        options = seats_in_options(rules, options or {}, by_handle)
        game = Game.start(rules, document, loaded, stored_seats, options, sealed=self.store.sealer is not None)
        seat_tokens = {by_handle.get(name, name): token for name, token in (seat_tokens or {}).items()}
        if not reveal_at_end:
            game.set_reveal_at_end(False)
        granted = recorder_token is not None or bool(seat_tokens)
        access = [GameAccess.grant(game.id, recorder_token, seat_tokens)] if granted else []
        return [game, *access, *self._first_use(kit)]

    def _first_use(self, kit: str) -> list[StoredKit]:
        """The stored kit's record, marked used by its first game (none for a built-in kit, or one used before),
        to be stored with the game: a kit removed meanwhile refuses the game, and a removal meanwhile is refused."""
        record = self.queries.stored_kit(kit) if is_kit_hash(kit) else None
        return [record] if record is not None and record.mark_used() else []

    def generate_game(
        self,
        players: int,
        bot: str = "sensible",
        seed: int | None = None,
        *,
        ruleset: str,
        marked: Mapping[str, int] | None = None,
    ) -> Receipt:
        """A whole game played by the ruleset's seeded bots (the `Bots` capability) and stored in one transaction.
        Its first event commits to the chance generator, a secret salt and the seed (a random one unless given);
        its last reveals them, so that an audit can draw every roll again. `marked`: for an option naming seats,
        how many of the last seats it names (seats the rules run play the rules' own decisions)."""
        seed = secrets.randbits(63) if seed is None else seed
        play = partial(self._generated, get_ruleset(ruleset), players, bot, seed, secrets.token_hex(16), marked or {})
        return self.writer.append(Change.starting(lambda: [play()]))

    def _generated(
        self, rules: AnyRuleset, players: int, bot: str, seed: int, salt: str, marked: Mapping[str, int]
    ) -> Game:
        bots = self_play_of(rules, players, bot)
        document, kit = load_kit_document(bots.default_kit(players))
        names = player_names(players)
        options = marked_options(names, marked)
        commitment = seed_commitment(bots.generator, salt, seed)
        seats = [(name, None) for name in names]
        game = Game.start(
            rules, document, kit, seats, options, commitment=commitment, sealed=self.store.sealer is not None
        )
        for action, _ in bots.play(kit, names, seed, bot, resolve_options(rules.options, options)):
            game.record(rules.format_action(action))
        game.reveal_seed(bots.generator, salt, seed)
        return game

    def record(
        self,
        game_id: UUID,
        notations: str | Sequence[str],
        expected_version: int | None = None,
        idempotency: Idempotency | None = None,
    ) -> Receipt:
        """Append one action or a batch, all or nothing: an illegal action in the batch appends none of them.

        With an idempotency key, a request already answered gets its answer again and appends nothing."""
        batch = [notations] if isinstance(notations, str) else list(notations)
        return self.writer.append(Change.recording(AppendRequest(game_id, batch, expected_version, idempotency)))

    def record_many(self, requests: Sequence[AppendRequest | Callable[[], list[Any]]]) -> list[Outcome]:
        """Many appends, to one game or several, and new games (each given as what makes it, as `new_game` does),
        committed in one transaction (one sync to disk): for each, its receipt or the error that refused it, as if
        each had been made alone, in turn."""
        outcomes: list[Outcome] = self.writer.commit([Change.of(item) for item in requests])
        return outcomes

    def undo(
        self, game_id: UUID, count: int, reason: str, expected_version: int | None = None, by: Recorder = ANYONE
    ) -> Receipt:
        def undone(game: Game) -> None:
            game.undo(count, self.typed(game.id, reason))

        change = Change(game_id, expected_version, undone, **by.change_fields())
        return self.writer.append(change)

    def correct(
        self,
        game_id: UUID,
        notation: str,
        reason: str,
        expected_version: int | None = None,
        by: Recorder = ANYONE,
        entered_at: str | None = None,
    ) -> Receipt:
        def correction(game: Game) -> None:
            game.correct(notation, self.typed(game.id, reason), entered_at)

        return self.writer.append(Change(game_id, expected_version, correction, **by.change_fields()))

    def annotate(
        self, game_id: UUID, about: int, text: str, expected_version: int | None = None, by: Recorder = ANYONE
    ) -> Receipt:
        def noted(game: Game) -> None:
            game.annotate(about, self.typed(game.id, text))

        change = Change(game_id, expected_version, noted, **by.change_fields())
        return self.writer.append(change)

    def typed(self, game_id: UUID, text: str) -> str:
        """Text a person typed into a game, as it is stored: sealed under the game's key (evo_ledger.app.personal),
        made at the first text sealed, once the change is found to be made by whom it may (in the change itself). An
        empty text is stored as it is."""
        return self.store.personal.seal(game_owner(game_id), text) if text else text

    def set_reveal_at_end(self, game_id: UUID, reveal: bool, by: Recorder = ANYONE) -> Receipt:
        """Whether, once the game is over, its hidden facts are shown to every reader (`reveal`) or kept from those
        who could not see them during play: an event of the game's log, which stands from then on (also after the
        end). `by` says who may set it (with `token_required`, only the recorder's own token, as for every change
        of how the game is read). Setting what stands appends nothing."""

        def change(game: Game) -> None:
            if game.reveal_at_end != reveal:
                game.set_reveal_at_end(reveal)

        return self.writer.append(Change(game_id, None, change, **by.change_fields(), recorders_own=True))

    def grant_recorder(self, game_id: UUID, token: str) -> int:
        """Make `token` the game's recorder token, in place of any it had, letting go of every co-recorder: how
        many were let go."""

        def granted() -> Made[int]:
            access = self.vouched.access_to_change(game_id)
            if access is None:
                self.queries.game(game_id)  # an unknown game raises
                return Made(0, [GameAccess.grant(game_id, token)])
            let_go = len(access.co_recorders)
            access.replace_token(token)
            return Made(let_go, [access])

        return self.writer.make(game_id, granted)

    def change_recorders(
        self, game_id: UUID, change: Callable[[GameAccess], None], token: str | None, admin: bool = False
    ) -> GameAccess:
        """Issue or revoke co-recorders, issue seats' tokens, set a broadcast's delay: the recorder's own token (or
        the admin) alone may."""

        def changed() -> Made[GameAccess]:
            access = self.vouched.access_to_change(game_id)
            if access is None:
                self.queries.game(game_id)  # an unknown game raises before any token is judged
            if not admin:
                check_seen(game_id, access, token)
                check_recorders_own(game_id, access, token)
            return self._access_changed(game_id, access, change)

        return self.writer.make(game_id, changed)

    def change_access(self, game_id: UUID, change: Callable[[GameAccess], None]) -> GameAccess:
        """Change who may see or write to the game (a game started without a recorder token gets its access
        here, still without one)."""
        return self.writer.make(
            game_id, lambda: self._access_changed(game_id, self.vouched.access_to_change(game_id), change)
        )

    def _access_changed(
        self, game_id: UUID, access: GameAccess | None, change: Callable[[GameAccess], None]
    ) -> Made[GameAccess]:
        if access is None:
            self.queries.game(game_id)  # an unknown game raises
            access = GameAccess.grant(game_id, None)
        change(access)
        return Made(access, [access])

    def store_kit(self, document: Any, caller: KitCaller = UNCOUNTED) -> KeptKit:
        """Store a kit document, checked by its ruleset and its size (`checked_kit`), as a record of its own,
        counted on the caller's shelf in the same transaction (`stored`). A kit stored already, or built in, is
        answered as it stands, and nothing is stored; two storing it at once meet on its record."""
        kit_hash, checked = checked_kit(document)
        known = built_in(kit_hash, checked)
        if known is not None:
            return known

        def kept() -> Made[KeptKit]:
            shelf = self.queries.kit_shelf(caller.key) if caller.key is not None else None
            answer, changed = stored(kit_hash, checked, caller, self.queries.stored_kit(kit_hash), shelf)
            return Made(answer, changed)

        return self.writer.make(stored_kit_id(kit_hash), kept)

    def remove_kit(self, kit_hash: str) -> None:
        """Remove a stored kit no game was started on (an event of its record), and take it off the shelf of the
        caller that stored it (`removed`)."""

        def gone() -> Made[None]:
            record = self.queries.stored_kit(kit_hash)
            storer = record.stored_by if record is not None else None
            shelf = self.queries.kit_shelf(storer) if storer is not None else None
            game_on_it = record is not None and not record.used and self.queries.game_on_kit(kit_hash)
            return Made(None, removed(kit_hash, record, shelf, game_on_it))

        self.writer.make(stored_kit_id(kit_hash), gone)

    def take_checkpoint(self, acknowledge: int | None = None) -> tuple[dict[str, Any], bool]:
        """A checkpoint of every game event stored since the last that the seal key vouches for, signed with it
        and appended to the checkpoint log, naming the events it could not vouch for unsigned; with none stored
        since, the last checkpoint. `acknowledge`: the events checkpoints up to that number could not vouch for
        were looked into (a checkpoint is signed to say so, also with nothing stored since). Returns it as it is
        published, and whether it is new."""
        with self.vouched.checkpoints_lock:
            index = self.vouched.checkpoint_index()
            last = index.last
            after = last.signed["position"] if last is not None else 0
            examined = self._examined_since(index, after)
            if not (examined.events or examined.refused or examined.accesses) and acknowledge is None:
                if last is None:
                    raise CheckpointError("no game event is stored yet: there is nothing to sign")
                return published(last), False
            taking = next_checkpoint(
                index,
                examined.events,
                max(examined.position, after),
                refused=examined.refused,
                acknowledge=acknowledge,
                accesses=examined.accesses,
            )
            self.writer.make(CHECKPOINT_LOG_ID, lambda: Made(None, taking), CheckpointRace(CHECKPOINT_RACE))
            taken = self.vouched.checkpoint_index().last
            assert taken is not None
            return published(taken), True

    def _examined_since(self, index: CheckpointIndex, after: int) -> Examined:
        """The log after position `after`, examined for the next checkpoint (evo_ledger.game.checkpoints)."""
        sealer = Sealer(self.vouched.checkpoint_key())
        examiner = Examiner(sealer, index.last is None, self.vouched.stored_between, index, self.vouched.last_stored)
        if not index.signs_access_heads:
            examiner.also_records(self.vouched.access_records())
        return examiner.examine(self.store.notifications_after(after))

    def save_games(self, games: Sequence[Game], expected: int = 0, also: Sequence[Any] = ()) -> list[Receipt]:
        """The games' new events stored in one transaction, with those of the aggregates `also` given;
        `expected` is the version the games were changed from."""
        conflict = VersionConflict(games[0].id, expected, None)
        return self.writer.make(
            games[0].id, lambda: Made([Receipt.of(game) for game in games], [*games, *also]), conflict
        )

    def insert_stored_events(self, events: Sequence[StoredEvent], snapshots: Sequence[StoredEvent] = ()) -> None:
        """Write events exactly as given, in one transaction, then their snapshots (the imports); never a game a
        checkpoint has named (ReplacedGame): it was stored here, and deleted since."""
        if not events:
            return
        first = UUID(str(events[0].originator_id))
        started = [event.originator_id for event in events if event.originator_version == 1]

        def inserted() -> Made[None]:
            if self.store.sealer is not None:
                self._check_never_checkpointed(started)
            return Made(None, inserted=events, snapshots=snapshots)

        self.writer.make(first, inserted, VersionConflict(first, events[0].originator_version, None))

    def _check_never_checkpointed(self, game_ids: Sequence[UUID | str]) -> None:
        index = self.vouched.checkpoint_index()
        for game_id in game_ids:
            if index.covered_of(str(game_id)) > 0:
                raise ReplacedGame(UUID(str(game_id)))
