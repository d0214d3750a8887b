"""The games in replays/ between them show every part of the rules, and self-play is reproducible."""

from __future__ import annotations

from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.evo2.actions import Fly, Swim
from tests.helpers.support import ROOT, RULES
from tests.helpers.support import selfplay_output as selfplay

REQUIRED = {
    "combat won",
    "combat lost",
    "outbid",
    "killer babies",
    "regeneration",
    "chameleon skin",
    "wings or flippers",
    "survival choice",
}


def features_of(text: str) -> set[str]:
    game = parse_game(text)
    rules = get_ruleset(game.header.ruleset)
    state, seen = start(game, ROOT / "replays"), set()
    for line in game.actions:
        transition = rules.apply(state, line.action)
        for consequence in transition.consequences:
            data = consequence.data
            if consequence.kind == "combat_resolved":
                seen.add("combat won" if data["winner"] == data["attacker"] else "combat lost")
            seen |= {
                "bid_outbid": {"outbid"},
                "killer_baby_resolved": {"killer babies"},
                "chameleon_escaped": {"chameleon skin"},
                "dinosaurs_perished": {"survival choice"} if data.get("chosen") else set(),
            }.get(consequence.kind, set())
        if isinstance(line.action, Fly | Swim):
            seen.add("wings or flippers")
        state = transition.state
    if game.header.ruleset == "evo2" and any(player.has("regeneration") for player in state.players.values()):
        seen.add("regeneration")
    return seen


def test_the_golden_games_between_them_show_every_required_feature() -> None:
    games = sorted((ROOT / "replays").glob("*.evo"))
    assert len(games) >= 4
    seen = set().union(*(features_of(path.read_text()) for path in games))
    assert seen >= REQUIRED, f"missing from replays/: {sorted(REQUIRED - seen)}"


def test_the_hand_made_game_has_combats_outbids_and_survival_choices() -> None:
    seen = features_of((ROOT / "replays" / "hand-3p-first-game.evo").read_text())
    assert {"combat won", "combat lost", "outbid", "survival choice"} <= seen


def test_the_hand_worked_evo1_game_has_combats_outbids_and_survival_choices_E1_09_E1_16_E1_11() -> None:
    seen = features_of((ROOT / "replays" / "evo1-hand-3p.evo").read_text())
    assert {"combat won", "combat lost", "outbid", "survival choice"} <= seen


def test_selfplay_with_the_same_seed_prints_the_same_bytes_and_checks_clean() -> None:
    first, second = (
        selfplay("--ruleset", "evo2", "--players", "4", "--seed", "7"),
        selfplay("--ruleset", "evo2", "--players", "4", "--seed", "7"),
    )
    assert first == second
    assert first != selfplay("--ruleset", "evo2", "--players", "4", "--seed", "8")
    game = parse_game(first)
    assert game.result is not None and len(game.header.players) == 4
    assert "# after round 1: " in first and first.splitlines()[-1].startswith("result 1 ")
    state = start(game)
    for line in game.actions:
        state = RULES.apply(state, line.action).state
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.standings == game.result


def test_random_bots_also_play_whole_games() -> None:
    game = parse_game(selfplay("--ruleset", "evo2", "--players", "2", "--seed", "3", "--bot", "random"))
    assert game.result is not None and len(game.result) == 2


EVO1_GOLDEN = {
    "evo1-selfplay-3p-seed5.evo": ("--players", "3", "--seed", "5"),
    "evo1-selfplay-4p-seed39.evo": ("--players", "4", "--seed", "39"),
    "evo1-selfplay-5p-seed22-experienced.evo": ("--players", "5", "--seed", "22", "--option", "experienced=true"),
}


def test_the_self_played_evo1_golden_games_play_8_cards_or_more_each_and_come_again_from_their_seeds_E1_26() -> None:
    """Long by design: each golden game is replayed through the rules, then played again from its seed by the
    `selfplay` command in a process of its own, as a user runs it: only that shows the file is what the seed plays."""
    experienced = 0
    for name, args in EVO1_GOLDEN.items():
        text = (ROOT / "replays" / name).read_text()
        game = parse_game(text)
        rules = get_ruleset("evo1")
        state = start(game, ROOT / "replays")
        played = set()
        for line in game.actions:
            transition = rules.apply(state, line.action)
            played |= {c.data["card"] for c in transition.consequences if c.kind == "card_played"}
            state = transition.state
        outcome = rules.outcome(state)
        assert outcome is not None and outcome.standings == game.result, name
        assert len(played) >= 8, f"{name} plays {sorted(played)}"
        experienced += bool(game.header.options.get("experienced"))
        assert selfplay("--ruleset", "evo1", *args) == text, name
    assert experienced == 1


TRAITS_GOLDEN = {
    "traits-selfplay-2p-seed4.evo": ("--players", "2", "--seed", "4"),
    "traits-selfplay-4p-seed2.evo": ("--players", "4", "--seed", "2"),
}


def test_the_self_played_trait_card_golden_games_check_clean_and_come_again_from_their_seeds_TR_23() -> None:
    for name, args in TRAITS_GOLDEN.items():
        text = (ROOT / "replays" / name).read_text()
        game = parse_game(text)
        rules = get_ruleset("traits")
        state = start(game, ROOT / "replays")
        kinds = set()
        for line in game.actions:
            state = rules.apply(state, line.action).state
            kinds.add(type(line.action).__name__)
        outcome = rules.outcome(state)
        assert outcome is not None and outcome.standings == game.result, name
        assert {"Hunt", "Forage", "Migrate", "Journey", "Select", "TopUp"} <= kinds, name
        assert selfplay("--ruleset", "traits", *args) == text, name


AUTOSAUR_GOLDEN = {
    "evo1-autosaurs-3p-seed44.evo": ("--players", "3", "--autosaurs", "2", "--seed", "44"),
    "evo1-autosaurs-4p-seed56-experienced.evo": (
        "--players", "4", "--autosaurs", "3", "--seed", "56", "--option", "experienced=true",
    ),
}  # fmt: skip
AUTOSAUR_FEATURES = {"birth won", "birth lost", "step A", "step B", "step C", "increase", "move", "deadly", "isolated"}


def autosaur_features(text: str) -> set[str]:
    """What the Autosaurs of a game did: their births' steps and fights, their bids' kinds, their losses."""
    game = parse_game(text)
    rules = get_ruleset("evo1")
    autosaurs = set(str(game.header.options["autosaurs"]).split())
    state, seen = start(game, ROOT / "replays"), set()
    for line in game.actions:
        if state.birth_step:
            seen.add(f"step {state.birth_step}")
        transition = rules.apply(state, line.action)
        assert not [w for w in transition.warnings if w.kind == "deviation"], line.text
        for kind, data in transition.consequences:
            if kind == "combat_resolved" and data.get("birth") and data["attacker"] in autosaurs:
                seen.add("birth won" if data["winner"] == data["attacker"] else "birth lost")
            elif kind == "autosaur_rolled":
                seen.add("pass" if not data["row"] else "increase" if "5 or more" in data["reason"] else "move")
            elif kind == "autosaur_survived":
                seen |= {key for key in ("deadly", "isolated") if data[key]}
        state = transition.state
    outcome = rules.outcome(state)
    assert outcome is not None and outcome.standings == game.result
    return seen


def test_the_self_played_autosaur_golden_games_show_each_autosaur_decision_and_come_again_from_their_seeds() -> None:
    """AS-06 to AS-16 in two whole games, with two and three Autosaurs."""
    for name, args in AUTOSAUR_GOLDEN.items():
        text = (ROOT / "replays" / name).read_text()
        seen = autosaur_features(text)
        assert seen >= AUTOSAUR_FEATURES, f"{name} lacks {sorted(AUTOSAUR_FEATURES - seen)}"
        assert ("pass" in seen) == ("experienced" in name), name
        assert selfplay("--ruleset", "evo1", *args) == text, name
