"""Every exception simlab raises on purpose.

Messages follow one form so that a designer can act on them: where the problem is
(``file:line:col`` when it comes from a scenario file), what was expected, and what was
found — ``expected X; got Y``. The CLI maps these classes to exit codes: 2 for anything
that is the input's fault, 3 for an internal error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

#: How alike a misspelt name and a known one must be (``difflib``'s ratio, case ignored)
#: for a message to suggest it: 'armour' and 'armor' 0.91, 'maec' and 'mace' 0.75.
SUGGEST_CUTOFF = 0.75
#: The fewest letters a misspelt name and a known one must begin with alike (all of the
#: misspelt one's but its last) to be suggested below that likeness: 'enemy', 'enemies'.
STEM_LETTERS = 4


def did_you_mean(found: object, known: Iterable[object]) -> str:
    """The end of a message that suggests the known name ``found`` was meant to be.

    Parameters
    ----------
    found : object
        What the input gave: a key, a name or a choice.
    known : iterable
        What it could have been.

    Returns
    -------
    str
        ``"; did you mean 'armor'?"`` when ``found`` is text close to one known name
        (:func:`closest_name`), else ``""``.
    """
    return suggestion(closest_name(found, known))


def did_you_mean_items(found: object, known: Iterable[object]) -> str:
    """The end of a message for an item of a list, which may be several known names with
    no ',' between them (``[longsword mace]``).

    Parameters
    ----------
    found : object
        The item the input gave.
    known : iterable
        What each item could have been.

    Returns
    -------
    str
        ``"; did you mean 'longsword, mace'? (the items of a list are parted by
        commas)"`` when ``found`` is known names parted by spaces, else
        :func:`did_you_mean`'s ending.
    """
    known = list(known)
    parts = found.split() if isinstance(found, str) else []
    if len(parts) > 1 and set(parts) <= {str(name) for name in known}:
        return f"; did you mean {', '.join(parts)!r}? (the items of a list are parted by commas)"
    return did_you_mean(found, known)


def suggestion(name: str | None) -> str:
    """``"; did you mean 'armor'?"``: the end of a message naming the known name a found
    one was meant to be (:func:`closest_name`, or a name known to stand for it); ``""``
    for None."""
    return "" if name is None else f"; did you mean {name!r}?"


def key_and_value_run_together(key: str, value: str, written: str) -> str:
    """What a key run into its value means: ``expected 'hp: 24' (a key and its value are
    parted by ': '); got 'hp:24'`` for ``written`` (on a line of its own, inside ``{…}``,
    or as a mapping's one text), said the same wherever it is found."""
    return (f"expected {f'{key}: {value}'!r} (a key and its value are parted by ': '); got "
            f"{written!r}")  # fmt: skip


def colon_inside_a_value(key: str | None, value: str, assigned_to: str | None = None) -> str:
    """What a ':' inside a plain value means, said the same in a ``{…}`` and on a line of
    its own: ``a ':' inside the value of 'name' (a value holding ': ' needs quotes:
    name: "Goblin: Scout")``, the value quoted as it needs to be (``key`` None: a value
    of no key found). A value wholly in a word processor's curly quotes (``“Sir: the
    Bold”``) was quoted, but in quotes YAML reads as text: it is said so, with the
    value in straight quotes instead. An override's value (``--set``) is shown as
    assigned to its ``NAME.FIELD``, ``assigned_to``: ``Squire.name="Sir: the Bold"``."""
    curly = in_curly_quotes(value)
    quoted = _in_quotes(value[1:-1] if curly else value)
    of, meant = ("", quoted) if key is None else (f" of {key!r}", f"{key}: {quoted}")
    if assigned_to is not None:
        meant = f"{assigned_to}={quoted}"
    if curly:
        return (f"a ':' inside the value{of}, {value} in curly quotes, which YAML reads "
                f"as part of the text (a value holding ': ' needs straight quotes: "
                f"{meant})")  # fmt: skip
    return f"a ':' inside the value{of} (a value holding ': ' needs quotes: {meant})"


def comma_inside_a_value(key: str | None, parts: list[str]) -> str:
    """What a ',' inside a value of a ``{…}`` means (``{base_defense: 1, 2, hp: 30}``,
    where YAML reads ``2`` as a key of its own): ``expected one value for
    'base_defense' (a ',' parts the entries of '{…}'); got '1, 2' (a list is written
    inside '[…]': base_defense: [1, 2])``, the value in quotes, so that a line broken to
    the terminal's width keeps it whole; for parts not all numbers, text in quotes
    too (``name: "Pell, Jr"``). ``key`` None: a value of no key found."""
    written = ", ".join(parts)
    name = "" if key is None else f"{key}: "
    of = "" if key is None else f" for {key!r}"
    how = f"a list is written inside '[…]': {name}[{written}]"
    if not all(_NUMBER.fullmatch(part) for part in parts):
        how += f"; text holding ',' inside quotes: {name}{_in_quotes(written)}"
    return f"expected one value{of} (a ',' parts the entries of '{{…}}'); got {written!r} ({how})"


def quote_inside_quotes(quote: str, text: str | None) -> str:
    """What a quote inside text in quotes of its kind means (``'the Brute's win'``, which
    YAML reads as ``'the Brute'`` and more after it): ``a ' inside text in '…', which
    ends the text there (write it twice: 'the Brute''s win'; or put the text in "…":
    "the Brute's win")``; ``text`` (what is inside the quotes as meant) None when not
    known."""
    other = '"' if quote == "'" else "'"
    escaped = "write it twice" if quote == "'" else 'write it as \\"'
    found = f"a {quote} inside text in {quote}…{quote}, which ends the text there"
    if text is None:
        return f"{found} ({escaped}, or put the text in {other}…{other})"
    inside = text.replace("'", "''") if quote == "'" else text.replace('"', '\\"')
    how = f"{escaped}: {quote}{inside}{quote}"
    if other not in text:
        how += f"; or put the text in {other}…{other}: {other}{text}{other}"
    return f"{found} ({how})"


#: The curly quotes a word processor types (“…”, ‘…’, „…“), which YAML reads as text.
_CURLY = re.compile(r"[“„‘‚].*[”“’‘]", re.S)


def in_curly_quotes(text: str) -> bool:
    """Whether ``text`` is wholly inside curly quotes (``“Dummy”``): quotes a word
    processor typed for YAML's straight ones, which YAML reads as part of the text."""
    return _CURLY.fullmatch(text) is not None


def curly_quotes(text: str) -> str:
    """What text written wholly inside curly quotes means: ``expected text in straight
    quotes or none ("Dummy"); got “Dummy” in curly quotes, which YAML reads as part of
    the text (to keep them in it, write '“Dummy”')``."""
    return (f"expected text in straight quotes or none ({_in_quotes(text[1:-1])}); got "
            f"{text} in curly quotes, which YAML reads as part of the text (to keep them "
            f"in it, write {_in_quotes(text)})")  # fmt: skip


def comment_inside_a_value(value: str, comment: str, key: str | None) -> str:
    """What a ' #' inside a plain value means (``name: Goblin #1``, which YAML reads as
    ``Goblin`` and a comment): ``the ' #' after 'Goblin' began a comment ('#1'), which
    YAML leaves out (a value holding ' #' needs quotes: name: "Goblin #1")``; ``key``
    None for a list item (``- "claw #1"``)."""
    quoted = _in_quotes(f"{value} {comment}")
    meant = f"- {quoted}" if key is None else f"{key}: {quoted}"
    return (f"the ' #' after {value!r} began a comment ({comment!r}), which YAML leaves "
            f"out (a value holding ' #' needs quotes: {meant})")  # fmt: skip


def comment_inside_a_key(key: str, comment: str) -> str:
    """What a ' #' inside a plain key means (``claw #1: {damage: 1d6}``, which YAML reads
    as ``claw`` and a comment holding the ':'): ``a ' #' inside the key 'claw #1', which
    starts a comment: YAML reads 'claw' with no ':' after it (a key holding ' #' needs
    quotes: "claw #1":)``; ``comment`` is the comment up to the ':'."""
    meant = f"{key} {comment}"
    return (
        f"a ' #' inside the key {meant!r}, which starts a comment: YAML reads {key!r} "
        f"with no ':' after it (a key holding ' #' needs quotes: {_in_quotes(meant)}:)"
    )


def _in_quotes(text: str) -> str:
    """``text`` in the quotes a YAML value of it needs: double, or single where it holds
    a double quote."""
    return f"'{text}'" if '"' in text else f'"{text}"'


#: A number as a scenario writes one (``2``, ``-1``, ``0.5``, ``1_000``), as a pattern.
NUMBER_WRITTEN = r"[-+]?\d[\d_]*(?:\.\d+)?"
_NUMBER = re.compile(NUMBER_WRITTEN)


def closest_name(found: object, known: Iterable[object]) -> str | None:
    """The one known name ``found`` is a likely misspelling of, as it is written there.

    Parameters
    ----------
    found : object
        What the input gave: a key, a name or a choice.
    known : iterable
        What it could have been.

    Returns
    -------
    str or None
        The known name closest to ``found`` (:data:`SUGGEST_CUTOFF`), else the one that
        shares all of its letters but the last (:data:`STEM_LETTERS`), else the one it
        starts with ('crit' for 'critical'), else the one a single edit away ('cut' for
        'kut'), else its short name ('str' for 'strength', or 'strenght'); None when
        ``found`` is not text or no known name is close.
    """
    if not isinstance(found, str) or not found:
        return None
    import difflib  # only on the way out with an error: not at every start-up

    by_lower = {str(name).lower(): str(name) for name in known}
    lower = found.lower()
    close = difflib.get_close_matches(lower, by_lower, n=1, cutoff=SUGGEST_CUTOFF)
    close = (close or _one_sharing_the_stem(lower, by_lower) or _one_it_extends(lower, by_lower)
             or _one_edit_away(lower, by_lower) or _its_short_name(lower, by_lower))  # fmt: skip
    return by_lower[close[0]] if close else None


def _one_sharing_the_stem(found: str, known: Iterable[str]) -> list[str]:
    """The one known name that starts with all of ``found`` but its last letter (at least
    :data:`STEM_LETTERS` of them): 'enemy' for 'enemies', a plural or a tense the
    likeness cutoff misses. An empty list when several do, or ``found`` is shorter."""
    stem = found[:-1]
    if len(stem) < STEM_LETTERS:
        return []
    sharing = [name for name in known if name.startswith(stem)]
    return sharing if len(sharing) == 1 else []


def _one_it_extends(found: str, known: Iterable[str]) -> list[str]:
    """The one known name of at least :data:`STEM_LETTERS` letters that ``found`` starts
    with and is at most twice as long as: 'crit' for 'critical', the word written out in
    full. An empty list when several are, or none."""
    extended = [name for name in known if len(name) >= STEM_LETTERS
                and found.startswith(name) and len(found) <= 2 * len(name)]  # fmt: skip
    return extended if len(extended) == 1 else []


#: Words written out in full whose short names the rules use (glitters-d20's attributes:
#: ``str (strength)``), too short for :func:`_one_it_extends` ('hit' is no 'hitting').
_SHORT_NAMES = {"strength": "str", "dexterity": "dex", "intelligence": "int",
                "willpower": "will", "mitigation": "mit"}  # fmt: skip


def _its_short_name(found: str, known: Iterable[str]) -> list[str]:
    """The known short name of ``found`` written out in full (:data:`_SHORT_NAMES`:
    'str' for 'strength'), or misspelt so ('strenght', the rule page's own example, too
    far from 'str' for any likeness rule), as a list of it; empty when it is not known."""
    import difflib

    full = difflib.get_close_matches(found, _SHORT_NAMES, n=1, cutoff=SUGGEST_CUTOFF)
    short = _SHORT_NAMES[full[0]] if full else None
    return [short] if short is not None and short in known else []


def _one_edit_away(found: str, known: Iterable[str]) -> list[str]:
    """The one known name of at least three letters that ``found`` turns into by one
    edit: a letter changed, added or dropped, or two neighbours swapped ('cut' for 'kut',
    'axe' for 'xae'). A short name's one wrong letter is below the likeness cutoff ('kut'
    and 'cut' 0.67). An empty list when several are, or none."""
    near = [name for name in known if len(name) >= 3 and _edits_apart_is_one(found, name)]
    return near if len(near) == 1 else []


def _edits_apart_is_one(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by exactly one change, insertion, deletion or swap of
    neighbours."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


class SimlabError(Exception):
    """Base class of every error simlab raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as we can.

    Parameters
    ----------
    file : str
        Path of the file as the user gave it ("<string>" for text given directly).
    line, col : int or None
        1-based position of the offending key or value, when known.
    message : str
        What was expected and what was found, e.g. ``expected an integer; got 'ten'``.
    """

    file: str
    line: int | None
    col: int | None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.col is not None:
                where += f":{self.col}"
        return f"{where}: {self.message}"


class InputError(SimlabError):
    """Input the user can fix: a bad scenario, option or dice expression (exit code 2)."""


class ScenarioError(InputError):
    """A scenario file that cannot be loaded; carries every problem found, each located.

    The message lists the first :data:`~simlab.limits.MAX_PROBLEMS` and says how many
    more there are; ``problems`` holds them all.
    """

    def __init__(self, problems: list[Problem]):
        from simlab.limits import MAX_PROBLEMS
        from simlab.report.words import counted

        self.problems = list(problems)
        lines = [str(p) for p in self.problems[:MAX_PROBLEMS]]
        more = len(self.problems) - MAX_PROBLEMS
        if more > 0:
            lines.append(f"... and {counted(more, 'more problem')} (only the first "
                         f"{MAX_PROBLEMS} shown)")  # fmt: skip
        super().__init__("\n".join(lines))


class DiceError(InputError):
    """A dice expression that does not parse or exceeds the limits."""


class ExactUnsupported(InputError):
    """The exact engine cannot answer this scenario; the message names the feature."""
