"""``simlab baseline update`` with scenarios or ``--from``: the run's scenarios put into
the baseline.

By default the run's scenarios replace theirs in the baseline (matched by rules id and
scenario id), a new one is added at the end, and the baseline's others are kept as they
are, entry for entry: re-running one scenario and adopting it must not drop the other
29. ``replace=True`` writes the run's scenarios alone, and names those it drops. A run
made with ``--set`` overrides is refused unless adopted on purpose
(:func:`refuse_overrides`): the nightly run has none, so such a baseline drifts every
night. README "Balance reports".
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simlab.analysis.drift import key, label
from simlab.errors import InputError
from simlab.report.files import cut_short_at
from simlab.report.results import (
    FORMAT,
    ScenarioRun,
    document_of,
    load_results,
    prepare_results_file,
    scenario_document,
    write_results_file,
)
from simlab.report.words import counted

__all__ = ["NewBaseline", "OldBaseline", "read_baseline", "refuse_overrides", "write_baseline"]


#: The most scenarios kept as they were that ``baseline update`` names one by one.
KEPT_NAMED = 5


@dataclass
class NewBaseline:
    """What a new baseline holds against the one it replaces, each scenario as
    :func:`~simlab.analysis.drift.label` names it (``duel-both-drafts
    (shattered-spirits)``: one id may be under two rule systems).

    Attributes
    ----------
    path : Path
        The file written.
    written : list of str
        Its scenarios, in its order.
    updated, added, kept, dropped : list of str
        The run's scenarios that replaced the baseline's, those it had not, the
        baseline's others kept as they were, and those left out (``replace``, or a
        baseline that could not be read).
    unread : str
        Why the baseline replaced could not be read ("" when it was, or there was none):
        then none of it could be kept.
    """

    path: Path
    written: list[str]
    updated: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    unread: str = ""

    def lines(self) -> list[str]:
        """What ``baseline update`` says of it: the ``wrote baseline`` line (its
        scenarios, or how many were updated, added and kept, each list on a line of its
        own), then what was dropped."""
        lists = [(what, names) for what, names in (("updated", self.updated),
                 ("added", self.added), ("kept", self.kept)) if names]  # fmt: skip
        merged = bool(self.updated or self.kept)
        counts = ", ".join(f"{len(names)} {what}" for what, names in lists)
        said = [f"wrote baseline {self.path} ({self.count()}: "
                f"{counts if merged else ', '.join(self.written)})"]  # fmt: skip
        if merged:
            said += [f"{what}: {self._listed(what, names)}" for what, names in lists]
        if self.unread:
            gone = f": dropped {', '.join(self.dropped)}" if self.dropped else ""
            said.append(f"the baseline it replaces could not be read ({self.unread}), so "
                        f"none of its scenarios were kept{gone}")  # fmt: skip
        elif self.dropped:
            said.append(f"dropped from the baseline: {', '.join(self.dropped)} (--replace: "
                        "the new baseline has only the scenarios given)")  # fmt: skip
        return said

    @staticmethod
    def _listed(what: str, names: list[str]) -> str:
        """The names of one list of :meth:`lines`; the scenarios kept as they were only
        by their number when there are more than :data:`KEPT_NAMED` (a baseline of 30
        that took one scenario would fill some 18 lines naming the other 29)."""
        if what == "kept" and len(names) > KEPT_NAMED:
            return f"the other {len(names)}, as they were"
        return ", ".join(names)

    def count(self) -> str:
        """``30 scenarios``: how many it holds, a part the terminal keeps whole."""
        return counted(len(self.written), "scenario")

    def whole(self) -> tuple[str, ...]:
        """The parts of :meth:`lines` a terminal never breaks: the count, and each
        scenario as it is named (``ss-fight (shattered-spirits)``)."""
        return (f"({self.count()}:", *self.written, *self.dropped)


def refuse_overrides(runs: Sequence[ScenarioRun], source: str) -> None:
    """Refuse results made with ``--set`` overrides as a baseline, saying why.

    Parameters
    ----------
    runs : sequence of ScenarioRun
        The results to adopt.
    source : str
        How the command names them (``--from reports/latest``).

    Raises
    ------
    InputError
        When a scenario was run with overrides: the nightly run has none, so a baseline
        of them would drift every night.
    """
    made = [f"{label(r)} with --set {', '.join(r.result.meta['overrides'])}"
            for r in runs if r.result.meta.get("overrides")]  # fmt: skip
    if made:
        raise InputError(
            f"{source}: expected results simulated as the scenario files say, as the "
            f"nightly run is; got {'; '.join(made)}; nothing was written: the nightly run "
            "has no overrides, so it would drift from this baseline every night. Write "
            "the change into the scenario files and run them again, or pass "
            "--with-overrides to adopt these results as they are"
        )


@dataclass
class OldBaseline:
    """The baseline a new one replaces, read before anything is simulated.

    Attributes
    ----------
    target : Path
        Its file (new, or a results file simlab wrote).
    entries : list of (ScenarioRun, dict)
        Its scenarios, each with its ``results.json`` entry as written.
    unread : str
        Why it could not be read ("" when it was, or when there is none).
    named : list of (str, str)
        The (rules, scenario) its entries name when it could not be read, as far as
        they still say.
    """

    target: Path
    entries: list[tuple[ScenarioRun, dict[str, Any]]] = field(default_factory=list)
    unread: str = ""
    named: list[tuple[str, str]] = field(default_factory=list)


def read_baseline(path: str | os.PathLike[str], replace: bool = False) -> OldBaseline:
    """Check, before simulating, that a baseline may be written at ``path``, and read
    the one there, whose other scenarios the new one keeps.

    One that cannot be read is replaced whole, saying so: cut short (a copy
    interrupted), or of an older simlab's format. One whose entries are damaged (a hand
    edit, a corrupted count) is refused unless ``replace``: its other scenarios could not
    be kept, and they are still there to mend.

    Parameters
    ----------
    path : path-like
        The baseline file (:func:`~simlab.report.results.prepare_results_file`).
    replace : bool
        Whether the new baseline replaces it whole (``--replace``).

    Raises
    ------
    OutputError
        When ``path`` may not be written.
    InputError
        When its entries are damaged and ``replace`` is not given.
    """
    target = prepare_results_file(path, "--baseline")
    if not os.path.lexists(target):
        return OldBaseline(target)
    try:
        runs = load_results(target, name="--baseline")
    except InputError as err:
        why, damaged = _why_unread(target, str(err))
        if damaged and not replace:
            raise InputError(
                f"--baseline {path}: expected a baseline whose other scenarios "
                f"can be kept; got {why}; nothing was simulated or written: "
                "mend it (or restore it from version control), or pass "
                "--replace to write only the scenarios given"
            ) from None
        return OldBaseline(target, unread=why, named=_named_in(target))
    entries = json.loads(target.read_text(encoding="utf-8"))["scenarios"]
    return OldBaseline(target, list(zip(runs, entries, strict=True)))


def write_baseline(old: OldBaseline, runs: Sequence[ScenarioRun],
                   replace: bool = False) -> NewBaseline:  # fmt: skip
    """Write a new baseline from ``runs`` over ``old``, atomically.

    Parameters
    ----------
    old : OldBaseline
        The baseline replaced (:func:`read_baseline`).
    runs : sequence of ScenarioRun
        The scenarios simulated or read (``--from``).
    replace : bool
        Write ``runs`` alone, dropping the baseline's other scenarios; by default they
        are kept, entry for entry as they were written.

    Returns
    -------
    NewBaseline
        What was written, updated, added, kept and dropped.

    Raises
    ------
    OutputError
        When the disk refuses; nothing is changed.
    """
    fresh = {key(r): r for r in runs}
    given = set(fresh)
    entries: list[tuple[Any, dict[str, Any]]] = []  # (Result, its results.json entry)
    said = NewBaseline(old.target, [])
    for run, entry in old.entries:
        if key(run) in fresh:
            said.updated.append(label(run))
            new = fresh.pop(key(run))
            entries.append((new.result, scenario_document(new)))
        elif replace:
            said.dropped.append(label(run))
        else:
            said.kept.append(label(run))
            entries.append((run.result, entry))
    said.added = [label(r) for r in fresh.values()]
    entries += [(r.result, scenario_document(r)) for r in fresh.values()]
    said.written = [label(res) for res, _ in entries]
    if old.unread:
        said.unread = old.unread
        said.dropped = [f"{s} ({r})" for r, s in old.named if (r, s) not in given]
    if replace or old.unread:  # nothing kept: the run's scenarios, as the run has them
        said.added, said.updated = [], []
    document = document_of([res for res, _ in entries], [entry for _, entry in entries])
    write_results_file(old.target, document, old.target)
    return said


def _why_unread(target: Path, message: str) -> tuple[str, bool]:
    """Why the baseline at ``target`` could not be read, in a few words (``cut short at
    line 397``, ``format 0, which this simlab does not read``, or the reader's own
    message), and whether it is damaged rather than cut short or of another format."""
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return "a file that is not text", False
    try:
        doc = json.loads(text)
    except ValueError:
        cut = cut_short_at(text)
        return (f"a file cut short at line {cut}" if cut is not None
                else "a file that is not JSON"), False  # fmt: skip
    if isinstance(doc, dict) and doc.get("format") != FORMAT:
        return f"format {doc.get('format')!r}, which this simlab does not read", False
    return message.removeprefix(f"{target}: "), True


def _named_in(target: Path) -> list[tuple[str, str]]:
    """The (rules, scenario) an unreadable baseline's entries name, as far as they
    still say: those a new baseline drops."""
    try:
        entries = json.loads(target.read_text(encoding="utf-8"))["scenarios"]
        named = [(e["rules"], e["scenario"]) for e in entries]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    return [(r, s) for r, s in named if isinstance(r, str) and isinstance(s, str)]
