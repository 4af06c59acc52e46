"""Every notebook in notebooks/ runs top to bottom, in the kernel of the documented install.

The README documents ``make notebook``: simlab with its ``notebook`` extra (JupyterLab and
ipykernel), then JupyterLab on the notebooks. The test extra has ipykernel, so here the
notebooks run in the ``python3`` kernel JupyterLab would start, in this environment;
``make test-slow`` installs the notebook extra, and a slow test checks that JupyterLab
starts. Notebooks are committed without outputs, and print no figure in scientific
notation.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

# Slow tier (make test-slow): executes the notebooks in Jupyter kernels.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _text(path: Path, cell_type: str) -> str:
    """The source of every ``cell_type`` cell of the notebook at ``path``, joined by
    spaces. Read as JSON: importing nbformat costs each test process about 3 s."""
    cells = json.loads(path.read_text())["cells"]
    return " ".join("".join(c["source"]) for c in cells if c["cell_type"] == cell_type)


@pytest.mark.slow  # JupyterLab (the notebook extra) adds about 14 s to the test install
def test_make_notebook_installs_the_extra_and_opens_jupyterlab() -> None:
    extra = re.search(r"^notebook = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M)
    assert extra is not None, "pyproject.toml has no notebook extra"
    assert {"jupyterlab", "ipykernel"} <= set(re.findall(r'"([a-z]+)', extra.group(1)))
    makefile = (ROOT / "Makefile").read_text()
    target = re.search(r"^notebook: (.+)\n\t(.+)$", makefile, re.M)
    assert target is not None, "Makefile has no notebook target"
    assert "jupyter lab notebooks/" in target.group(2)
    assert '-e ".[notebook]"' in makefile
    assert "make notebook" in (ROOT / "README.md").read_text()
    lab = Path(sys.executable).with_name("jupyter")
    done = subprocess.run([lab, "lab", "--version"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and re.fullmatch(r"4\.\S+\n", done.stdout), done.stderr


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path) -> None:
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    assert "python3" in KernelSpecManager().find_kernel_specs()
    # Which Python the kernel runs: it must be this environment's, as JupyterLab's would be.
    notebook.cells.append(nbformat.v4.new_code_cell("import sys; print(sys.prefix)"))
    resources = {"metadata": {"path": str(path.parent)}}
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources=resources).execute()
    assert notebook.cells[-1].outputs[0]["text"].strip() == sys.prefix
    for cell in notebook.cells:  # tables read at a glance: no 1.102012e-01
        for out in cell.get("outputs", []):
            shown = out.get("text", "") + out.get("data", {}).get("text/plain", "")
            assert not re.search(r"\d[eE][-+]\d\d", shown), f"{path.name}: {shown[:400]}"
            # no signed zero: .round(4) of a tiny negative difference read -0.0000
            assert not re.search(r"-0(\.0+)?(?![\d.])", shown), f"{path.name}: {shown[:400]}"
    last = notebook.cells[-2]
    assert any("encounter" in str(out) for out in last.outputs)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_explains_its_figures(path: Path) -> None:
    text = _text(path, "markdown")
    for words in ("95% interval", "P(downed by round r)", "median time-to-down",
                  "hit_rate", "down_rate"):  # fmt: skip
        assert words in text, f"{path.name} does not explain {words!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_text_promises_no_signed_zero(path: Path) -> None:
    """The tables add 0.0 after rounding, so they never show -0 (checked above); the
    text said a tiny difference "shows as 0 or -0"."""
    text = _text(path, "markdown")
    assert not re.search(r"(?<![\w.−-])-0(?!\.?\d)", text), path.name


def test_notebooks_show_every_step_of_exploring_a_scenario() -> None:
    """Between them the notebooks show each step a designer takes: load, override,
    simulate, read the tables, plot, sweep, compare, check, and tune to a target (the
    tuning notebook stopped at the comparison and never called ``simlab.tune``), each
    plot as ``simlab`` gives it (``plot_tune`` was imported from ``simlab.report.tuning``)."""
    code = " ".join(_text(path, "code") for path in NOTEBOOKS)
    steps = ("simlab.load(", ".with_(", "simlab.simulate(", ".hit_rates()", ".damage()",
             ".time_to_down()", "plot_time_to_down(", "plot_damage_pmf(", "simlab.sweep(",
             "simlab.plot_sweep(", "simlab.compare(", "simlab.check(", "simlab.tune(",
             "simlab.plot_tune(", ".evaluated()")  # fmt: skip
    assert [step for step in steps if step not in code] == []
