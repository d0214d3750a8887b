"""Hex islands, climate wheels and gene bags: the boards of Evo's editions, shared by their rulesets."""
