"""The docs a user reads stand alone: no path of this machine, no file they do not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simlab.rules import RULE_SYSTEMS

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
# What only the team's machine has: the shared folder, its rules digest, absolute paths.
NOT_SHIPPED = re.compile(r"\.\./shared|RULES\.md|/work/|/home/|/tmp/")
SEED = re.compile(r"`\d{3}_[0-9a-f]{16}\.txt`")


def test_every_docs_page_is_checked() -> None:
    names = {p.name for p in PAGES}
    assert {"README.md", *(f"{r}.md" for r in RULE_SYSTEMS)} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_refers_to_nothing_a_user_does_not_have(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    found = [f"line {text[: m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for m in NOT_SHIPPED.finditer(text)]  # fmt: skip
    assert found == []


def test_the_check_catches_a_shared_path() -> None:
    assert NOT_SHIPPED.search("see `../shared/rules/RULES.md` §1")


@pytest.mark.parametrize("rules", sorted(RULE_SYSTEMS))
def test_rule_page_cites_its_seed_text_by_section(rules: str) -> None:
    text = (ROOT / "docs/rules" / f"{rules}.md").read_text(encoding="utf-8")
    intro = text.split("\n\n")[1]  # the paragraph under the title
    assert SEED.search(intro), f"{rules}.md: no seed file named in its opening paragraph"
    assert re.search(r'"[^"]{4,}"', intro), f"{rules}.md: no section of the seed text cited"


SHIPPED = sorted(
    p
    for folder in ("simlab", "scenarios", "notebooks", "bench", "tests")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in {".py", ".yaml", ".ipynb", ".md"} and p.name != "test_docs.py"
)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_and_scenarios_cite_only_what_a_user_has(path: Path) -> None:
    """Docstrings, comments and scenario notes cite the repo's docs and the seed texts by
    name, never the team's rules digest or a path of this machine."""
    text = path.read_text(encoding="utf-8")
    found = [f"line {text[: m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for m in NOT_SHIPPED.finditer(text)]  # fmt: skip
    assert found == []


def _readme_block(section: str, language: str) -> str:
    """The first ``language`` code block under the README heading ``section``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    match = re.compile(rf"^```{language}\n(.*?)^```", re.S | re.M).search(text, start)
    assert match, f"no {language} block under {section}"
    return match.group(1)


def test_readme_scenario_example_loads() -> None:
    """The scenario a designer copies from "Scenarios" is a valid file as it stands (it
    once named an attack it did not define)."""
    from simlab import api

    scn = api.loads(_readme_block("Scenarios", "yaml"))
    assert scn.scenario == "brute-vs-party"


def test_readme_summary_example_names_every_key() -> None:
    """The summary.json shown under "Output files" has every key of a real run's, at each
    level it shows (it once lacked ``events`` and ``status_damage``), from the run it
    says it is (the quickstart at its seed)."""
    from simlab import api
    from simlab.analysis.summary import summary

    example = _readme_block("Output files (`--out DIR`)", "json")
    shown = set(re.findall(r'"(\w+)":', example))
    doc = summary(api.simulate(api.load(ROOT / "scenarios/shattered-spirits/quickstart.yaml"),
                               n=300))  # fmt: skip
    first = doc["combatants"][0]
    keys = {*doc, *doc["attacks"][0], *first, *first["time_to_down"], *doc["sides"][0]}
    assert keys - shown == set()
    assert '"scenario": "quickstart"' in example and '"seed": 7' in example


#: The README's Python blocks run with smaller samples: what is tested is that each call
#: works as written, in order, not the figures.
SMALLER = {"n=200_000": "n=20_000", "n=50_000": "n=5_000", "check=True": "n=20_000, check=True"}


@pytest.mark.slow  # four blocks: simulations, a sweep, a comparison, a report with plots
def test_readme_python_blocks_run_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every Python block of the README runs as written, one after another in one
    namespace, as a designer pastes them into a notebook (``moving_pairs`` was once
    shown taking ``sw.attacks()``, and a later block's ``res`` replaced the quickstart's
    result that the plotting block draws). Paths are relative to a folder holding the
    repository's scenarios and baseline, as a clone's root does."""
    import matplotlib

    matplotlib.use("Agg")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) >= 4
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports/baseline").symlink_to(ROOT / "reports/baseline")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for block in blocks:
        for given, smaller in SMALLER.items():
            block = block.replace(given, smaller)
        exec(compile(block, "README.md", "exec"), namespace)
    assert (tmp_path / "reports/mine/report.html").is_file()
    assert (tmp_path / "out/guard").is_dir() and (tmp_path / "out/row9").is_dir()


def test_readme_says_how_long_the_scenario_hash_is() -> None:
    """README called ``scenario_hash`` "a SHA-256 of the validated scenario"; it is 16 hex
    digits, the first 64 bits of one. The field stays as it is: stored
    baselines hold it."""
    import hashlib
    import json

    import simlab
    from simlab.report.files import scenario_hash

    scn = simlab.load(ROOT / "scenarios/benchmarks/ss-duel.yaml")
    digest = hashlib.sha256(json.dumps(scn.model_dump(mode="json"), sort_keys=True).encode())
    assert scenario_hash(scn) == digest.hexdigest()[:16]
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    said = "`scenario_hash` being the first 64 bits of a SHA-256 of the validated scenario"
    assert f"{said}, as 16 hex digits" in readme


def test_readme_names_the_error_a_mistyped_plot_name_raises() -> None:
    """README's "Plots in notebooks" called it a ``ValueError``, which
    ``except ValueError:`` does not catch: it is an ``InputError``, as "Python API" says."""
    import matplotlib

    matplotlib.use("Agg")
    import simlab
    from simlab.errors import SimlabError

    res = simlab.simulate(ROOT / "scenarios/shattered-spirits/quickstart.yaml", n=50, seed=1)
    with pytest.raises(SimlabError) as err:
        simlab.plot_time_to_down(res, combatant="Kaitoo")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    said = re.search(r'A mistyped name in a plot \(`combatant="Kaitoo"`\) is an? `(\w+)`', text)
    assert said is not None and said.group(1) == type(err.value).__name__ == "InputError"


def _readme_section(section: str) -> str:
    """The README's text under the heading ``## section``, up to the next ``## `` heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _cli_options() -> list[tuple[str, list[str]]]:
    """Every option of every ``simlab`` command: (the command, its spellings)."""
    import click

    from simlab.cli import main

    found: list[tuple[str, list[str]]] = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                walk(sub, f"{path} {name}".strip())
            return
        found.extend((path, p.opts) for p in command.params
                     if isinstance(p, click.Option) and "--help" not in p.opts)  # fmt: skip

    walk(main, "")
    return found


def test_readme_command_line_names_every_option() -> None:
    """Every option ``--help`` lists is named under "Command line", by one of its
    spellings (``-n`` for ``--encounters``), so that a designer reading the manual finds
    it (``report --title`` was named nowhere in the README)."""
    section = _readme_section("Command line")
    named = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", section))
    missing = [f"{command} {opts[-1]}" for command, opts in _cli_options()
               if not named & set(opts)]  # fmt: skip
    assert missing == []


#: The commands whose messages "Tuning" quotes, by the argument each message starts with.
TUNING_SLIPS = {
    "--set Defender.gaurd=2": "run ss-duel --set Defender.gaurd=2",
    "--set strike.profile[13]=2": "run ss-duel --set strike.profile[13]=2",
    "--set expect[3].at_least=0.5": "run quickstart --set expect[3].at_least=0.5",
    "--vary Defender.guard=4:1": "sweep ss-duel --vary Defender.guard=4:1",
    "--set Defender.guard=2": "run ss-duel --set Defender.guard=1 --set Defender.guard=2",
    "--vary Defender.guard=1,1": "sweep ss-duel --vary Defender.guard=1,1",
    "--vary hp=20:40": "sweep ss-duel --vary hp=20:40",
}


def test_readme_tuning_messages_are_the_commands_own() -> None:
    """The slips quoted under "Tuning" (a misspelt field, a row off the chart, a field
    changed twice…) are what the commands print now, word for word but for a quoted `…`,
    on the benchmark duel (the `expect[3]` slip on the quickstart, whose three specs it
    names); each exits 2 before simulating."""
    from click.testing import CliRunner

    from simlab.cli import main

    paths = {"ss-duel": ROOT / "scenarios/benchmarks/ss-duel.yaml",
             "quickstart": ROOT / "scenarios/shattered-spirits/quickstart.yaml"}  # fmt: skip
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", _readme_section("Tuning"), re.S | re.M)
    quoted = [line for language, block in blocks if not language
              for line in block.splitlines() if line.startswith("--")]  # fmt: skip
    assert sorted(line.split(": ")[0] for line in quoted) == sorted(TUNING_SLIPS)
    for line in quoted:
        command, name, *args = TUNING_SLIPS[line.split(": ")[0]].split()
        done = CliRunner().invoke(main, [command, str(paths[name]), *args, "-n", "100"])
        assert done.exit_code == 2, done.output
        printed = [out for out in done.output.splitlines() if out.startswith("--")]
        assert printed and printed[0].startswith(line.split("…")[0]), (line, done.output)
        assert printed[0].endswith(line.split("…")[-1]), (line, done.output)


def test_readme_layout_names_every_module() -> None:
    """The "Layout" block names every module and folder of the package, so that a
    newcomer finds where each part lives (it once left out ``api.py``, the Python API,
    with ``arguments.py`` and ``limits.py``)."""
    layout = _readme_section("Layout")
    package = (ROOT / "simlab").iterdir()
    parts = sorted(p.name for p in package if p.suffix == ".py" or p.is_dir())
    parts = [name for name in parts if not name.startswith("__")]
    missing = [name for name in parts if not re.search(rf"(?<![\w/]){re.escape(name)}\b", layout)]
    assert missing == []
