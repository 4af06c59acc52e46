"""How simlab compiles its kernels (``simlab/engine/jit.py``).

numba's inliner without its copies of the callee: simlab hands each inlined callee's
IR to the caller without copying it, because numba makes that IR afresh for every call
site. These tests check that inlined code still computes what the plain Python does
when one function is inlined at several call sites and through several levels, and that
the shortcut is installed on the numba versions it was checked against.
``tests/engine/test_baseline_tallies.py`` checks every example scenario's tallies,
integer for integer, with the shortcut in place.

Internal kernels are compiled without the wrappers that let Python call them: another
kernel computes with them, and Python calling one gets a ``TypeError``, not a crash.
Inline kernels are inlined by LLVM: their callers compute as plain Python, keep no call
to them, and they have no machine code of their own (Python calling one runs a compiled
copy); a kernel that an inline kernel calls is not forced inline with it.

Kernels compile without numba's SSA reconstruction on the numba versions read, and
compute as with it. A variable that takes a signed integer in one branch and an unsigned
one in another becomes a float (with or without SSA): no kernel of an example scenario,
traced or not, has a float variable (``tests/support.py``, ``assert_no_float_variable``).

The kernel cache is kept per version of the kernel sources.

A branch marked ``jit.unlikely`` computes as plain Python and reaches LLVM as branch
weights. Once simlab has compiled, LLVM keeps the conditional moves it chose in a loop.
Every example scenario plays the same tallies with ``NUMBA_DISABLE_JIT=1`` (the kernels
as plain Python) as compiled. A block kernel makes a call's working arrays once, and
again only for other parameters or shapes; every piece finds them pristine.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numba
import numpy as np
import pytest

from simlab.engine import jit
from simlab.engine.pieces import MIN_PIECE

SIMLAB = Path(jit.__file__).resolve().parents[1]


def _scaled_sum(x, k):
    total = 0
    for i in range(k):
        total = total * 3 + x + i
    return total


def _both_ways(x):
    return scaled_sum(x, 2) - scaled_sum(x + 1, 3)


def _outer(x):
    a = both_ways(x)
    b = scaled_sum(a, 1)
    if a > 0:
        return both_ways(b) + a
    return both_ways(a) - b


scaled_sum = numba.njit(inline="always")(_scaled_sum)
both_ways = numba.njit(inline="always")(_both_ways)
outer = numba.njit(_outer)


def _python_outer(x):
    """``_outer`` written out in plain Python, with nothing compiled."""

    def scaled(v, k):
        total = 0
        for i in range(k):
            total = total * 3 + v + i
        return total

    def both(v):
        return scaled(v, 2) - scaled(v + 1, 3)

    a = both(x)
    b = scaled(a, 1)
    return both(b) + a if a > 0 else both(a) - b


@pytest.mark.parametrize("x", [-7, -1, 0, 1, 5, 1000])
def test_a_function_inlined_at_several_call_sites_computes_as_python(x):
    assert outer(x) == _python_outer(x)


def test_the_shortcut_is_installed_on_checked_numba_versions():
    version = tuple(int(part) for part in numba.__version__.split(".")[:2])
    if not (0, 60) <= version < (0, 69):
        pytest.skip(f"numba {numba.__version__}: simlab leaves its inliner as it is")
    from numba.core import inline_closurecall

    assert jit.skip_inliner_copies()
    assert inline_closurecall.InlineWorker.inline_function is jit._inline_function
    assert jit.skip_inliner_copies()  # a second time changes nothing


_FIRST_COMPILE = """
import sys
from simlab.engine import jit
from simlab.engine.pieces import MIN_PIECE
before = "numba.core.inline_closurecall" in sys.modules
from simlab.engine import rng
assert rng.philox4x32(0, 0, 0, 0, 0, 0) == rng.philox4x32_reference((0, 0, 0, 0), (0, 0))
from numba.core import inline_closurecall
after = inline_closurecall.InlineWorker.inline_function is jit._inline_function
print("BEFORE", before, "AFTER", after)
"""


def test_the_shortcut_waits_for_the_first_compile(tmp_path):
    # A run whose kernels all come from the cache never imports numba's inliner (0.04 to
    # 0.07 s); the first kernel numba compiles installs the shortcut before compiling.
    if not jit.LIGHT_CACHE_LOADS:
        pytest.skip(f"numba {numba.__version__}: the shortcut is installed at import")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", _FIRST_COMPILE], env=env, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    assert "BEFORE False AFTER True" in out


_FEATURES = """
import llvmlite.binding, numba
from simlab.engine import jit
wide = bool(llvmlite.binding.get_host_cpu_features().get("avx512f"))
print("AVX512", wide and llvmlite.binding.get_host_cpu_name() not in jit.SLOWED_BY_WIDE_VECTORS)
print("FEATURES", numba.config.CPU_FEATURES)
"""


def _features_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("FEATURES"))


@pytest.mark.parametrize("users", [{}, {"NUMBA_CPU_NAME": "haswell"},
                                   {"NUMBA_CPU_FEATURES": "+avx2"}])  # fmt: skip
def test_wide_vectors_only_on_avx512_and_never_over_the_users_choice(users):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU_")}
    out = subprocess.run([sys.executable, "-c", _FEATURES], env={**env, **users}, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    features = _features_line(out)
    if users:
        assert "prefer-256-bit" not in features
        assert features == f"FEATURES {users.get('NUMBA_CPU_FEATURES')}"
    elif "AVX512 True" in out:
        assert features.endswith(",-prefer-256-bit")
        assert "+avx512f" in features
    else:
        assert features == "FEATURES None"


def _halve_or_triple(x):
    return x // 2 if x % 2 == 0 else 3 * x + 1


halve_or_triple = jit.internal_kernel(_halve_or_triple)


@jit.kernel
def collatz_steps(x):
    steps = 0
    while x != 1:
        x = halve_or_triple(x)
        steps += 1
    return steps


def _python_collatz_steps(x):
    steps = 0
    while x != 1:
        x = _halve_or_triple(x)
        steps += 1
    return steps


@pytest.mark.parametrize("x", [1, 6, 27, 97])
def test_a_kernel_computes_with_an_internal_kernel_as_python_does(x):
    assert collatz_steps(x) == _python_collatz_steps(x)


def test_python_calling_an_internal_kernel_gets_a_type_error():
    if not isinstance(halve_or_triple, jit.CPUDispatcher):
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    with pytest.raises(TypeError, match="internal kernel"):
        halve_or_triple(6)


def _reading(fn, **names):
    """``fn`` reading the globals ``names`` in place of its own of those names."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, **names}, fn.__name__)


def _plus_seven(x):
    return x + 7


def _plus_eight(x):
    return plus_seven(x) + 1


def _doubled_plus_eight(x):
    return plus_eight(x) * 2


# _outer and _both_ways again, calling kernels that LLVM inlines instead of numba
llvm_scaled_sum = jit.inline_kernel(_scaled_sum)
llvm_both_ways = jit.inline_kernel(_reading(_both_ways, scaled_sum=llvm_scaled_sum))
_llvm_outer = _reading(_outer, both_ways=llvm_both_ways, scaled_sum=llvm_scaled_sum)
llvm_outer = jit.kernel(_llvm_outer)
plus_seven = jit.kernel(_plus_seven)  # called only by the inline kernel plus_eight
plus_eight = jit.inline_kernel(_plus_eight)
doubled_plus_eight = jit.kernel(_doubled_plus_eight)


@pytest.mark.parametrize("x", [-7, -1, 0, 1, 5, 1000])
def test_kernels_inlined_by_llvm_at_several_call_sites_compute_as_python(x):
    assert llvm_outer(x) == _python_outer(x)


def test_python_calling_an_inline_kernel_gets_what_plain_python_does():
    assert llvm_both_ways(5) == _scaled_sum(5, 2) - _scaled_sum(6, 3)


def test_an_inline_kernel_leaves_no_call_and_no_code_of_its_own(monkeypatch):
    if not isinstance(llvm_outer, jit.CPUDispatcher):
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    if not jit._NUMBA_READ:
        pytest.skip(f"numba {numba.__version__}: numba inlines the inline kernels")
    from numba.core import caching

    monkeypatch.setattr(caching.Cache, "_load_overload", lambda *args: None)  # compile
    outer_again = jit.kernel(_llvm_outer)
    assert outer_again(3) == _python_outer(3)
    (signature,) = outer_again.signatures
    asm = outer_again.inspect_asm(signature).splitlines()
    for name in ("_both_ways", "_scaled_sum"):
        assert not [line for line in asm if "call" in line and name in line]
        assert not [line for line in asm if "@function" in line and name in line]
    for inlined in (llvm_both_ways, llvm_scaled_sum):
        assert inlined.overloads
        for result in inlined.overloads.values():
            assert result.fndesc.inline  # marked for LLVM to inline always
            assert isinstance(result.library, jit._LinkedOnlyLibrary)  # no machine code


def test_a_kernel_an_inline_kernel_calls_is_not_forced_inline(monkeypatch):
    # numba compiles a callee with its caller's flags unless told: without simlab's
    # default, plus_seven would take plus_eight's "inline always".
    if not isinstance(doubled_plus_eight, jit.CPUDispatcher):
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    from numba.core import caching

    monkeypatch.setattr(caching.Cache, "_load_overload", lambda *args: None)  # compile
    assert jit.kernel(_doubled_plus_eight)(5) == 26
    assert all(result.fndesc.inline for result in plus_eight.overloads.values())
    assert plus_seven.overloads
    assert not any(result.fndesc.inline for result in plus_seven.overloads.values())


def test_kernel_cache_follows_every_kernel_source(tmp_path, monkeypatch):
    """A change to any engine or rule source moves the kernel cache to a new folder
    (numba alone would reuse a kernel whose own file is unchanged but whose callee in
    another file changed); NUMBA_CACHE_DIR holds it when set."""
    package = tmp_path / "simlab"
    for part in ("engine", "rules"):
        shutil.copytree(SIMLAB / part, package / part, ignore=shutil.ignore_patterns("__py*"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    before = jit.kernel_cache_dir(package)
    assert before.startswith(str(tmp_path / "cache" / "simlab"))
    assert jit.kernel_cache_dir(package) == before
    with (package / "engine" / "rng.py").open("a") as source:
        source.write("\n# an edit\n")
    assert jit.kernel_cache_dir(package) != before


def test_kernel_digest_is_the_same_for_a_checkout_with_windows_line_ends(tmp_path):
    """A checkout whose sources end their lines with CRLF (git on Windows) holds the same
    kernels: a client there and a Linux worker must name them alike, or the cluster check
    (``distributed.refuse_other_versions``) would refuse the same simlab."""
    package = tmp_path / "simlab"
    for part in ("engine", "rules"):
        shutil.copytree(SIMLAB / part, package / part, ignore=shutil.ignore_patterns("__py*"))
    before = os.path.basename(jit.kernel_cache_dir(package))
    for path in package.rglob("*.py"):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert os.path.basename(jit.kernel_cache_dir(package)) == before


def test_old_kernel_caches_are_pruned_keeping_the_most_recently_used(tmp_path):
    base = tmp_path / "simlab"
    current = base / "00000000000000ff"
    current.mkdir(parents=True)
    others = [base / f"{k:016x}" for k in range(6)]
    for age, folder in enumerate(others):  # others[0] the most recently used
        (folder / "engine_x").mkdir(parents=True)
        os.utime(folder, (1e9 - age * 1000, 1e9 - age * 1000))
    os.utime(current, (1, 1))  # the current one stays, however old
    not_a_cache = base / "engine_0123456789abcdef"
    not_a_cache.mkdir()

    removed = jit.prune_kernel_caches(str(current), kept=4)

    assert sorted(removed) == sorted(str(folder) for folder in others[4:])
    assert sorted(base.iterdir()) == sorted([current, not_a_cache, *others[:4]])
    assert jit.prune_kernel_caches(str(current), kept=4) == []
    assert jit.prune_kernel_caches(str(tmp_path / "none" / "00000000000000ff")) == []


def test_a_process_marks_its_cache_folder_as_used(tmp_path):
    folder = tmp_path / "00000000000000aa"
    folder.mkdir()
    os.utime(folder, (1, 1))
    jit.mark_used(str(folder))
    assert folder.stat().st_mtime > 1e9


_SAVE_AFTER_PRUNE = """
import shutil, sys
sys.path.insert(0, sys.argv[1])
from simlab.engine import jit
from simlab.engine.pieces import MIN_PIECE
from tiny_kernels import twice
assert twice(2) == 4  # compiled and saved
shutil.rmtree(jit._CACHE_DIR)  # as another version's prune would
assert twice(2.5) == 5.0  # a new signature: compiled and saved again
print("SAVED", sorted(p.suffix for p in __import__("pathlib").Path(jit._CACHE_DIR).rglob("*")))
"""


def test_a_cache_folder_removed_under_a_running_process_is_made_again(tmp_path):
    if not jit.LIGHT_CACHE_LOADS:
        pytest.skip(f"numba {numba.__version__}: simlab prunes no cache there")
    (tmp_path / "tiny_kernels.py").write_text(
        "from simlab.engine import jit\n\n\n@jit.kernel\ndef twice(x):\n    return 2 * x\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", _SAVE_AFTER_PRUNE, str(tmp_path)], env=env,
                         check=True, capture_output=True, text=True).stdout  # fmt: skip
    assert "'.nbc'" in out and "'.nbi'" in out


def test_only_simlab_kernels_use_the_kernel_cache():
    """Importing simlab leaves numba's own cache folder setting as it was."""
    assert os.environ.get("NUMBA_CACHE_DIR", "") == numba.config.CACHE_DIR


def _constant_or_first(a):
    x = 0
    if a[0] > 1:
        x = a[0]
    return x


def test_kernels_compile_without_ssa_on_checked_numba_versions():
    without = numba.njit(_constant_or_first)
    if not jit.compile_without_ssa(without):
        pytest.skip(f"numba {numba.__version__}: simlab compiles with numba's own flags")
    with_ssa = numba.njit(_constant_or_first)
    for value in (0, 1, 2, 9):
        a = np.array([value])
        assert without(a) == with_ssa(a) == _constant_or_first(a)
    passes = {name: " ".join(d.overloads[d.signatures[0]].metadata["pipeline_times"]["nopython"])
              for name, d in (("without", without), ("with", with_ssa))}  # fmt: skip
    assert "ssa" not in passes["without"] and "nopython_type_inference" in passes["without"]
    assert "ssa" in passes["with"]
    # the hazard the slow test below looks for: signed in one branch, unsigned in the other
    without(np.array([5], dtype=np.uint64))
    (_, unsigned) = without.signatures
    assert isinstance(without.overloads[unsigned].signature.return_type, numba.types.Float)


_TALLY_DIGESTS = """
import glob, hashlib, json, numpy as np, simlab
digests = {}
for path in sorted(glob.glob("scenarios/*/*.yaml")):
    tallies = simlab.simulate(path, 40, threads=1).tallies
    digest = hashlib.sha256()
    for array in tallies:
        digest.update(np.ascontiguousarray(array).tobytes())
    digests[path] = digest.hexdigest()
print(json.dumps(digests))
"""


def _tally_digests(env: dict[str, str]) -> dict[str, str]:
    out = subprocess.run([sys.executable, "-c", _TALLY_DIGESTS], env=env, check=True,
                         capture_output=True, text=True, cwd=SIMLAB.parent).stdout  # fmt: skip
    return dict(json.loads(out.splitlines()[-1]))


@pytest.mark.slow  # plays every example in plain Python
def test_every_example_plays_the_same_in_plain_python_as_compiled():
    """With ``NUMBA_DISABLE_JIT=1`` the kernels run as the plain Python they are written
    in (the module docstring's promise to a newcomer stepping through them), and every
    example scenario's tallies are the same integers as compiled: numba's integer
    arithmetic and numpy's agree on every roll the kernels make."""
    compiled = _tally_digests({**os.environ, "NUMBA_DISABLE_JIT": "0"})
    plain = _tally_digests({**os.environ, "NUMBA_DISABLE_JIT": "1"})
    assert len(compiled) >= 30
    assert plain == compiled


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")
def test_an_error_on_the_calling_thread_stops_the_others_taking_pieces() -> None:
    """When the calling thread stops in the middle of a call (Ctrl-C, an error), the
    pieces nobody has taken are dropped: the other threads end after the piece in hand
    instead of playing the rest of the call."""
    import threading
    import time

    import simlab
    from simlab.api import compile_job
    from simlab.engine import runner
    from simlab.engine.rng import key_from_seed
    from simlab.engine.tallies import new_tallies

    module = runner.kernels("glitters-d20")
    count = 64 * MIN_PIECE
    pieces = count // MIN_PIECE  # pieces of MIN_PIECE encounters (largest=MIN_PIECE below)
    scenario = simlab.load(SIMLAB.parent / "scenarios/glitters-d20/party-vs-monsters.yaml")
    job = compile_job(scenario, n=count, seed=1)
    started: list[str] = []
    finished: list[str] = []

    def run_chunk(*args):  # the calling thread fails as it takes its second piece
        caller = threading.current_thread() is threading.main_thread()
        if caller and "caller" in started:
            raise RuntimeError("stopped")
        started.append("caller" if caller else "other")
        module.run_chunk(*args)  # the kernel make test plays every run on
        finished.append("done")

    block = jit.chunked(run_chunk, module.chunk_scratch)
    tallies = new_tallies(job.layout, 2)
    trace = np.zeros((1, module.N_TRACE), dtype=np.int64)
    numba.set_num_threads(2)
    with pytest.raises(RuntimeError, match="stopped"):
        block(job.params, *key_from_seed(1), 0, count, count, tallies, trace,
              np.zeros(1, np.int64), largest=MIN_PIECE)  # fmt: skip
    deadline = time.monotonic() + 30
    while len(finished) < len(started) and time.monotonic() < deadline:
        time.sleep(0.01)  # the other thread ends the piece it holds
    time.sleep(0.2)  # and would take more, if any were left
    assert len(finished) == len(started)
    assert pieces >= 8 and len(started) < pieces / 2, (pieces, started)  # under half of them


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two threads")
def test_every_piece_gets_its_working_arrays_as_scratch_made_them() -> None:
    """A thread makes its working arrays once and plays many pieces with them: each
    piece must find them as ``scratch`` made them, whatever the piece before left in
    them."""
    from collections import namedtuple

    Tallies = namedtuple("Tallies", ["attempts"])
    count = 64 * MIN_PIECE
    seen: list[bool] = []

    def scratch(p, t, trace):
        return np.arange(5, dtype=np.int64), np.full((2, 3), 7, dtype=np.int64)

    def run_chunk(p, k0, k1, first, n, n_total, t, trace, n_trace, ch, counts, sevens):
        seen.append(bool((counts == np.arange(5)).all() and (sevens == 7).all()
                         and (trace == 0).all()))  # fmt: skip
        counts[:] = -1
        sevens[:] = -1
        trace[:] = -1
        t.attempts[ch] += n

    tallies = Tallies(np.zeros((2, 1), dtype=np.int64))
    numba.set_num_threads(2)
    trace = np.zeros((1, 4), dtype=np.int64)
    jit.chunked(run_chunk, scratch)(None, 1, 2, 0, count, count, tallies, trace, np.zeros(1),
                                    largest=MIN_PIECE)  # many pieces  # fmt: skip
    assert tallies.attempts.sum() == count  # every encounter played once
    assert len(seen) > 2 and all(seen)


def test_a_block_kernel_makes_its_working_arrays_again_only_for_other_parameters() -> None:
    """The working arrays of a block kernel's call are those of the call before when
    the parameters are the same object and the shapes the same; every piece of every
    call still finds them as ``scratch`` made them for its own parameters."""
    from collections import namedtuple

    Tallies = namedtuple("Tallies", ["attempts"])
    count = 4 * MIN_PIECE
    made: list[list[int]] = []

    def scratch(p, t, trace):
        made.append(p)
        return (np.full(3, p[0], dtype=np.int64),)

    def run_chunk(p, k0, k1, first, n, n_total, t, trace, n_trace, ch, values):
        t.attempts[ch] += n * int((values == p[0]).all())  # only pristine arrays count
        values[:] = -1

    numba.set_num_threads(2)
    block = jit.chunked(run_chunk, scratch)
    trace = np.zeros((1, 4), dtype=np.int64)
    first_p, other_p = [1], [2]
    tallies = Tallies(np.zeros((2, 1), dtype=np.int64))
    for p in (first_p, first_p, other_p, first_p):
        block(p, 1, 2, 0, count, count, tallies, trace, np.zeros(1))
    assert made == [first_p, other_p, first_p]
    assert tallies.attempts.sum() == 4 * count
    wider = Tallies(np.zeros((2, 3), dtype=np.int64))  # other shapes: made again
    block(first_p, 1, 2, 0, count, count, wider, trace, np.zeros(1))
    assert len(made) == 4 and wider.attempts[:, 0].sum() == count


def _count_over(values, limit):
    """Values above ``limit`` count as themselves, the others as 1; the branch marked."""
    total = 0
    for v in values:
        if jit.unlikely(v > limit):
            total += v
        else:
            total += 1
    return total


def _python_count_over(values, limit):
    return sum(int(v) if v > limit else 1 for v in values)


@pytest.mark.parametrize("limit", [-1, 3, 7, 20])
def test_a_branch_marked_unlikely_computes_as_python(limit):
    values = np.arange(10)
    assert jit.kernel(_count_over)(values, limit) == _python_count_over(values, limit)


def test_unlikely_reaches_llvm_as_branch_weights():
    if jit.unlikely is jit._identity:
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    compiled = numba.njit(_count_over)  # uncached, so that its IR can be read
    compiled(np.arange(10), 3)
    (ir,) = compiled.inspect_llvm().values()
    assert '!"branch_weights", !"expected", i32 1, i32 2000' in ir


def _lowest_at(values):
    best = 0
    for i in range(values.shape[0]):
        if values[i] < values[best]:
            best = i
    return best


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="an x86 option")
def test_compiles_after_simlab_s_first_keep_conditional_moves_in_loops():
    # The index of a minimum: LLVM picks conditional moves, and its x86 back end turns
    # them into branches inside a loop unless told not to (jit.LLVM_OPTIONS).
    if jit.unlikely is jit._identity:
        pytest.skip("NUMBA_DISABLE_JIT: nothing is compiled")
    jit.speed_up_compiles()
    compiled = numba.njit(_lowest_at)  # uncached: compiled here, its machine code read
    assert compiled(np.array([3, 1, 2, 1])) == _lowest_at(np.array([3, 1, 2, 1])) == 1
    (asm,) = compiled.inspect_asm().values()
    assert "cmov" in asm
