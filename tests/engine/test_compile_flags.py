"""numba's compile flags compared by ``simlab/engine/compile_flags.py`` as numba compares
them: the same hash and the same equality for every pair of flags, and installed only
over the functions it was checked against."""

from __future__ import annotations

import itertools
import random

import numba
import pytest
from numba.core import targetconfig
from numba.core.compiler import Flags
from numba.core.targetconfig import Option, TargetConfig

from simlab.engine import compile_flags, jit

READ = (0, 60) <= tuple(int(part) for part in numba.__version__.split(".")[:2]) < (0, 69)


class OtherConfig(TargetConfig):
    """A target configuration of another class, with an option named as one of Flags'."""

    boundscheck = Option(type=bool, default=False, doc="as Flags' option")
    depth = Option(type=int, default=3, doc="an option Flags does not have")


def numba_own():
    """numba's ``__hash__`` and ``__eq__``, after simlab's are installed."""
    if not READ:
        pytest.skip(f"numba {numba.__version__}: simlab leaves its flags as they are")
    jit.speed_up_compiles()
    numba_hash, numba_eq = compile_flags.REPLACED
    return numba_hash, numba_eq


def some_flags(seed: int) -> list[TargetConfig]:
    """Flags with nothing set, with bool options set at random (often to their default,
    which numba counts as equal to leaving them unset), copies, and another class."""
    rng = random.Random(seed)
    bools = [name for name, option in Flags.options.items() if option.type is bool]
    made: list[TargetConfig] = [Flags(), Flags()]
    for _ in range(30):
        flags = Flags()
        for name in rng.sample(bools, rng.randint(1, 3)):
            setattr(flags, name, rng.random() < 0.5)
        made += [flags, Flags(flags)]
    error_model = Flags()
    error_model.error_model = "numpy"
    other = OtherConfig()
    other.boundscheck = True
    return [*made, error_model, OtherConfig(), other]


def test_the_same_hash_and_equality_as_numba_for_every_pair():
    numba_hash, numba_eq = numba_own()
    made = some_flags(19)
    equal_pairs = 0
    for a, b in itertools.product(made, repeat=2):
        assert compile_flags.flags_eq(a, b) == numba_eq(a, b)
        assert (a == b) == numba_eq(a, b)  # what numba's caches now call
        equal_pairs += a is not b and numba_eq(a, b) is True
    for flags in made:
        assert compile_flags.flags_hash(flags) == numba_hash(flags) == hash(flags)
    assert equal_pairs > len(made)  # equal pairs that are not the same object were seen


def test_an_option_set_to_its_default_equals_it_unset():
    _, numba_eq = numba_own()
    unset, set_to_default = Flags(), Flags()
    set_to_default.boundscheck = False
    assert numba_eq(unset, set_to_default) is True
    assert compile_flags.flags_eq(unset, set_to_default) is True


def test_not_flags_compare_as_numba_leaves_them():
    numba_own()
    assert compile_flags.flags_eq(Flags(), "boundscheck") is NotImplemented
    assert Flags() != "boundscheck"


def test_installed_on_checked_numba_versions():
    numba_own()
    assert TargetConfig.__hash__ is compile_flags.flags_hash
    assert TargetConfig.__eq__ is compile_flags.flags_eq
    assert compile_flags.install()  # a second time changes nothing
    assert len(compile_flags.REPLACED) == 2


def test_not_installed_over_functions_it_was_not_checked_against(monkeypatch):
    def other_hash(self):  # not numba's: no sorted values
        return 0

    monkeypatch.setattr(targetconfig.TargetConfig, "__hash__", other_hash)
    assert not compile_flags.install()
    assert targetconfig.TargetConfig.__hash__ is other_hash
