"""The trait-card game "Evo" (rules document 003): species as trait decks over four millennia of generations.

May import the rules' contract and toolkit and the standard library; no other ruleset and no hex island."""
