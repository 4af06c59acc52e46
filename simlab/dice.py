"""Dice expressions: parsing, exact distributions and the array format of the kernels.

A dice expression such as ``1d10+4``, ``3d6kh2`` or ``2d20kl1 - 1d4`` is parsed by a small
hand-written scanner (never ``eval``) into a :class:`Dice`, whose :meth:`Dice.pmf` is the
exact probability mass function of the total.

Grammar (whitespace is allowed between tokens; ``d``, ``kh`` and ``kl`` in any case)::

    expr := term (('+' | '-') term)*      a leading '-' on the first term is allowed
    term := dice | integer
    dice := [count] 'd' sides [('kh' | 'kl') keep]

Keep-highest and keep-lowest distributions come from a dynamic program over the faces,
polynomial in the number of dice and sides, never from enumerating ``sides ** count``
outcomes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, NoReturn

import numpy as np
from pydantic import BeforeValidator, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from simlab.errors import DiceError

MAX_COUNT = 100
MAX_SIDES = 1000
MAX_TERMS = 20
MAX_CONSTANT = 1_000_000
MAX_TEXT = 200

KEEP_MODES = ("all", "high", "low")
#: What a message for text that is no dice expression gives as examples, where a field
#: takes every expression (:func:`dice_coercer` for one that takes fewer).
EXAMPLES = "2d6, 3d6kh2 or 1d10+4"
_DIRECT_LIMIT = 200_000  # above this many multiply-adds, convolve by FFT


@dataclass(frozen=True)
class DiceTerm:
    """One group of identical dice, e.g. ``3d6kh2`` or ``-1d4``.

    Parameters
    ----------
    count : int
        Number of dice rolled (kept and dropped), 1..100.
    sides : int
        Faces per die, numbered 1..sides (1..1000).
    keep : str
        ``'all'``, ``'high'`` (keep the highest ``keep_n``) or ``'low'``.
    keep_n : int
        Number of dice summed; equals ``count`` when ``keep == 'all'``.
    sign : int
        ``+1`` or ``-1``: whether the term is added to or subtracted from the total.
    """

    count: int
    sides: int
    keep: str
    keep_n: int
    sign: int

    def __post_init__(self) -> None:
        """Check the invariants a parsed term always satisfies."""
        ok = (
            self.keep in KEEP_MODES
            and 1 <= self.count <= MAX_COUNT
            and 1 <= self.sides <= MAX_SIDES
            and 1 <= self.keep_n <= self.count
            and (self.keep != "all" or self.keep_n == self.count)
            and self.sign in (1, -1)
        )
        if not ok:
            raise DiceError(f"expected a valid dice term; got {self!r}")

    @property
    def min(self) -> int:
        """Lowest possible signed value of the term."""
        low, high = self.keep_n, self.keep_n * self.sides
        return low if self.sign > 0 else -high

    @property
    def max(self) -> int:
        """Highest possible signed value of the term."""
        low, high = self.keep_n, self.keep_n * self.sides
        return high if self.sign > 0 else -low

    def __str__(self) -> str:
        """Unsigned normalized text, e.g. ``3d6kh2``."""
        suffix = {"all": "", "high": f"kh{self.keep_n}", "low": f"kl{self.keep_n}"}[self.keep]
        return f"{self.count}d{self.sides}{suffix}"

    def pmf(self) -> tuple[int, np.ndarray]:
        """Exact distribution of the signed term.

        Returns
        -------
        tuple of (int, numpy.ndarray)
            Lowest value and the read-only probabilities of lowest..highest.
        """
        low, probs = _unsigned_term_pmf(self.count, self.sides, self.keep, self.keep_n)
        if self.sign > 0:
            return low, probs
        return -(low + len(probs) - 1), _frozen(probs[::-1])


@dataclass(frozen=True)
class Dice:
    """A parsed dice expression: a sum of signed dice terms plus a constant.

    Parameters
    ----------
    text : str
        The expression as written (not part of equality; see ``str(dice)`` for the
        normalized form).
    terms : tuple of DiceTerm
        The dice terms, in the order written.
    constant : int
        Sum of the integer terms.
    """

    text: str = field(compare=False)
    terms: tuple[DiceTerm, ...]
    constant: int

    @classmethod
    def constant_only(cls, value: int) -> Dice:
        """A "dice" expression that always totals ``value``.

        Parameters
        ----------
        value : int
            The fixed total, with ``|value| <= 1_000_000``.

        Returns
        -------
        Dice
            An expression with no dice terms.
        """
        if isinstance(value, bool) or not isinstance(value, int):
            raise DiceError(f"{_expected(EXAMPLES)}; got {value!r} (a {type(value).__name__})")
        _check_integer(value, str(value))
        return cls(text=str(value), terms=(), constant=value)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        """Validate from a string, an int or a Dice; serialize to the normalized text."""
        return core_schema.no_info_plain_validator_function(
            _coerce, serialization=core_schema.plain_serializer_function_ser_schema(str)
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """Describe the accepted input: a dice expression string or an integer."""
        return {
            "anyOf": [{"type": "string", "maxLength": MAX_TEXT}, {"type": "integer"}],
            "description": "dice expression such as 2d6, 3d6kh2 or 1d10+4",
        }

    @property
    def min(self) -> int:
        """Lowest possible total."""
        return self.constant + sum(t.min for t in self.terms)

    @property
    def max(self) -> int:
        """Highest possible total."""
        return self.constant + sum(t.max for t in self.terms)

    @property
    def n_dice(self) -> int:
        """Total number of dice rolled, dropped ones included."""
        return sum(t.count for t in self.terms)

    @property
    def mean(self) -> float:
        """Expected total, computed from the exact distribution."""
        low, probs = self.pmf()
        values = np.arange(low, low + len(probs), dtype=np.float64)
        return float(values @ probs)

    def pmf(self) -> tuple[int, np.ndarray]:
        """Exact distribution of the total.

        Returns
        -------
        tuple of (int, numpy.ndarray)
            The lowest total and the float64 probabilities of lowest..highest, summing
            to 1. The array is shared with a cache and is read-only.
        """
        return _dice_pmf(self.terms, self.constant)

    def as_array(self) -> np.ndarray:
        """Terms in the layout the numba kernels roll.

        Returns
        -------
        numpy.ndarray
            int64 array of shape ``(n_terms, 5)``, columns ``[count, sides, keep_mode,
            keep_n, sign]`` with keep_mode 0 = all, 1 = high, 2 = low. The constant is not
            included; read it from :attr:`constant`.
        """
        rows = [(t.count, t.sides, KEEP_MODES.index(t.keep), t.keep_n, t.sign) for t in self.terms]
        return np.array(rows, dtype=np.int64).reshape(len(rows), 5)

    def __str__(self) -> str:
        """Normalized text such as ``2d6+1d4+1`` or ``-1d6-2``."""
        parts = [("-" if t.sign < 0 else "+") + str(t) for t in self.terms]
        if self.constant or not parts:
            parts.append(f"{self.constant:+d}")
        text = "".join(parts)
        return text[1:] if text.startswith("+") else text


# --------------------------------------------------------------------------- parsing


def parse_dice(text: str, examples: str = EXAMPLES) -> Dice:
    """Parse a dice expression.

    Parameters
    ----------
    text : str
        An expression such as ``2d6``, ``d20``, ``3d6kh2``, ``4d6kl3`` or ``1d10 + 4``.
    examples : str, optional
        The expressions a message for text that is no dice expression gives as examples:
        ones the field read accepts (``1d6, 2d6+3 or 1d10+4`` for a damage of plain dice).

    Returns
    -------
    Dice
        The parsed expression.

    Raises
    ------
    DiceError
        If the text does not follow the grammar or exceeds a limit; the message says
        what was expected and where the text went wrong.
    """
    if not isinstance(text, str):
        raise DiceError(f"{_expected(examples)}; got {text!r} (a {type(text).__name__})")
    if len(text) > MAX_TEXT:
        raise DiceError(
            f"expected a dice expression of at most {MAX_TEXT} characters; "
            f"got {len(text)} characters"
        )
    return _Parser(text, examples).parse()


def _expected(examples: str) -> str:
    """``expected a dice expression like 2d6, 3d6kh2 or 1d10+4``, with ``examples``."""
    return f"expected a dice expression like {examples}"


class _Parser:
    """Recursive-descent scanner over one expression."""

    def __init__(self, text: str, examples: str = EXAMPLES) -> None:
        self.text = text
        self.examples = examples
        self.pos = 0

    def parse(self) -> Dice:
        """Parse the whole text into a Dice."""
        if not self.text.strip():
            self._fail("empty expression")
        terms: list[DiceTerm] = []
        constant = 0
        n_terms = 0
        sign = -1 if self._take("-") else 1
        while True:
            term = self._term(sign)
            n_terms += 1
            if isinstance(term, DiceTerm):
                terms.append(term)
            else:
                constant += term
            if self._at_end():
                break
            sign = self._operator()
        if n_terms > MAX_TERMS:
            raise DiceError(f"expected at most {MAX_TERMS} terms; got {n_terms} in {self.text!r}")
        return Dice(text=self.text, terms=tuple(terms), constant=constant)

    def _fail(self, reason: str) -> NoReturn:
        """Raise the grammar error with ``reason`` in parentheses."""
        raise DiceError(f"{_expected(self.examples)}; got {self.text!r} ({reason})")

    def _unexpected(self) -> NoReturn:
        """Raise for the character at the current position (or the end of the text)."""
        if self.pos >= len(self.text):
            self._fail(f"unexpected end after {self.text.rstrip()[-1]!r}")
        self._fail(f"unexpected {self.text[self.pos]!r} at character {self.pos + 1}")

    def _skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def _at_end(self) -> bool:
        self._skip_space()
        return self.pos >= len(self.text)

    def _take(self, token: str) -> bool:
        """Consume ``token`` (case-insensitive) after optional whitespace, if present."""
        self._skip_space()
        end = self.pos + len(token)
        if self.text[self.pos : end].lower() == token:
            self.pos = end
            return True
        return False

    def _operator(self) -> int:
        """Consume ``+`` or ``-`` and return its sign."""
        if self._take("+"):
            return 1
        if self._take("-"):
            return -1
        self._unexpected()

    def _number(self) -> int | None:
        """Consume a run of ASCII digits after optional whitespace, if present."""
        self._skip_space()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in "0123456789":
            self.pos += 1
        return int(self.text[start : self.pos]) if self.pos > start else None

    def _required_number(self) -> int:
        """Consume a run of ASCII digits, failing if there is none."""
        number = self._number()
        if number is None:
            self._unexpected()
        return number

    def _term(self, sign: int) -> DiceTerm | int:
        """Parse one term: a group of dice or an integer."""
        self._skip_space()
        start = self.pos
        count = self._number()
        if not self._take("d"):
            value = self._required_number() if count is None else count
            _check_integer(value, self.text[start : self.pos].strip())
            return sign * value
        count = 1 if count is None else count
        sides = self._required_number()
        keep, keep_n = "all", count
        for token, mode in (("kh", "high"), ("kl", "low")):
            if self._take(token):
                keep, keep_n = mode, self._required_number()
                break
        source = self.text[start : self.pos].strip()
        return _make_term(count, sides, keep, keep_n, sign, source)


def _check_integer(value: int, source: str) -> None:
    """Reject integer terms beyond the limit."""
    if abs(value) > MAX_CONSTANT:
        raise DiceError(
            f"expected an integer of at most {MAX_CONSTANT} in absolute value; "
            f"got {value} in {source!r}"
        )


def _make_term(count: int, sides: int, keep: str, keep_n: int, sign: int, source: str) -> DiceTerm:
    """Build a term after checking the limits, naming the term's text in errors."""
    if count < 1:
        raise DiceError(f"expected at least 1 die in a term; got {count} in {source!r}")
    if count > MAX_COUNT:
        raise DiceError(f"expected at most {MAX_COUNT} dice in a term; got {count} in {source!r}")
    if sides < 1:
        raise DiceError(f"expected at least 1 side on a die; got {sides} in {source!r}")
    if sides > MAX_SIDES:
        raise DiceError(f"expected at most {MAX_SIDES} sides on a die; got {sides} in {source!r}")
    if not 1 <= keep_n <= count:
        raise DiceError(f"expected to keep 1 to {count} dice in a term; got {keep_n} in {source!r}")
    return DiceTerm(count=count, sides=sides, keep=keep, keep_n=keep_n, sign=sign)


# --------------------------------------------------------------------------- pydantic


def _coerce(value: Any, examples: str = EXAMPLES) -> Dice:
    """Turn scenario input (str, int or Dice) into a Dice, or raise a pydantic error whose
    message gives ``examples`` for text that is no dice expression."""
    if isinstance(value, Dice):
        return value
    try:
        if isinstance(value, int) and not isinstance(value, bool):
            return Dice.constant_only(value)
        return parse_dice(value, examples)
    except DiceError as exc:
        raise PydanticCustomError("dice_expression", "{message}", {"message": str(exc)}) from None


def dice_coercer(examples: str) -> Callable[[Any], Dice]:
    """The validator of a dice field that accepts fewer expressions than the grammar (no
    ``kh``, as zones-3d6's damage): its message for text that is no dice expression gives
    ``examples`` the field accepts, not ``3d6kh2`` that it would refuse next.

    Parameters
    ----------
    examples : str
        Expressions the field accepts, as a message lists them: ``1d6, 2d6+3 or 1d10+4``.

    Returns
    -------
    callable
        For ``Annotated[Dice, BeforeValidator(dice_coercer(...))]``.
    """
    return functools.partial(_coerce, examples=examples)


DiceExpr = Annotated[Dice, BeforeValidator(_coerce)]
"""Field type for scenario models: accepts ``"1d10+4"`` or ``5``, dumps as text."""


# --------------------------------------------------------------------------- distributions


def _frozen(array: np.ndarray) -> np.ndarray:
    """Make ``array`` read-only so cached results cannot be modified by callers."""
    array.setflags(write=False)
    return array


def _convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distribution of the sum of two independent variables given by probabilities."""
    if len(a) * len(b) <= _DIRECT_LIMIT:
        return np.convolve(a, b)
    n = len(a) + len(b) - 1
    size = 1 << (n - 1).bit_length()
    out = np.fft.irfft(np.fft.rfft(a, size) * np.fft.rfft(b, size), size)[:n]
    out = np.clip(out, 0.0, None)
    return out / out.sum()


@lru_cache(maxsize=1024)
def _dice_pmf(terms: tuple[DiceTerm, ...], constant: int) -> tuple[int, np.ndarray]:
    """Cached distribution of a sum of terms plus a constant."""
    low, probs = constant, np.ones(1)
    for term in terms:
        term_low, term_probs = term.pmf()
        low, probs = low + term_low, _convolve(probs, term_probs)
    return low, _frozen(np.asarray(probs, dtype=np.float64))


@lru_cache(maxsize=1024)
def _unsigned_term_pmf(count: int, sides: int, keep: str, keep_n: int) -> tuple[int, np.ndarray]:
    """Cached distribution of one unsigned term; returns (lowest value, probabilities)."""
    if keep == "all" or keep_n == count:
        probs = _sum_pmf(count, sides)
    elif keep == "high":
        probs = _keep_highest_pmf(count, sides, keep_n)
    else:
        # Keeping the lowest of faces x is keeping the highest of faces sides+1-x.
        probs = _keep_highest_pmf(count, sides, keep_n)[::-1].copy()
    return keep_n, _frozen(probs)


def _sum_pmf(count: int, sides: int) -> np.ndarray:
    """Probabilities of count..count*sides for the sum of ``count`` dice.

    Each die is added by a moving-window sum (a difference of cumulative sums), so the
    cost is linear in the length of the result per die.
    """
    probs = np.ones(1)
    for _ in range(count):
        padded = np.concatenate((np.zeros(sides), probs, np.zeros(sides - 1)))
        cumulative = np.cumsum(padded)
        probs = (cumulative[sides:] - cumulative[:-sides]) / sides
    probs = np.clip(probs, 0.0, None)
    return probs / probs.sum()


def _binomial(n: int, p: float) -> np.ndarray:
    """Probabilities of 0..n successes in ``n`` trials of probability ``p``."""
    q = 1.0 - p
    return np.array([math.comb(n, c) * p**c * q ** (n - c) for c in range(n + 1)])


def _keep_highest_pmf(count: int, sides: int, keep_n: int) -> np.ndarray:
    """Probabilities of keep_n..keep_n*sides for the sum of the highest ``keep_n`` dice.

    Faces are processed from ``sides`` down to 1. ``state[j]`` holds, by kept sum, the
    probability that exactly ``j < keep_n`` dice were assigned to the faces seen so far
    while the other ``count - j`` dice, not yet assigned, are uniform on the lower
    faces. At face ``f`` a binomial number ``c`` of those dice show ``f``; once the
    assigned dice reach ``keep_n`` the kept sum is final and moves to the result.
    """
    width = keep_n * sides + 1
    state = np.zeros((keep_n, width))
    state[0, 0] = 1.0
    result = np.zeros(width)
    for face in range(sides, 0, -1):
        state = _assign_face(state, result, count, face)
    return result[keep_n:] / result.sum()


def _assign_face(state: np.ndarray, result: np.ndarray, count: int, face: int) -> np.ndarray:
    """One step of :func:`_keep_highest_pmf`: let some unassigned dice show ``face``.

    Row ``j`` can only be non-zero on kept sums ``j*(face+1) .. j*sides``, since its
    ``j`` assigned dice showed higher faces; only that window is moved.
    """
    keep_n, width = state.shape
    sides = (width - 1) // keep_n
    new = np.zeros_like(state)
    for j in range(keep_n):
        lo, hi = j * (face + 1), j * sides + 1
        row = state[j, lo:hi]
        if not row.any():
            continue
        weights = _binomial(count - j, 1.0 / face)
        for c in range(keep_n - j):
            start = lo + c * face
            new[j + c, start : start + len(row)] += weights[c] * row
        start = lo + (keep_n - j) * face
        result[start : start + len(row)] += weights[keep_n - j :].sum() * row
    return new
