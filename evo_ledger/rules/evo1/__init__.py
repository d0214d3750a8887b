"""Evo 1st edition: the board of two half-boards, the climate die and chart, the meteor track, the auction.

May import the rules' contract and toolkit, the hex islands and the standard library; no other ruleset."""
