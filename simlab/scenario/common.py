"""The parts of a scenario every rule system shares.

A scenario names its rule system (``rules:``), the sample size and seed, the round cap,
its attacks and its sides. Each rule system subclasses these models with its own attack
and combatant fields (``simlab/rules/<system>/model.py``); everything here is validated
the same way for all of them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, PrivateAttr, field_validator

from simlab.scenario.validation import StrictModel

TargetPolicy = Literal["focus", "random", "lowest-hp"]
TARGET_POLICIES: tuple[str, ...] = ("focus", "random", "lowest-hp")
# Codes the kernels use for the policies (simlab.engine.encounter).
POLICY_CODE = {name: code for code, name in enumerate(TARGET_POLICIES)}

MAX_COMBATANTS = 64


class CombatantBase(StrictModel):
    """Fields every combatant has, whatever the rule system.

    ``count`` makes that many copies, named ``Name 1``, ``Name 2``, …; ``attacks`` lists
    attack names from the scenario's ``attacks:`` used in rotation, one per attack made;
    ``target`` is the targeting policy (RULES.md, shared model): ``focus`` (first standing
    enemy in listed order; default), ``random`` or ``lowest-hp``.
    """

    name: str = Field(min_length=1, max_length=60)
    count: int = Field(1, ge=1, le=MAX_COMBATANTS)
    attacks: list[str] = Field(default_factory=list)
    target: TargetPolicy = "focus"


class ScenarioBase(StrictModel):
    """Fields every scenario has; rule systems add ``attacks``, ``sides`` and ``params``."""

    scenario: str = Field(min_length=1, max_length=100)
    rules: str
    description: str = ""
    encounters: int = Field(100_000, ge=1, le=10**11)
    seed: int = Field(0, ge=0, le=2**64 - 1)
    max_rounds: int = Field(30, ge=1, le=1000)

    _source: Any = PrivateAttr(default=None)

    @field_validator("sides", check_fields=False)
    @classmethod
    def _two_sides(cls, sides: dict[str, list[Any]]) -> dict[str, list[Any]]:
        if len(sides) < 2:
            raise ValueError(f"expected at least 2 sides; got {len(sides)}")
        total = sum(c.count for members in sides.values() for c in members)
        if total > MAX_COMBATANTS:
            raise ValueError(f"expected at most {MAX_COMBATANTS} combatants; got {total}")
        return sides

    @property
    def source(self) -> Any:
        """The YAML source this scenario was read from (positions for error messages)."""
        return self._source

    def expanded(self) -> list[tuple[int, Any]]:
        """(side index, combatant model) for every copy after ``count:``, in order."""
        out: list[tuple[int, Any]] = []
        for s, members in enumerate(self.sides.values()):  # type: ignore[attr-defined]
            for member in members:
                out.extend((s, member) for _ in range(member.count))
        return out

    def combatant_names(self) -> list[tuple[str, str]]:
        """(side, name) of every combatant after expanding ``count:`` copies, in order."""
        out: list[tuple[str, str]] = []
        for side, members in self.sides.items():  # type: ignore[attr-defined]
            for member in members:
                if member.count == 1:
                    out.append((side, member.name))
                else:
                    out.extend((side, f"{member.name} {k + 1}") for k in range(member.count))
        return out
