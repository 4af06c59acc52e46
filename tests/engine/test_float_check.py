"""No kernel of an example scenario, traced or not, has a float variable.

Kernels compile without numba's SSA reconstruction (``simlab/engine/jit.py``,
``compile_without_ssa``): a variable that takes a signed integer in one branch and an
unsigned one in another would become a float, and a tally could then differ from the
plain Python's. This check compiles every kernel the examples use afresh, in a process of
its own with an empty cache (only a fresh compile keeps the types numba inferred), and
reads every variable's type.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simlab.engine.runner import ONE_KERNEL_VARIABLE

# Slow tier (make test-slow): compiles every kernel the examples use afresh, the slow
# tier's longest test (5 to 7 minutes on the 2-core machine); tests/conftest.py runs this
# file first, so that the other tests share the other process meanwhile.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

_FLOAT_VARIABLES = """
import gc, glob, sys
import numba
import simlab
for path in sorted(glob.glob("scenarios/**/*.yaml", recursive=True)):
    scenario = simlab.load(path)
    simlab.simulate(scenario, n=50)
    simlab.simulate(scenario, n=50, trace=True)
kernels = variables = 0
for d in gc.get_objects():
    if not isinstance(d, numba.core.dispatcher.Dispatcher):
        continue
    if d.py_func.__module__.startswith("simlab"):
        for result in d.overloads.values():
            kernels += 1
            for name, ty in result.type_annotation.typemap.items():
                variables += 1
                if isinstance(ty, numba.types.Float):
                    print("FLOAT", d.py_func.__qualname__, name, ty)
print("KERNELS", kernels, "VARIABLES", variables)
"""


def test_no_kernel_of_an_example_has_a_float_variable(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop(ONE_KERNEL_VARIABLE, None)  # every kernel the examples take, not one a system
    out = subprocess.run([sys.executable, "-c", _FLOAT_VARIABLES], env=env, check=True,
                         capture_output=True, text=True, cwd=ROOT).stdout  # fmt: skip
    assert "FLOAT" not in out, out
    kernels, variables = (int(word) for word in out.split()[-3::2])
    assert kernels >= 40 and variables >= 20_000, out
