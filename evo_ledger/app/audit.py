"""The audit of a game: its stored log checked from the first event, with nothing taken on trust.

Each stored event is read from its bytes; its hash is computed again over its content and compared with the one
it carries, and with the one its successor carries as its predecessor's. The game is folded again from its
setup with the ruleset version and kit it pinned: every action is checked by the rules, and what the rules
derive from it is compared, field by field, with the consequences recorded after it. A receipt's head hash,
when given, shows whether events were cut off the end. The report names each check, its verdict and the first
divergence, with the key the events no checkpoint covers and why (`not_covered`), and each event that says
whether the game's hidden facts are shown to every reader once it is over (`reveal_at_end_set`), and, from the
game's access record, whether the game is withdrawn and why, with each withdrawal and reinstatement (`withdrawal`);
it is canonical JSON, the same bytes for the same log on every database and every run, and carries its own hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.persistence import Mapper, StoredEvent

from evo_ledger.app.access import WithdrawalHeld
from evo_ledger.game.aggregate import GENESIS, Game, commitment_holds, stored_hash
from evo_ledger.game.checkpoints import REFUSALS, WITHOUT_A_KEY, Signed
from evo_ledger.game.codec import MsgpackTranscoder, canonical_bytes, digest, unpack_sealed
from evo_ledger.game.seal import IMPORTED, Sealer
from evo_ledger.rules import UnknownRuleset, rulesets
from evo_ledger.rules.base import DEVIATION, OPEN_TIE, RuleViolation
from evo_ledger.rules.contract import at_version, is_chance, self_play
from evo_ledger.rules.kits import KitError
from evo_ledger.rules.text import NotationError
from evo_ledger.store.mapper import SealingMapper

REPORT_FORMAT = "evo-ledger audit"
REPORT_VERSION = 6
PASS, FAIL, RULES_CHANGED, NOT_RUN = "pass", "fail", "rules changed", "not run"
CLEAN, DAMAGED, DEVIATIONS = "clean", "damaged", "deviations"
# Fields every event has that the rules do not derive: where and when it was stored, and its hashes.
UNDERIVED = frozenset(
    {"originator_id", "originator_version", "timestamp", "hash", "prev_hash", "action_salt", "action_commitment"}
)
NOTED = {DEVIATION: "deviations", OPEN_TIE: "open_ties"}
# The ledger's mapper, reading stored events as the ledger's does (seals are read past).
READER: Mapper[UUID] = SealingMapper(transcoder=MsgpackTranscoder())
# What an event that says whether a finished game's hidden facts are shown to every reader says, in words.
REVEAL_AT_END_WORDS = {
    True: "shows them to every reader once the game is over",
    False: "keeps them from readers who could not see them during play, also once the game is over",
}
CHECK_NAMES = ("sequence", "hashes", "chain", "seals", "checkpoints", "setup", "rules", "snapshots", "chance", "head")
CHECK_WIDTH = max(map(len, CHECK_NAMES))
DESCRIPTIONS = {
    "sequence": "the events are numbered 1, 2, 3... with none missing and each readable",
    "hashes": "each event's hash is that of its own content",
    "chain": "each event carries the hash of the event before it",
    "seals": "each event sealed by the server's key is as it was sealed: no one without the key changed it",
    "checkpoints": "each event a checkpoint signed with the server's key is the one it signed, as sealed as it was, "
    "and still in the log: no one rewrote the chain, stripped the seals or cut off the end; and no checkpoint found "
    "an event it could not vouch for",
    "setup": "the ruleset and kit the game pinned are known and the kit's content matches its hash",
    "rules": "every action is legal where it stands and the consequences recorded are those the rules derive",
    "snapshots": "each stored snapshot is the game its log makes at that event: none was edited (none is trusted)",
    "chance": "a game the service generated reveals the seed it committed to, and every chance action is the one "
    "that seed draws",
    "head": "the receipt's head hash is on an event of the log: nothing was cut off the end",
}
# Why no checkpoint covers an event that no checkpoint refused.
NOT_YET, NOT_NAMED = "not checkpointed yet", "not named"
UNCOVERED = {
    NOT_YET: "it was stored since the last checkpoint: the next one examines it",
    NOT_NAMED: "no checkpoint that holds under the key names it",
}


WITHDRAWN_WORDS = {True: "withdrawn", False: "reinstated"}


@dataclass(frozen=True)
class WithdrawalRecord:
    """What a game's access record says of its withdrawal, for the game's audit: each withdrawal and reinstatement
    in order; or, where the seal key does not vouch for the record, why not (`unvouched`), and nothing of it."""

    changes: tuple[WithdrawalHeld, ...] = ()
    unvouched: str | None = None

    def as_data(self) -> dict[str, Any]:
        """The report's `withdrawal`: whether the game is withdrawn now (null where the record is not vouched for)
        and why, and each change by its event in the access record; empty where it never was withdrawn."""
        if self.unvouched is not None:
            return {"withdrawn": None, "reason": None, "changes": [], "unvouched": self.unvouched}
        if not self.changes:
            return {}
        last = self.changes[-1]
        return {
            "withdrawn": last.withdrawn,
            "reason": last.reason if last.withdrawn else None,
            "changes": [
                {"access_event": held.event, "withdrawn": held.withdrawn, "reason": held.reason}
                for held in self.changes
            ],
        }


@dataclass
class Check:
    name: str
    verdict: str = PASS
    detail: str = ""
    event: int | None = None

    def fail(self, event: int | None, detail: str, verdict: str = FAIL) -> None:
        if self.verdict == PASS:
            self.verdict, self.event, self.detail = verdict, event, detail

    def as_data(self) -> dict[str, Any]:
        return {
            "check": self.name,
            "means": DESCRIPTIONS[self.name],
            "verdict": self.verdict,
            "event": self.event,
            "detail": self.detail,
        }


@dataclass
class Audit:
    """The audit of one game's stored events, as far as `up_to` (every event if None)."""

    game_id: UUID
    stored: Sequence[StoredEvent]
    up_to: int | None = None
    expect_head: str | None = None
    sealer: Sealer | None = None
    snapshots: Sequence[StoredEvent] = ()
    signed: Signed | None = None
    seals: dict[int, bytes | None] = field(default_factory=dict)
    imported: list[int] = field(default_factory=list)
    not_covered: list[dict[str, Any]] = field(default_factory=list)
    checks: dict[str, Check] = field(default_factory=lambda: {name: Check(name) for name in CHECK_NAMES})
    undone_rolls: list[dict[str, Any]] = field(default_factory=list)
    pinned: dict[str, Any] = field(default_factory=dict)
    withdrawal: WithdrawalRecord = field(default_factory=WithdrawalRecord)

    def run(self) -> AuditReport:
        events = self._read()
        self._check_hashes(events)
        self._check_seals(events)
        self._check_checkpoints()
        self._check_rules(events)
        self._check_head(events)
        return self._report(events)

    def _read(self) -> list[tuple[StoredEvent, dict[str, Any]]]:
        """The events up to the first that is missing or cannot be read, each with its decoded fields."""
        sequence = self.checks["sequence"]
        read = []
        for expected, stored in enumerate(self.stored, start=1):
            if self.up_to is not None and expected > self.up_to:
                break
            if stored.originator_version != expected:
                sequence.fail(expected, f"event {expected} is missing: the next stored is {stored.originator_version}")
                break
            try:
                fields, self.seals[expected] = unpack_sealed(stored.state)
            except Exception as error:
                sequence.fail(expected, f"event {expected} cannot be read: {error}")
                break
            read.append((stored, fields))
        if not read and sequence.verdict == PASS:
            sequence.fail(1, "the game has no events")
        return read

    def _check_hashes(self, events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> None:
        hashes, chain = self.checks["hashes"], self.checks["chain"]
        previous = GENESIS
        for stored, fields in events:
            version = stored.originator_version
            if fields.get("prev_hash") != previous:
                chain.fail(version, f"event {version} does not carry the hash of event {version - 1}")
            if stored_hash(stored.topic, stored.originator_id, version, fields) != fields.get("hash"):
                hashes.fail(version, f"event {version}'s content does not match its hash: it was changed")
            elif not commitment_holds(fields):
                hashes.fail(version, f"event {version}'s hidden action does not match its commitment: it was changed")
            previous = fields.get("hash", "")

    def _check_seals(self, events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> None:
        """From the first sealed event on, every event carries the seal of its own bytes: events stored before
        the key was set have none, but a forger who changes one must change the hashes of all after it."""
        check = self.checks["seals"]
        if self.sealer is None:
            check.verdict, check.detail = NOT_RUN, "no seal key was given"
            return
        first_sealed = None
        says_sealed = bool(events) and events[0][1].get("sealed") is True
        for stored, _ in events:
            version, seal = stored.originator_version, self.seals[stored.originator_version]
            if seal is None:
                if says_sealed:
                    check.fail(version, f"event {version} carries no seal: the game says it was stored with a seal key")
                elif first_sealed is not None:
                    check.fail(version, f"event {version} carries no seal, though event {first_sealed} does")
                continue
            if first_sealed is None:
                first_sealed = version
            kind = self.sealer.kind_of(stored, seal)
            if kind is None:
                check.fail(version, f"event {version}'s seal does not match it: it was changed without the key")
            elif kind == IMPORTED and len(self.imported) != version - 1:
                check.fail(
                    version,
                    f"event {version} is sealed as imported after events that were not: a game is "
                    "imported whole, so imported events were put in place of recorded ones",
                )
            elif kind == IMPORTED:
                self.imported.append(version)
        if first_sealed is None and not says_sealed:
            check.verdict, check.detail = NOT_RUN, "no event carries a seal: the game was stored without a seal key"
        elif check.verdict == PASS:
            late = first_sealed is not None and first_sealed > 1
            before = [f"events 1 to {(first_sealed or 1) - 1} were stored before the key was set"] if late else []
            imported = [f"{_runs_words(self.imported)} sealed as imported: {IMPORTED_WHY}"] if self.imported else []
            check.detail = "; ".join([*before, *imported])

    def _check_checkpoints(self) -> None:
        """Every event a genuine checkpoint signed (as far as the audit goes) is stored, with the hash it signed,
        and sealed if it was sealed then; no genuine checkpoint found one it could not vouch for, but for one
        stored without a key before the first checkpoint; and the checkpoint log holds under the key. The events
        no checkpoint covers are listed, with the reason."""
        check, signed = self.checks["checkpoints"], self.signed
        if signed is None:
            check.verdict, check.detail = NOT_RUN, "no seal key was given: checkpoints are checked with it"
            return
        also = f" (and {signed.faults[0]})" if signed.faults else ""
        covered = [version for version in sorted(signed.events) if self.up_to is None or version <= self.up_to]
        self.not_covered = self._not_covered(signed)
        differing = next(((version, why) for version in covered if (why := self._differs(version, signed))), None)
        found = [divergence for divergence in (differing, self._first_refused(signed)) if divergence is not None]
        if found:
            event, detail = min(found)
            check.fail(event, detail + also)
        elif signed.faults:
            check.fail(None, signed.faults[0])
        elif not covered:
            refused = any(run["checkpoint"] is not None for run in self.not_covered)
            check.verdict = NOT_RUN
            check.detail = (
                "no checkpoint could vouch for the game's events: not_covered says why"
                if refused
                else "no checkpoint has signed the game's events yet"
            )
        else:
            check.detail = _covered_detail(covered)

    @cached_property
    def _audited_versions(self) -> list[int]:
        return [version for version in sorted(self._stored_by_version) if self.up_to is None or version <= self.up_to]

    def _first_refused(self, signed: Signed) -> tuple[int, str] | None:
        """The first audited event a checkpoint could not vouch for, where that shows a change."""
        for version in self._audited_versions:
            refusal = signed.refused.get(version)
            if refusal is not None and refusal[0] != WITHOUT_A_KEY and version not in signed.events:
                why, number = REFUSALS.get(refusal[0], refusal[0]), refusal[1]
                return version, f"checkpoint {number} could not vouch for event {version}, and did not sign it: {why}"
        return None

    def _not_covered(self, signed: Signed) -> list[dict[str, Any]]:
        """The audited events no checkpoint signed, in runs of the same reason and checkpoint."""
        named = max(signed.events.keys() | signed.refused.keys(), default=0)
        runs: list[tuple[int, int, str, int | None]] = []  # first, last, reason, checkpoint
        for version in self._audited_versions:
            if version in signed.events:
                continue
            reason, number = signed.refused.get(version, (NOT_YET if version > named else NOT_NAMED, None))
            if runs and runs[-1][1] + 1 == version and runs[-1][2:] == (reason, number):
                runs[-1] = (runs[-1][0], version, reason, number)
            else:
                runs.append((version, version, reason, number))
        return [
            {"events": [first, last], "checkpoint": number, "reason": reason, "why": _uncovered_why(reason)}
            for first, last, reason, number in runs
        ]

    def _differs(self, version: int, signed: Signed) -> str | None:
        """How the stored event differs from what a checkpoint signed of it (None: it does not)."""
        hash_, sealed, number = signed.events[version]
        found = self._stored_by_version.get(version)
        if found is None:
            last = max(self._stored_by_version, default=0)
            return f"checkpoint {number} signed event {version}, but the log ends at event {last}: events were cut off"
        fields, seal = self._fields_and_seal(found)
        if fields is None or self._content_hash(found, fields) != hash_:
            return f"event {version} is not the one checkpoint {number} signed: it, or the chain, was rewritten"
        if sealed and seal is None:
            return f"event {version} carries no seal, though checkpoint {number} signed it sealed: seals were stripped"
        if sealed is True and version in self.imported:
            return (
                f"event {version} is sealed as imported, though checkpoint {number} signed it as recorded here: "
                "the game was deleted and imported again"
            )
        return None

    @cached_property
    def _stored_by_version(self) -> dict[int, StoredEvent]:
        return {event.originator_version: event for event in self.stored}

    def _content_hash(self, stored: StoredEvent, fields: dict[str, Any]) -> str | None:
        try:
            return stored_hash(stored.topic, self.game_id, stored.originator_version, fields)
        except Exception:
            return None

    @staticmethod
    def _fields_and_seal(stored: StoredEvent) -> tuple[dict[str, Any] | None, bytes | None]:
        try:
            return unpack_sealed(stored.state)
        except Exception:
            return None, None

    def _check_rules(self, events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> None:
        setup, rules = self.checks["setup"], self.checks["rules"]
        domain: list[Any] = []
        for stored, _ in events:
            try:
                domain.append(READER.to_domain_event(stored))
            except Exception as error:
                setup.fail(stored.originator_version, f"event {stored.originator_version} is not an event: {error}")
                rules.verdict, rules.detail = NOT_RUN, "the log cannot be read as events"
                return
        shadow = self._start(domain[0] if domain else None)
        if shadow is None:
            rules.verdict, rules.detail = NOT_RUN, "the game's setup cannot be folded"
            return
        changed = self.pinned["ruleset_version"] != self.pinned["ruleset_version_used"]
        verdict = RULES_CHANGED if changed else FAIL
        partial = self.up_to is not None and self.up_to < len(self.stored)
        Refold(shadow, domain, rules, verdict, self.undone_rolls, partial).run()
        self._check_chance(shadow, domain)
        self._check_snapshots(domain)

    def _check_snapshots(self, domain: Sequence[Any]) -> None:
        """The log folded again, and each stored snapshot compared with the game it makes at the snapshot's event."""
        check = self.checks["snapshots"]
        wanted = {s.originator_version: s for s in self.snapshots if s.originator_version <= len(domain)}
        if not wanted:
            check.verdict, check.detail = NOT_RUN, "no snapshot is stored within the events audited"
            return
        if any(self.checks[name].verdict != PASS for name in ("sequence", "hashes", "chain")):
            check.verdict, check.detail = NOT_RUN, "the log itself failed a check first"
            return
        game: Any = None
        for event in domain[: max(wanted)]:
            game = event.mutate(game)
            stored = wanted.get(game.version)
            if stored is not None and not snapshot_matches(stored, game):
                check.fail(game.version, f"the snapshot at event {game.version} is not the game its log makes there")
                return
        check.detail = f"{len(wanted)} snapshots, each the game at its event"

    def _check_chance(self, shadow: Game, domain: Sequence[Any]) -> None:
        """A generated game's chance actions drawn again from the seed it revealed (the ruleset's bots)."""
        chance = self.checks["chance"]
        revealed = [event for event in domain if isinstance(event, Game.SeedRevealed)]
        if shadow.commitment is None:
            chance.verdict, chance.detail = NOT_RUN, "the game was played at a table: its chance is in the log"
        elif self.checks["rules"].verdict != PASS:
            chance.verdict, chance.detail = NOT_RUN, "the rules check failed first"
        elif not revealed:
            chance.verdict, chance.detail = NOT_RUN, "the game's seed is not revealed yet"
        elif (bots := self_play(shadow.rules)) is None or revealed[0].generator != bots.generator:
            chance.fail(revealed[0].originator_version, f"the generator {revealed[0].generator!r} is not known here")
        else:
            history = shadow.history
            actions = [shadow.rules.parse_action(notation) for _, notation, _ in history]
            unseeded = bots.first_unseeded(shadow.kit, shadow.player_names, revealed[0].seed, actions, shadow.options)
            if unseeded is not None:
                version, notation, _ = history[unseeded]
                chance.fail(version, f"event {version} ({notation!r}) is not what the revealed seed draws")
            else:
                drawn = sum(1 for action in actions if is_chance(shadow.rules, action))
                chance.detail = f"{drawn} chance actions drawn again from seed {revealed[0].seed}"

    def _start(self, first: Any) -> Game | None:
        setup = self.checks["setup"]
        if not isinstance(first, Game.Started):
            setup.fail(1, "event 1 does not start a game")
            return None
        ruleset = rulesets().get(first.ruleset)
        if ruleset is not None and first.version != ruleset.version:
            ruleset = at_version(ruleset, first.version) or ruleset  # a version kept decides as it did
        self.pinned = {
            "ruleset": first.ruleset,
            "ruleset_version": first.version,
            "ruleset_version_used": ruleset.version if ruleset else None,
            "kit": first.kit,
            "kit_hash": first.kit_hash,
            "options": first.options,
            "players": first.players,
        }
        if ruleset is None:
            setup.fail(1, f"the game's ruleset {first.ruleset!r} is not known here")
            return None
        try:
            kit = ruleset.parse_kit(first.kit_document, first.kit)
        except KitError as error:
            setup.fail(1, f"the kit the game carries is not valid: {error}")
            return None
        if kit.content_hash != first.kit_hash:
            setup.fail(1, f"the kit the game carries has hash {kit.content_hash}, not the {first.kit_hash} it pinned")
            return None
        fields = {k: v for k, v in vars(first).items() if k not in ("originator_id", "originator_version", "timestamp")}
        fields["version"] = ruleset.version
        try:  # the same setup, made afresh with the ruleset of this build
            return Game.started_again(first.originator_id, first.timestamp, fields)
        except (UnknownRuleset, ValueError) as error:
            setup.fail(1, f"the game cannot be set up: {error}")
            return None

    def _check_head(self, events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> None:
        head = self.checks["head"]
        if self.expect_head is None:
            head.verdict, head.detail = NOT_RUN, "no receipt was given"
            return
        last = self.stored[-1].originator_version if self.stored else 0
        read = {stored.originator_version: fields for stored, fields in events}
        for stored in self.stored:  # the whole log, also beyond the event the audit stops at
            fields = read.get(stored.originator_version) or self._fields_or_none(stored)
            if fields is not None and fields.get("hash") == self.expect_head:
                head.detail = f"the receipt's head is event {stored.originator_version} of {last}"
                return
        head.fail(
            last + 1,
            f"no event carries the receipt's head hash: the log ends at event {last}, so events after it were cut "
            "off, or the log was rewritten",
        )

    def _fields_or_none(self, stored: StoredEvent) -> dict[str, Any] | None:
        return self._fields_and_seal(stored)[0]

    def _report(self, events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> AuditReport:
        checks = [self.checks[name] for name in CHECK_NAMES]
        failed = [c for c in checks if c.verdict in (FAIL, RULES_CHANGED)]
        first = min(failed, key=lambda c: (c.event or 0, CHECK_NAMES.index(c.name))) if failed else None
        verdict = CLEAN if first is None else RULES_CHANGED if first.verdict == RULES_CHANGED else DAMAGED
        if any(c.verdict == FAIL for c in checks):
            verdict = DAMAGED
        noted = self._noted(events) if self.checks["rules"].verdict == PASS else {}
        reveal = reveal_at_end_set(events)
        withdrawal = self.withdrawal.as_data()
        if verdict == CLEAN and noted.get("deviations"):
            verdict = DEVIATIONS
        last = events[-1] if events else None
        data = {
            "format": REPORT_FORMAT,
            "version": REPORT_VERSION,
            "game": str(self.game_id),
            "pinned": self.pinned,
            "events_audited": len(events),
            "head": {"version": last[0].originator_version, "hash": last[1].get("hash")} if last else None,
            "verdict": verdict,
            "first_divergence": first.as_data() if first else None,
            "checks": [check.as_data() for check in checks],
            "undone_rolls": self.undone_rolls,
            **noted,
            **({"not_covered": self.not_covered} if self.not_covered else {}),
            **({"imported": _runs(self.imported)} if self.imported else {}),
            **({"reveal_at_end_set": reveal} if reveal else {}),
            **({"withdrawal": withdrawal} if withdrawal else {}),
        }
        return AuditReport(data)

    @staticmethod
    def _noted(events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        """The decisions of seats the rules run that the recorder made otherwise (`deviations`), and those made
        among a tie (`open_ties`), as the refold confirmed the actions' warnings."""
        found: dict[str, list[dict[str, Any]]] = {}
        for stored, fields in events:
            for warning in fields.get("warnings") or ():
                key = NOTED.get(warning[2]) if len(warning) > 2 else None
                if key is not None:
                    entry = {"event": stored.originator_version, "ruling": warning[0], "message": warning[1]}
                    found.setdefault(key, []).append(entry)
        return found


IMPORTED_WHY = (
    "the server was handed them whole, in a bundle or a game file, and checked each against the rules; its seals "
    "vouch that they are as it imported them, not that they were recorded on it"
)


def _runs(versions: Sequence[int]) -> list[list[int]]:
    """Ascending versions as runs of consecutive ones, each [first, last]."""
    runs: list[list[int]] = []
    for version in versions:
        if runs and runs[-1][1] + 1 == version:
            runs[-1][1] = version
        else:
            runs.append([version, version])
    return runs


def _runs_words(versions: Sequence[int]) -> str:
    named = ", ".join(f"{first} to {last}" if first != last else str(first) for first, last in _runs(versions))
    return f"events {named} are" if len(versions) > 1 else f"event {named} is"


def _covered_detail(covered: Sequence[int]) -> str:
    first, last = covered[0], covered[-1]
    if len(covered) == last - first + 1:
        return f"events {first} to {last} are as checkpoints signed them"
    return (
        f"the {len(covered)} events checkpoints signed, from event {first} to {last}, are as they signed them "
        "(not_covered names the others)"
    )


def _uncovered_why(reason: str) -> str:
    return REFUSALS.get(reason) or UNCOVERED.get(reason, reason)


def reveal_at_end_set(events: Sequence[tuple[StoredEvent, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Where the log says whether the game's hidden facts are shown to every reader once it is over, and what it
    says, in order (the latest stands; a log without any shows them)."""
    return [
        {"event": stored.originator_version, "reveal_at_end": fields.get("reveal_at_end")}
        for stored, fields in events
        if stored.topic == Game.EndRevealSet.TOPIC
    ]


class Refold:
    """The game folded again beside its log: each recorded command made again on a fresh game, and the events
    that gives compared with those recorded."""

    def __init__(
        self,
        game: Game,
        recorded: Sequence[Any],
        check: Check,
        verdict: str,
        undone_rolls: list[dict[str, Any]],
        partial: bool = False,
    ) -> None:
        """`partial`: the log is audited only as far as an event, so what follows it is not missing."""
        self.game, self.recorded, self.check, self.verdict = game, recorded, check, verdict
        self.partial = partial
        self.undone_rolls = undone_rolls
        game.hashed = False  # type: ignore[misc]
        game.collect_events()

    def run(self) -> None:
        index = 1
        while index < len(self.recorded):
            divergence = self._step(self.recorded[index])
            if isinstance(divergence, tuple):
                self.check.fail(*divergence, self.verdict)
                return
            index += divergence

    def _step(self, event: Any) -> int | tuple[int, str]:
        """How many recorded events the command made again accounts for, or where and how it diverges."""
        version = event.originator_version
        try:
            made = self._make_again(event)
        except (RuleViolation, NotationError, ValueError) as error:
            return version, f"event {version} ({_label(event)}) is refused by the rules: {error}"
        if made is None:
            return version, f"event {version}: a consequence recorded with no action before it"
        for derived in made:
            at = derived.originator_version
            if at > len(self.recorded) and self.partial:
                break  # the audit stops at an event the action's consequences go beyond
            divergence = self._compare(self.recorded[at - 1] if at <= len(self.recorded) else None, derived)
            if divergence is not None:
                return at, divergence
        return len(made)

    def _make_again(self, event: Any) -> list[Any] | None:
        game = self.game
        if isinstance(event, Game.ActionRecorded):
            game.record(event.notation, event.entered_at)
        elif isinstance(event, Game.ActionCorrected):
            game.correct(event.notation, event.reason, event.entered_at)
        elif isinstance(event, Game.ActionsUndone):
            self._note_undone_rolls(event)
            game.undo(len(event.versions), event.reason)
        elif isinstance(event, Game.AnnotationAdded):
            game.annotate(event.about, event.text)
        elif isinstance(event, Game.SeedRevealed):
            game.reveal_seed(event.generator, event.salt, event.seed)
        elif isinstance(event, Game.EndRevealSet):
            game.set_reveal_at_end(event.reveal_at_end)
        else:
            return None
        return list(game.collect_events())

    def _note_undone_rolls(self, event: Any) -> None:
        undone = set(event.versions)
        for version, notation, _ in self.game.history[-len(undone) :]:
            if version in undone and is_chance(self.game.rules, self.game.rules.parse_action(notation)):
                self.undone_rolls.append(
                    {"event": version, "roll": notation, "undone_by": event.originator_version, "reason": event.reason}
                )

    @staticmethod
    def _compare(recorded: Any, derived: Any) -> str | None:
        version = derived.originator_version
        if recorded is None:
            return f"the rules derive {type(derived).__name__} as event {version}; the log ends before it"
        if type(recorded) is not type(derived):
            return f"event {version} is {type(recorded).__name__}; the rules derive {type(derived).__name__}"
        if _same_derived_fields(vars(recorded), vars(derived)):
            return None
        mine, theirs = _derived_fields(recorded), _derived_fields(derived)
        if mine != theirs:
            differing = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
            name = differing[0]
            return (
                f"event {version} ({type(recorded).__name__}) records {name}={mine.get(name)!r}; "
                f"the rules derive {theirs.get(name)!r}"
            )
        return None


def _same_derived_fields(recorded: dict[str, Any], derived: dict[str, Any]) -> bool:
    """Whether the events agree on every field the rules derive (a quick test: False may still agree)."""
    return recorded == {**derived, **{key: recorded[key] for key in UNDERIVED if key in recorded}}


def _derived_fields(event: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(event).items() if k not in UNDERIVED}


def _label(event: Any) -> str:
    notation = getattr(event, "notation", None)
    if notation is not None and getattr(event, "visible_only_to", None) is None:
        return f"{type(event).__name__} {notation!r}"
    return type(event).__name__


@dataclass(frozen=True)
class CanonicalReport:
    """A report as data; `canonical` is its bytes, `hash` their SHA-256, also carried inside as `report_hash`."""

    data: dict[str, Any]

    @property
    def hash(self) -> str:
        return digest(self.data)

    @property
    def canonical(self) -> bytes:
        return canonical_bytes({**self.data, "report_hash": self.hash})


class AuditReport(CanonicalReport):
    @property
    def verdict(self) -> str:
        verdict: str = self.data["verdict"]
        return verdict

    def text(self) -> str:
        """The report in words: the verdict, the first divergence, a line a check, the undone rolls."""
        data = self.data
        head = data["head"] or {}
        lines = [
            f"audit of game {data['game']}: {data['verdict']}",
            f"{data['events_audited']} events, head {head.get('hash')}",
        ]
        divergence = data["first_divergence"]
        if divergence is not None:
            where = f", at event {divergence['event']}" if divergence["event"] is not None else ""
            lines.append(f"first divergence{where}: {divergence['detail']}")
        for check in data["checks"]:
            detail = f" ({check['detail']})" if check["detail"] else ""
            lines.append(f"  {check['verdict']:<13} {check['check']:<{CHECK_WIDTH}} {check['means']}{detail}")
        for roll in data["undone_rolls"]:
            lines.append(
                f"  undone roll: event {roll['event']} {roll['roll']!r}, undone by event {roll['undone_by']}"
                f" ({roll['reason']}): a re-roll"
            )
        for key, label in (("deviations", "deviation"), ("open_ties", "open tie")):
            for entry in data.get(key, ()):
                lines.append(f"  {label}: event {entry['event']} [{entry['ruling']}] {entry['message']}")
        for run in data.get("not_covered", ()):
            first, last = run["events"]
            by = f", checkpoint {run['checkpoint']}" if run["checkpoint"] is not None else ""
            lines.append(f"  not covered: events {first} to {last} ({run['reason']}{by}): {run['why']}")
        for entry in data.get("reveal_at_end_set", ()):
            value = entry["reveal_at_end"]
            said = REVEAL_AT_END_WORDS[value] if isinstance(value, bool) else f"says {value!r}"
            lines.append(f"  hidden facts at the end: event {entry['event']} {said}")
        lines.extend(withdrawal_lines(data.get("withdrawal")))
        lines.append(f"report hash {self.hash}")
        return "\n".join(lines) + "\n"

    def check(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.data["checks"] if c["check"] == name)
        return found


def withdrawal_lines(withdrawal: dict[str, Any] | None) -> list[str]:
    """The report's `withdrawal` in words: a line for what stands, and one for each change."""
    if not withdrawal:
        return []
    if withdrawal["withdrawn"] is None:
        return [f"  withdrawn: unknown ({withdrawal['unvouched']})"]
    stands = (
        f"  withdrawn: left out of standings, ratings and statistics ({withdrawal['reason']})"
        if withdrawal["withdrawn"]
        else "  withdrawn: no (reinstated)"
    )
    changes = [
        f"  {WITHDRAWN_WORDS[change['withdrawn']]} by access event {change['access_event']}: {change['reason']}"
        for change in withdrawal["changes"]
    ]
    return [stands, *changes]


def snapshot_matches(stored: StoredEvent, game: Game) -> bool:
    """Whether a stored snapshot, restored as a game is from it (whichever version wrote it), is the game; one
    that cannot even be restored is not."""
    try:
        fields = unpack_sealed(stored.state)[0]
        restored = Game.from_snapshot(game.id, stored.originator_version, fields["state"])
        return snapshot_view(restored) == snapshot_view(game, restored.uncommitted_hidden is not None)
    except Exception:
        return False


# What a game restored from a snapshot goes on from.
SNAPSHOT_VIEW = (
    "setup",
    "players",
    "options",
    "head_hash",
    "annotations",
    "reveal_at_end",
    "uncommitted_hidden",
    "history",
    "state",
)


def snapshot_view(game: Game, knows_uncommitted: bool = True) -> bytes:
    """What a game restored from a snapshot goes on from; without `knows_uncommitted`, as a snapshot taken before
    games kept their hidden actions stored before commitments has it (a game made from one reads them in its log)."""
    data = game.snapshot_data()
    if not knows_uncommitted:
        data["uncommitted_hidden"] = None
    return canonical_bytes({key: data[key] for key in SNAPSHOT_VIEW})


def audit(
    game_id: UUID,
    stored: Sequence[StoredEvent],
    up_to: int | None = None,
    expect_head: str | None = None,
    sealer: Sealer | None = None,
    snapshots: Sequence[StoredEvent] = (),
    signed: Signed | None = None,
    withdrawal: WithdrawalRecord | None = None,
) -> AuditReport:
    """The audit of a game's stored events (in version order), as far as event `up_to`; seals are checked with
    `sealer`'s key, the events against what the checkpoints `signed` under it, and each of the stored `snapshots`
    against the fold; `withdrawal`, what the game's access record says of its withdrawal, is reported as it is."""
    said = withdrawal or WithdrawalRecord()
    return Audit(game_id, stored, up_to, expect_head, sealer, snapshots, signed, withdrawal=said).run()
