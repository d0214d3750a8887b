"""Hex islands, climate wheels and gene bags: the boards of Evo's editions, shared by their rulesets.

May import the rules' kits and the standard library; no ruleset, so that every ruleset may import them."""
