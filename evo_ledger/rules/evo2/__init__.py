"""Evo 2nd edition (Philippe Keyaerts), as RULINGS.md reads its rules (the E2 ids).

May import the rules' contract and toolkit, the hex islands and the standard library; no other ruleset."""
