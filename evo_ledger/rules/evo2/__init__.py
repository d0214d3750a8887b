"""Evo 2nd edition (Philippe Keyaerts), as RULINGS.md reads its rules (the E2 ids)."""
