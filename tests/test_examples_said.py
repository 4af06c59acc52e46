"""What the example scenarios and the rule pages say a user can act on: the commands the
examples suggest in their comments can be copied and run, each on a line of its own with
the files it runs; what they cite, a user has."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "scenarios").rglob("*.yaml"))
RULE_PAGES = sorted((ROOT / "docs/rules").glob("*.md"))
COMMANDS = {"run", "exact", "compare", "sweep", "tune", "check", "report", "validate"}


def suggested(path: Path) -> list[str]:
    """The text after ``simlab`` on each comment line of ``path`` that suggests a
    command (``simlab`` outside backquotes, which name a command in a sentence), a line
    ending in `` \\`` joined to the next, as a shell joins them."""
    comments = [line.removeprefix("#") for line in path.read_text(encoding="utf-8").splitlines()
                if line.startswith("#")]  # fmt: skip
    joined = "".join(c[:-1] if c.endswith(" \\") else f"{c}\n" for c in comments)
    lines = joined.splitlines()
    return [m.group(1).strip() for line in lines
            for m in re.finditer(r"(?<!`)\bsimlab (.*)", line)]  # fmt: skip


def test_the_examples_suggest_commands() -> None:
    """Examples of three rule systems suggest commands (so the test below reads some)."""
    suggesting = {path.parent.name for path in EXAMPLES if suggested(path)}
    assert len(suggesting) >= 3, suggesting


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_each_suggested_command_is_whole_on_its_line(path: Path) -> None:
    """A rewrap of the comments ran them into the prose and into each other:
    ``… compare (docs/rules/shattered-spirits-draft1.md): simlab run`` over
    ``scenarios/shattered-spirits-draft1/duel-both-drafts.yaml simlab run`` over
    ``scenarios/shattered-spirits/duel-both-drafts.yaml Translated one for one: …``."""
    for command in suggested(path):
        words = command.split()
        assert words and words[0] in COMMANDS, (path.name, command)
        files = [word for word in words[1:] if word.endswith((".yaml", ".json"))]
        assert files, (path.name, command)  # the scenario it runs, on the same line
        assert all((ROOT / word).is_file() for word in files), (path.name, command)


def test_the_rule_pages_and_examples_cite_no_numbered_section() -> None:
    """The draft1 rule page's table of the duel under both drafts was headed ``later draft
    (§1)`` and ``earlier draft (§2)``, and the examples said ``the later one (§1)``:
    sections of the team's rules digest, which a user does not have."""
    texts = [*RULE_PAGES, *EXAMPLES]
    cited = [(p.name, m.group(0)) for p in texts
             for m in re.finditer(r"§\s*\d+", p.read_text(encoding="utf-8"))]  # fmt: skip
    assert cited == []
