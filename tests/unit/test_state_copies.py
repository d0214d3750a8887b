"""The states the rulesets copy field by field, in their constructors' order: a copy holds every value of its
original, each in its own field."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from evo_ledger.rules.evo2.state import State as Evo2State
from evo_ledger.rules.traits.state import Location, Species
from evo_ledger.rules.traits.state import State as TraitsState

OWNERSHIP = {"_owned", "_owned_species", "_owned_locations"}
"""What a copy owns of its own, which it starts without."""


@pytest.mark.parametrize("kind", [Evo2State, TraitsState, Species, Location])
def test_a_copy_holds_each_value_of_its_original_in_the_same_field(kind: Any) -> None:
    values = {field.name: object() for field in fields(kind)}
    copied = kind(**values).copy()
    for name, value in values.items():
        if name not in OWNERSHIP:
            assert getattr(copied, name) is value, name
