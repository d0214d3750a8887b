"""A toy ruleset that goes through every layer of evo-ledger, installed only for the tests (`tests/toy_dist`)."""
