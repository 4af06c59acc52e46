"""Every exception simlab raises on purpose.

Messages follow one form so that a designer can act on them: where the problem is
(``file:line:col`` when it comes from a scenario file), what was expected, and what was
found — ``expected X; got Y``. The CLI maps these classes to exit codes: 2 for anything
that is the input's fault, 3 for an internal error.
"""

from __future__ import annotations

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
        (:data:`SUGGEST_CUTOFF`), else ``""``.
    """
    if not isinstance(found, str) or not found:
        return ""
    import difflib  # only on the way out with an error: not at every start-up

    by_lower = {str(name).lower(): str(name) for name in known}
    close = difflib.get_close_matches(found.lower(), by_lower, n=1, cutoff=SUGGEST_CUTOFF)
    close = close or _one_sharing_the_stem(found.lower(), by_lower)
    return f"; did you mean {by_lower[close[0]]!r}?" if close else ""


def _one_sharing_the_stem(found: str, known: Iterable[str]) -> list[str]:
    """The one known name that starts with all of ``found`` but its last letter (at least
    :data:`STEM_LETTERS` of them): 'enemy' for 'enemies', a plural or a tense the
    likeness cutoff misses. An empty list when several do, or ``found`` is shorter."""
    stem = found[:-1]
    if len(stem) < STEM_LETTERS:
        return []
    sharing = [name for name in known if name.startswith(stem)]
    return sharing if len(sharing) == 1 else []


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
