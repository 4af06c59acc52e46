"""``bench/profile_kernels.py``: sampled addresses attributed to the kernels whose
machine code holds them, and numba's symbols read back as the Python names."""

from __future__ import annotations

from bench.profile_kernels import by_kernel, short_name
from simlab.engine.rng import dice_source


def test_a_compiled_kernels_symbol_reads_as_its_python_name() -> None:
    dice_source(1, 2, 0, 20)  # compiled (or loaded), so that numba names it
    cres = next(iter(dice_source.overloads.values()))
    assert short_name(cres.fndesc.llvm_func_name) == "dice_source"


def test_a_symbol_numba_did_not_make_is_cut_short() -> None:
    assert short_name("x" * 60) == "x" * 40


def test_samples_count_in_the_kernel_that_holds_them_by_offset() -> None:
    kernels = [(100, 50, "a", "a.o", 0), (200, 10, "b", "b.o", 0)]
    found = by_kernel([99, 100, 120, 120, 150, 205, 210], kernels)
    assert dict(found[0]) == {0: 1, 20: 2}
    assert dict(found[1]) == {5: 1}
    assert set(found) == {0, 1}  # 99, 150 and 210 lie in no kernel
