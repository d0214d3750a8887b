"""Evo 1st edition: the board of two half-boards, the climate die and chart, the meteor track, the auction."""
