"""A toy ruleset on a square grid, whose board the pages draw from its data alone, installed only for the tests
(`tests/toy_dist`)."""
