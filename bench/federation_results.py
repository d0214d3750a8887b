"""A federation's results, drawn from a seed: many players in clubs, tables of three to five, each finishing order
drawn from the Plackett-Luce model with hidden strengths and seat effects, so that a fit has a known truth to
recover. Nothing is played: the results are drawn at once, in arrays.

- players: `players` of them, each in one of `clubs` clubs of the same size (give or take one), each with a hidden
  strength (normal, centred on 0, of standard deviation STRENGTH_SD) and a liking for games (how often they sit,
  gamma distributed: some play a few games, some hundreds);
- tables: a game is of three, four or five players alike; its players are drawn from one club (the club drawn by
  its members' likings), or from the whole federation (AWAY of the games), each player at most once;
- results: each seat's utility is its player's strength plus its seat's effect at that size (`seat_effects`: the
  first seat 0, the later ones below it), perturbed by a standard Gumbel variable; the order of the perturbed
  utilities is a Plackett-Luce draw. In SHARED of the games the second and third places are shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from projections.strengths import Game, Seated

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

SIZES = (3, 4, 5)
STRENGTH_SD = 0.8
LIKING_SHAPE = 1.5
AWAY = 0.1
SHARED = 0.01
FIRST_SEAT_EDGE = 0.3
"""How far the last seat's effect lies below the first's; the seats between fall evenly between them."""


def seat_effects(size: int) -> Floats:
    """The hidden effect of each seat at a table of `size`: 0 for the first, falling evenly to -FIRST_SEAT_EDGE."""
    effects: Floats = -FIRST_SEAT_EDGE * np.arange(size, dtype=np.float64) / (size - 1)
    return effects


@dataclass(frozen=True)
class Federation:
    """Results as arrays, a row a game: its players by seat (-1 past the table's size) and their places (1 first,
    shared places equal), beside the hidden truth they were drawn from."""

    players: Ints
    places: Ints
    sizes: Ints
    strengths: Floats
    clubs: Ints

    @property
    def games(self) -> int:
        return len(self.sizes)

    def seated(self) -> Iterator[Game]:
        """Each game as the statistics read it from the read tables: its seats in seat order, each player named by
        its id, its place in the opening order its seat."""
        players, places = self.players.tolist(), self.places.tolist()
        ids = [f"player-{number:06d}" for number in range(len(self.strengths))]
        for number, size in enumerate(self.sizes.tolist()):
            game_id = f"game-{number:08d}"
            row, ranks = players[number], places[number]
            yield tuple(
                Seated(game_id, ids[row[seat]], ids[row[seat]], ranks[seat], seat + 1, seat + 1) for seat in range(size)
            )


def federation(games: int, players: int = 20_000, clubs: int = 400, seed: int = 2026) -> Federation:
    """`games` results among `players` players in `clubs` clubs, the same for the same arguments."""
    if players < clubs * max(SIZES):
        raise ValueError(f"{players} players in {clubs} clubs: a club needs at least {max(SIZES)} players")
    generator = np.random.default_rng(seed)
    strengths = generator.normal(0.0, STRENGTH_SD, players)
    liking = generator.gamma(LIKING_SHAPE, 1.0, players)
    club = generator.permutation(players) % clubs
    sizes = generator.choice(np.array(SIZES, dtype=np.int64), games)
    seats = _tables(generator, sizes, liking, club, clubs)
    places = _places(generator, seats, sizes, strengths)
    return Federation(seats, places, sizes, strengths, club)


def _tables(generator: np.random.Generator, sizes: Ints, liking: Floats, club: Ints, clubs: int) -> Ints:
    """Each game's players by seat: drawn by liking within a club (or the whole federation for AWAY of the games),
    a game with a player twice drawn again until none has."""
    order = np.argsort(club, kind="stable")
    cumulative = np.cumsum(liking[order])
    ends = np.searchsorted(club[order], np.arange(clubs + 1))
    club_liking = np.bincount(club, liking, clubs)
    games = len(sizes)
    low = np.zeros(games, dtype=np.int64)
    high = np.full(games, len(liking), dtype=np.int64)
    home = np.greater_equal(generator.random(games), AWAY)
    at = generator.choice(clubs, games, p=club_liking / club_liking.sum())
    low[home], high[home] = ends[at[home]], ends[at[home] + 1]
    seats = np.full((games, max(SIZES)), -1, dtype=np.int64)
    redraw = np.arange(games)
    while len(redraw):
        base = np.where(low[redraw] > 0, cumulative[np.maximum(low[redraw] - 1, 0)], 0.0)
        span = cumulative[high[redraw] - 1] - base
        targets = base[:, None] + generator.random((len(redraw), max(SIZES))) * span[:, None]
        drawn = order[np.minimum(np.searchsorted(cumulative, targets, side="right"), len(liking) - 1)]
        drawn[np.arange(max(SIZES)) >= sizes[redraw][:, None]] = -1
        seats[redraw] = drawn
        ordered = np.sort(drawn, axis=1)
        twice = np.any((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0), axis=1)
        redraw = redraw[twice]
    return seats


def _places(generator: np.random.Generator, seats: Ints, sizes: Ints, strengths: Floats) -> Ints:
    """Each seat's place: the order of its utility perturbed by a standard Gumbel variable, empty seats last; the
    second and third places shared in SHARED of the games."""
    games, width = seats.shape
    effects = np.full((games, width), -np.inf)
    for size in SIZES:
        effects[sizes == size, :size] = seat_effects(size)
    noisy = np.where(seats >= 0, strengths[seats] + effects + generator.gumbel(size=seats.shape), -np.inf)
    order = np.argsort(-noisy, axis=1, kind="stable")
    places = np.empty_like(seats)
    np.put_along_axis(places, order, np.arange(1, width + 1, dtype=np.int64)[None, :].repeat(games, axis=0), axis=1)
    shared = np.less(generator.random(games), SHARED)
    places[shared[:, None] & (places == 3)] = 2
    places[seats < 0] = 0
    return places
