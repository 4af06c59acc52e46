"""The one place that owns numba options.

Kernels everywhere in simlab are plain Python functions; they are compiled here, with the
same options, so that a newcomer can read and step through them in plain Python (set
``NUMBA_DISABLE_JIT=1``) and so that caching and threading are decided once.
Importing this module imports numba: only the engine and rule kernels import it, never
the CLI start-up or scenario validation.

Why two serial decorators: numba reference-counts every array passed into a function
that LLVM does not inline, an atomic increment and decrement per array per call. Our
kernels pass a tuple of parameter arrays down a chain of small rule functions, and that
bookkeeping cost 20–50× the work itself (measured: 48 ns against 1.4 ns per target
choice). Functions that never allocate are compiled without the runtime (``_nrt=False``),
which removes it. simlab's kernels allocate nothing: their working arrays, the RNG state
included, are made with numpy in Python. :func:`allocating_kernel` is for kernels that
must (the tests' helpers).

Threads: a block of encounters is cut into chunks, and :func:`chunked` plays them on a
pool of Python threads, each chunk in one call of a kernel that releases the GIL.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import codegen as numba_codegen
from numba.core.caching import FunctionCache
from numba.core.compiler import Compiler
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.registry import CPUDispatcher

from simlab.engine import POOL_THREAD_PREFIX, compile_flags, compiling, liveness
from simlab.engine.pieces import Pace, Pieces

Arrays = tuple[np.ndarray, ...]

_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


_PACKAGE = Path(__file__).resolve().parents[1]  # simlab's sources


def kernel_cache_dir(package: Path = _PACKAGE) -> str:
    """The folder of numba's cache of simlab's kernels, named by a digest of every
    kernel source (``simlab/engine`` and ``simlab/rules``).

    numba reuses a cached kernel as long as the file that defines it is unchanged, even
    when a kernel it calls or inlines from another file has changed since (a limit
    numba documents). A digest of all the sources in the folder's name makes any change
    to any of them compile afresh, instead of running stale code. The folder lies under
    ``NUMBA_CACHE_DIR/simlab`` when ``NUMBA_CACHE_DIR`` is set, else in simlab's
    ``__pycache__`` (or, when the package is not writable, under ``~/.cache/simlab``):
    folders that hold only simlab's kernels, beside those of other versions of the
    sources (:func:`prune_kernel_caches`). Lines ending in CRLF (a checkout on Windows)
    count as ending in LF, so that the same sources have one digest everywhere (the
    cluster check compares the workers' digests with the client's). Only simlab's
    kernels are cached there
    (:func:`_njit`): numba functions of the user's own keep numba's default. ``package``
    is the folder of simlab's sources.
    """
    digest = hashlib.sha256()
    for path in sorted([*package.glob("engine/*.py"), *package.glob("rules/**/*.py")]):
        source = path.read_bytes().replace(b"\r\n", b"\n")  # a Windows checkout: the same
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + source)
    user_base = os.environ.get("NUMBA_CACHE_DIR")
    base = os.path.join(user_base, "simlab") if user_base else (
        str(package / "__pycache__" / "numba") if os.access(package, os.W_OK)
        else str(Path.home() / ".cache" / "simlab" / "numba")
    )  # fmt: skip
    return os.path.join(base, digest.hexdigest()[:16])


#: Cache folders of other versions of the kernel sources kept beside the current one:
#: the most recently used. Each holds a few MB a rule system compiled.
OTHER_CACHES_KEPT = 4
_DIGEST_NAME = re.compile(r"[0-9a-f]{16}")


def prune_kernel_caches(current: str, kept: int = OTHER_CACHES_KEPT) -> list[str]:
    """Remove the kernel caches of older versions of simlab's sources beside ``current``.

    Every change to a kernel source makes a new cache folder (:func:`kernel_cache_dir`),
    and the old ones would pile up with each upgrade. Of the folders beside ``current``
    named as :func:`kernel_cache_dir` names them, the ``kept`` most recently used stay
    (a process marks its folder as used when it first loads or compiles a kernel,
    :func:`mark_used`); the others are removed. Called before a process's first compile
    (:func:`speed_up_compiles`). A process still running an older version that was
    removed loads nothing more from the cache and compiles afresh, into the folder numba
    makes again before it saves. Returns the folders removed.
    """
    current_path = Path(current)
    try:
        others = [folder for folder in current_path.parent.iterdir()
                  if _DIGEST_NAME.fullmatch(folder.name) and folder != current_path]  # fmt: skip
        others.sort(key=lambda folder: folder.stat().st_mtime, reverse=True)
    except OSError:  # the base is not there yet, or not readable: nothing to prune
        return []
    removed = others[kept:]
    for folder in removed:
        shutil.rmtree(folder, ignore_errors=True)
    return [str(folder) for folder in removed]


_USED: list[str] = []


def mark_used(folder: str) -> None:
    """Mark the cache folder ``folder`` as used now (its modification time), once a
    process, so that :func:`prune_kernel_caches` keeps it among the most recent."""
    if folder in _USED:
        return
    _USED.append(folder)
    with contextlib.suppress(OSError):  # numba made it at decoration, unless it could not
        os.utime(folder)


_CACHE_DIR = kernel_cache_dir()


#: Processors (LLVM's names) left at 256-bit vectors: the first AVX-512 server cores,
#: which lower their clock while they run 512-bit multiplies, for the scalar code after
#: them too (:func:`prefer_wide_vectors`).
SLOWED_BY_WIDE_VECTORS = ("skylake-avx512", "cascadelake", "cooperlake")


def prefer_wide_vectors() -> bool:
    """Let LLVM use 512-bit vectors on a machine with AVX-512, where its tuning for the
    processor asks for 256 bits at most (``prefer-256-bit``), but on the processors of
    :data:`SLOWED_BY_WIDE_VECTORS`. Returns whether it is set.

    The loops LLVM vectorises in the kernels (block 0 of a stream's dice for 128
    encounters at a time, ``rng.first_blocks``) then take eight encounters a step
    instead of four: on a 2-core Emerald Rapids, ``first_blocks`` 2.8 ns an encounter
    against 3.4-4.0, and the five plain duels 1.03-1.08x as fast over three rounds on
    one thread (the fights 0.96-1.3x, within their noise; README, "Design notes").
    Integer work and float work without fastmath compute the same either way, so
    results do not change. It is numba's CPU feature string (``NUMBA_CPU_FEATURES``)
    with ``-prefer-256-bit`` added, set before any kernel is compiled or loaded (numba
    keys its cache on the features). A user's own ``NUMBA_CPU_NAME`` or
    ``NUMBA_CPU_FEATURES`` is left as it is, and so is a numba that has already
    compiled something in this process; like :data:`LLVM_OPTIONS`, it holds for the
    user's own numba functions too.
    """
    from llvmlite import binding
    from numba.core import codegen

    config: Any = numba.config
    if config.CPU_NAME is not None or config.CPU_FEATURES is not None:
        return False
    try:
        wide = bool(binding.get_host_cpu_features().get("avx512f"))
    except RuntimeError:  # LLVM cannot tell on this machine
        return False
    wide = wide and binding.get_host_cpu_name() not in SLOWED_BY_WIDE_VECTORS
    if wide:
        config.CPU_FEATURES = codegen.get_host_cpu_features() + ",-prefer-256-bit"
    return wide


prefer_wide_vectors()


#: The numba versions whose internals simlab's loader, inliner shortcut and compile flags
#: were read against; elsewhere numba is left as it is (slower first runs, same results).
_NUMBA_READ = (0, 60) <= tuple(int(part) for part in numba.__version__.split(".")[:2]) < (0, 69)


def _light_cache_loads() -> bool:
    """Whether :class:`_KernelCache` loads simlab's kernels: on the numba versions whose
    loader it was checked against (it is theirs but for the refresh)."""
    methods = ("_guard_against_spurious_io_errors", "_load_overload")
    return _NUMBA_READ and all(hasattr(FunctionCache, m) for m in methods)


LIGHT_CACHE_LOADS = _light_cache_loads()


def _njit(fn: Callable[..., Any], **options: Any) -> Any:
    """``numba.njit`` with simlab's options and ``options``, cached in
    :func:`kernel_cache_dir` (numba reads its cache folder once, as it makes a kernel's
    cache at decoration)."""
    # numba compiles a callee with its caller's forceinline unless told: an inline_kernel
    # would make LLVM inline every kernel it calls, the rare paths too.
    options.setdefault("forceinline", False)
    config: Any = numba.config
    default = config.CACHE_DIR
    config.CACHE_DIR = _CACHE_DIR
    try:
        dispatcher = numba.njit(**{**_OPTIONS, **options})(fn)
    finally:
        config.CACHE_DIR = default
    if LIGHT_CACHE_LOADS and type(getattr(dispatcher, "_cache", None)) is FunctionCache:
        dispatcher._cache.__class__ = _KernelCache
    compile_without_ssa(dispatcher)
    return dispatcher


def compile_without_ssa(dispatcher: Any) -> bool:
    """Compile ``dispatcher``'s kernel without numba's SSA reconstruction, on the numba
    versions whose dispatcher was read (each compile's flags pass through its compiler's
    ``_customize_flags``). Returns whether it is set.

    After inlining, numba rebuilds the SSA form of a kernel's whole IR (every assignment
    a variable of its own, joined by phi nodes), then infers the types of all those
    variables and strips the phis again. For shattered-spirits' ``run_chunk`` numba's
    passes took 19.1 s with it (SSA 2.0 s, type inference 5.5 s) and 15.8 s without
    (type inference 3.0 s). LLVM builds its own SSA form from the lowered code, so the
    machine code is the same (README, "Design notes": first runs 15-20% shorter).

    What it asks of a kernel: a variable assigned in several blocks (the branches of an
    ``if``) has one type in all of them, where SSA would give each assignment its own.
    One that takes two integer constants in turn must be given a type (``settled =
    np.int64(FUMBLE_NONE)``), or numba refuses to compile it (``No conversion from
    Literal[int](1) to Literal[int](0)``). One that takes a signed and an unsigned
    integer becomes a float, with or without SSA where the branches join;
    ``tests/engine/test_jit.py`` checks that no kernel has a float variable.
    """
    compiler: Any = getattr(dispatcher, "_compiler", None)
    customize = getattr(compiler, "_customize_flags", None)
    if not _NUMBA_READ or customize is None:
        return False

    def flags_without_ssa(flags: Any) -> Any:
        flags = customize(flags)
        flags.enable_ssa = False
        return flags

    compiler._customize_flags = flags_without_ssa
    return True


class _KernelCache(FunctionCache):
    """numba's on-disk cache of one kernel, loaded without a full compiler refresh.

    Before it loads a cached kernel, numba refreshes its compiler: it imports and
    registers the implementation of every function numba can compile (numpy's linear
    algebra, which imports scipy.linalg, typed containers, jitclasses...), measured at
    0.4-0.6 s of a 1.6-2.3 s second ``simlab run``. A cached kernel is machine code that
    needs none of it, only numba's runtime, which this loader starts. When a kernel is
    not in the cache, numba's compiler refreshes everything itself before compiling
    (and :func:`speed_up_compiles` is called first).
    """

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        """The cached compile result of ``sig``, or None when there is none (and numba
        is about to compile it: the run's listener is told,
        :func:`simlab.engine.compiling.compile_starting`, and :func:`speed_up_compiles`
        runs). The cache folder is marked as used (:func:`mark_used`)."""
        from numba.core.runtime import rtsys

        mark_used(_CACHE_DIR)
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            loaded = self._load_overload(sig, target_context)
        if loaded is None:
            compiling.compile_starting()
            speed_up_compiles()
        return loaded


class _BlockCopies:
    """Stands in for the ``copy`` module inside numba's inliner (the only use there is
    the copy of a callee's IR blocks before they are spliced into the caller): while
    :func:`_inline_function` runs, the blocks are handed over as they are."""

    fresh = False

    @staticmethod
    def deepcopy(obj: Any, memo: Any = None) -> Any:
        import copy

        return obj if _BlockCopies.fresh else copy.deepcopy(obj, memo)


def _inline_function(
    worker: Any, caller_ir: Any, block: Any, i: int, function: Any, arg_typs: Any = None
) -> Any:
    """numba's ``InlineWorker.inline_function`` without its two copies of the callee.

    The callee's IR is made afresh for this one call site and thrown away after it, so
    copying it is wasted work, and numba copies it block by block, each block with its
    own copy of every variable of the callee: quadratic in the callee's size. With
    numba-inlined turns of a few hundred lines that was most of a first run
    (profiled on zones-3d6/skirmish: 29 of 64 s in ``copy.deepcopy``). numba's
    maintainers found the second copy needless too (numba issue 8989).
    """
    callee_ir = worker.run_untyped_passes(function)
    _BlockCopies.fresh = True  # numba compiles under one global lock: no other thread
    try:
        return worker.inline_ir(caller_ir, block, i, callee_ir,
                                function.__code__.co_freevars, arg_typs=arg_typs)  # fmt: skip
    finally:
        _BlockCopies.fresh = False


def skip_inliner_copies() -> bool:
    """Install :func:`_inline_function` on the numba versions whose inliner it was checked
    against (their only use of ``copy`` in the inliner is that block copy); elsewhere numba
    is left as it is, which only makes first runs slower. Returns whether it is installed.

    Called before simlab's first compile (:class:`_KernelCache`, on a cache miss), not at
    import: numba's inliner module takes 0.04-0.07 s to import, and a run whose kernels
    all come from the cache never inlines. Installing it again does nothing.
    """
    import copy

    from numba.core import inline_closurecall

    if inline_closurecall.InlineWorker.inline_function is _inline_function:
        return True
    if not _NUMBA_READ or inline_closurecall.copy is not copy:
        return False
    inline_closurecall.copy = _BlockCopies  # type: ignore[assignment]
    inline_closurecall.InlineWorker.inline_function = _inline_function  # type: ignore[method-assign]
    return True


#: LLVM's options for simlab's compiles (:func:`use_llvm_options`).
#: ``-x86-cmov-converter=false`` keeps the conditional moves LLVM chose inside loops,
#: where its x86 back end would turn them back into branches when it expects that to be
#: quicker: in the fights' turn loops the branches are on dice and on who acts, which
#: nothing foresees (README, "Design notes", "Conditional moves kept in the loops").
LLVM_OPTIONS = ("-x86-cmov-converter=false",)


def use_llvm_options() -> None:
    """Set :data:`LLVM_OPTIONS` for the compiles that follow, once a process (setting
    them again does nothing).

    An LLVM option holds for the whole process (numba has no way to give one to a single
    function), so numba functions of the user's own compiled after simlab's first compile
    get it too; it changes how fast their machine code runs, never what it computes.
    """
    if _LLVM_OPTIONS_SET:
        return
    from llvmlite import binding

    for option in LLVM_OPTIONS:
        binding.set_option("simlab", option)
    _LLVM_OPTIONS_SET.append(True)


_LLVM_OPTIONS_SET: list[bool] = []


def speed_up_compiles() -> None:
    """Install what shortens numba's compiles, on the numba versions read: the inliner
    shortcut (:func:`skip_inliner_copies`), the liveness on bit sets
    (:mod:`simlab.engine.liveness`) and the compile flags' comparison
    (:mod:`simlab.engine.compile_flags`). None changes what numba compiles. Then set
    LLVM's options for the code it generates (:func:`use_llvm_options`), and, once a
    process, remove the caches of older versions (:func:`prune_kernel_caches`).

    Called before simlab's first compile (:class:`_KernelCache`, on a cache miss), not at
    import, since a run whose kernels all come from the cache compiles nothing.
    """
    skip_inliner_copies()
    use_llvm_options()
    if _NUMBA_READ:
        liveness.install()
        compile_flags.install()
    if LIGHT_CACHE_LOADS and not _PRUNED:  # only where this loader marks folders used
        _PRUNED.append(prune_kernel_caches(_CACHE_DIR))


_PRUNED: list[list[str]] = []


if not LIGHT_CACHE_LOADS:  # no cache-miss hook to install them from: install them now
    speed_up_compiles()


def kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial numba kernel that allocates no arrays (hot paths)."""
    return _kernel_with(fn)


def internal_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a :func:`kernel` that only other kernels call, never Python.

    numba gives every compiled function two wrappers that let Python (and C) call it;
    for a kernel taking the parameter and tally tuples (hundreds of machine words) they
    cost more to build than a small kernel itself: without them, measured on
    glitters-d20's first run, ``finish`` took 0.77 s to compile instead of 1.4 s (the
    figures for whole first runs are in the README's design notes). numba would crash
    if Python called such a function, so Python gets a ``TypeError`` instead.
    """
    dispatcher = _kernel_with(fn, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    if isinstance(dispatcher, CPUDispatcher):  # not with NUMBA_DISABLE_JIT=1
        dispatcher.__class__ = _InternalDispatcher
    return dispatcher


def _kernel_with(fn: Callable[..., Any], **options: Any) -> Any:
    """A :func:`kernel` with extra numba ``options``."""
    return _one_version_per_type(_njit(fn, _nrt=False, **options))


class _InternalDispatcher(CPUDispatcher):
    """An :func:`internal_kernel`: callable from compiled code only."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"{self.py_func.__name__} is an internal kernel: only compiled kernels call it "
            "(simlab.engine.jit.internal_kernel); call the rule system's run_chunk instead"
        )


def _one_version_per_type(dispatcher: Any) -> Any:
    """Make ``dispatcher`` compile one version per argument *type*, not per constant.

    Called from compiled code with a constant argument (``roll_die(rng, STREAM_ATTACK,
    6)``), numba types that argument as a literal and compiles the callee once per
    distinct constant: measured, 15 versions of one RNG helper and 4 of a rule system's
    turn, and the first run of a scenario took up to twice as long (opposed-tiers
    party-fight: 44 s, 19 s without). Typing the arguments as their plain types gives one
    version; kernels that need a constant for typing are :func:`ir_inline_kernel` ones,
    which numba inlines before they are compiled on their own.
    """
    from numba.core import types

    if not isinstance(dispatcher, CPUDispatcher):  # NUMBA_DISABLE_JIT=1: plain Python
        return dispatcher
    template = dispatcher.get_call_template

    def get_call_template(args: Any, kws: Any) -> Any:
        return template(tuple(types.unliteral(a) for a in args),
                        {k: types.unliteral(v) for k, v in kws.items()})  # fmt: skip

    dispatcher.get_call_template = get_call_template  # type: ignore[method-assign]
    return dispatcher


def inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a small, hot, non-allocating kernel that LLVM inlines into its callers.

    Inlining removes the call, whose cost is copying every array of the parameter tuples
    (numba passes each as several machine words), and lets each call site's constants
    (a stream, trace columns) simplify the inlined code: glitters-d20's attack and
    opposed-tiers' dice roll inlined ran the fights 1.3x as fast. Use it for the
    per-attack path, and for the function that plays one encounter, whose one call site
    is the loop of a system's ``run_chunk``; the round, called once an encounter, inlined
    into it ran two-sided duels 1.5-1.7x as fast, and the start and the end of an
    encounter inlined ran the short fights 1.05-1.15x as fast (README, "Design notes").

    numba types and lowers the kernel once for each set of argument types, as a function
    marked for LLVM to inline always, into a library that is only ever linked into its
    callers (:class:`_LinkedOnlyLibrary`); LLVM inlines it where the caller is optimised.
    Until December 2 numba inlined these kernels into its own IR before typing, which
    typed and lowered each call site again: the five systems' first runs took 84 s
    instead of 53 s (README, "Design notes", "Kernels inlined by LLVM"). A kernel that
    needs its caller's constants to be typed is an :func:`ir_inline_kernel`. Called from
    Python, an inline kernel runs a copy compiled as a :func:`kernel`. On a numba whose
    code libraries were not read (outside 0.60-0.68) numba inlines it, as before.
    """
    if not _NUMBA_READ:
        return ir_inline_kernel(fn)
    dispatcher = _kernel_with(fn, forceinline=True, cache=False, pipeline_class=_LinkedOnlyCompiler,
                              no_cpython_wrapper=True, no_cfunc_wrapper=True)  # fmt: skip
    if isinstance(dispatcher, CPUDispatcher):  # not with NUMBA_DISABLE_JIT=1
        dispatcher.__class__ = _InlineDispatcher
    return dispatcher


def ir_inline_kernel(fn: Callable[..., Any]) -> Any:
    """Compile a kernel that numba itself inlines into its callers' IR, before typing.

    Each call site is typed and compiled again, with the caller's constants: code that
    needs a constant to be typed, and the few pieces whose machine code came out slower
    from LLVM's inlining (:func:`inline_kernel`), the RNG's cursors and Philox rounds:
    ``zones-3d6-duel`` ran 0.78x as fast with its cursors inlined by LLVM (``bench_ab``,
    four rounds of 2x10^6 duels). Keep these few: every call site costs a first run
    compile time (README, "Design notes", "Kernels inlined by LLVM").
    """
    return _njit(fn, inline="always", _nrt=False)


class _InlineDispatcher(CPUDispatcher):
    """An :func:`inline_kernel`. Its compiled code is only ever inlined into its callers;
    called from Python (the tests check rule functions so), it runs a :func:`kernel`
    compiled from the same function."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        copy = self.__dict__.get("_python_callable")
        if copy is None:
            copy = self.__dict__["_python_callable"] = kernel(self.py_func)
        return copy(*args, **kwargs)


class _LinkedOnlyLibrary(numba_codegen.JITCodeLibrary):
    """The compiled code of an :func:`inline_kernel`: LLVM IR that is only ever linked
    into its callers' code, which LLVM inlines it into and optimises as a whole.

    numba turns every compiled function's library into machine code, after optimising
    it once more as a whole module with everything it calls linked in: for a kernel
    called only by other kernels that is wasted work, done again at every level of the
    call chain.
    """

    @property
    def codegen(self) -> Any:
        return _CodegenWithoutEnvironment(self._codegen)

    def finalize(self) -> None:
        """Link in the libraries of the kernels this one calls, and nothing more."""
        require_global_compiler_lock()
        self._raise_if_finalized()
        for library in dict.fromkeys(self._linking_libraries):
            self._reload_init.update(library._reload_init)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._finalized = True

    def get_pointer_to_function(self, name: str) -> int:
        """No machine code, so no function to point to (numba asks for the Python
        wrapper, which an internal kernel does not have)."""
        return 0


class _CodegenWithoutEnvironment:
    """numba's code generator as a :class:`_LinkedOnlyLibrary` sees it: there is no
    loaded code to set the kernel's environment pointer in (a kernel without the
    runtime never reads it)."""

    def __init__(self, codegen: Any) -> None:
        self._codegen = codegen

    def set_env(self, env_name: str, env: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codegen, name)


class _LinkedOnlyCompiler(Compiler):
    """numba's compiler, with a :class:`_LinkedOnlyLibrary` for the kernel's code."""

    def __init__(self, typingctx: Any, targetctx: Any, library: Any, *args: Any) -> None:
        if library is None:
            library = targetctx.codegen().create_library("inline_kernel")
            library.__class__ = _LinkedOnlyLibrary
        super().__init__(typingctx, targetctx, library, *args)


def allocating_kernel(fn: Callable[..., Any]) -> Any:
    """Compile ``fn`` as a serial numba kernel that may allocate arrays."""
    return _one_version_per_type(_njit(fn))


def _expect_false(typingctx: Any, condition: Any) -> Any:
    """The typing and code of :func:`unlikely`: its boolean argument, passed through
    ``llvm.expect`` with the value ``false``."""
    from llvmlite import ir
    from numba.core import cgutils, types

    if not isinstance(condition, types.Boolean):
        return None

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        bit = ir.IntType(1)
        expect = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(bit, [bit, bit]), "llvm.expect.i1"
        )
        return builder.call(expect, [args[0], ir.Constant(bit, 0)])

    return types.boolean(condition), codegen


def _identity(condition: bool) -> bool:
    """``condition``: :func:`unlikely` in plain Python (``NUMBA_DISABLE_JIT=1``)."""
    return condition


unlikely: Any
if numba.config.DISABLE_JIT:  # type: ignore[attr-defined]
    unlikely = _identity
else:
    from numba.core.extending import intrinsic

    #: ``unlikely(condition)`` in a kernel is ``condition``, marked for LLVM as almost
    #: never true: ``if unlikely(pos == 4):`` before a path taken once in many passes.
    #: LLVM then lays the path out of line and, above all, spills registers there
    #: rather than in the loop around it. A cursor's next Philox block so marked
    #: (``rng._cursor_word``) ran the benchmark duels 1.00-1.08x as fast: the Philox
    #: rounds inlined in the loop had kept a duel's Health and cursor on the stack
    #: (README, "Design notes"). Only where a path is rare and costly: marking the
    #: cursor's word test or the state's refill so measured slower.
    unlikely = intrinsic(_expect_false)


def chunked(run_chunk: Any, scratch: Callable[..., tuple[Any, ...]]) -> Callable[..., None]:
    """A rule system's block kernel: every chunk of a block played on threads.

    Parameters
    ----------
    run_chunk : numba kernel
        ``run_chunk(p, k0, k1, first, count, n_total, t, trace, n_trace, ch, *arrays)``
        plays chunk ``ch`` of encounters ``first .. first+count-1`` (there are
        ``t.attempts.shape[0]`` chunks, each a contiguous slice) into ``t[ch]``. A
        :func:`kernel`: it allocates nothing and releases the GIL.
    scratch : callable
        ``scratch(p, t, trace)``: the working arrays one chunk needs (``arrays``), made
        with numpy from ``p`` and the shapes of ``t`` and ``trace`` (never their
        contents). Untraced (``trace`` of one row), each chunk also gets a ``trace`` row
        of its own to use as scratch. Every piece a thread plays gets them as
        ``scratch`` made them: they are made once a call, or taken from the call before
        when ``p`` and the shapes are the same (:class:`_MadeScratch`), and each thread
        copies them into working copies of its own before each piece
        (:func:`fresh_copies`).

    Returns
    -------
    callable
        ``run_block(p, k0, k1, first, count, n_total, t, trace, n_trace, *, pace=None,
        largest=None, progress=None)``: plays the encounters on
        ``numba.get_num_threads()`` threads (the calling one and others from one pool),
        each adding into a chunk of ``t`` of its own, and returns when all are done. A
        ``pace`` (:class:`~simlab.engine.pieces.Pace`) carries the speed from one call to
        the next; ``largest`` bounds a piece (default: the whole call); ``progress`` is
        called on the calling thread with the encounters played since its last call.
        Traced, the one chunk is played on the calling thread.

    Notes
    -----
    The threads do not each take a fixed share: the encounters are cut into pieces
    sized by time (:class:`~simlab.engine.pieces.Pieces`), and each thread plays the
    next piece nobody has taken until none is left, adding it to its own chunk of
    ``t`` (``run_chunk`` on a one-chunk view of it). So a thread on a core that is
    slower for a while (another process, a busy neighbour on a shared machine) plays
    fewer pieces instead of keeping the others waiting; the tallies are sums, and every
    encounter draws its own dice, so which thread plays which piece changes no count.
    On the 2-core machine, whose two cores ran the same kernel up to 1.2x apart at
    times, runs on both went 1.01-1.06x as fast
    (README, "Design notes").
    When the calling thread stops (Ctrl-C, an error), the pieces nobody has taken are
    dropped, so the other threads end after the piece in hand. Python notices a Ctrl-C
    only between the calling thread's pieces, which last at most
    :data:`~simlab.engine.pieces.PIECE_SECONDS` once the speed is known.

    Why not a ``parallel=True`` kernel with ``prange`` over the chunks: compiling one
    took 4–5 s of every rule system's first run on the 2-core machine (numba's compile
    events: glitters-d20's ``run_block`` 4.7 s, opposed-tiers' 4 s, beyond what they
    call), for a loop that only hands out chunks. And why the working arrays are made
    here, not in a kernel that allocates: a kernel compiled with numba's runtime ran the
    encounter loop it calls 1.7x slower than the same loop called from Python or from a
    kernel without the runtime (measured on ``glitters-d20/bleeding-duel``: 0.23 against
    0.41 M encounters/s on one thread).
    """

    made_scratch = _MadeScratch(scratch)

    def run_block(
        *args: Any,
        pace: Pace | None = None,
        largest: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """Play encounters ``first .. first+count-1`` (arguments ``p, k0, k1, first,
        count, n_total, t, trace, n_trace``) on threads, into the chunks of ``t``, in
        pieces of at most ``largest`` encounters sized from ``pace`` (a new one when
        None); ``progress`` is called on the calling thread with the encounters played
        since its last call."""
        p, k0, k1, first, count, n_total, t, trace, n_trace = args
        chunks = t.attempts.shape[0]
        if trace.shape[0] > 1:  # traced: one thread, the trace rows in encounter order
            for ch in range(chunks):
                run_chunk(*args, ch, *scratch(p, t, trace))
            return
        threads = min(numba.get_num_threads(), chunks)
        pieces = Pieces(first, count, threads, pace or Pace(), largest or count)
        made = made_scratch.arrays(p, type(t)(*(a[:1] for a in t)), trace)

        def play_pieces(ch: int) -> None:
            """Play untaken pieces into chunk ``ch`` until none is left."""
            own = type(t)(*(a[ch : ch + 1] for a in t))  # C-contiguous: the same kernel
            work = tuple(a.copy() for a in made)
            for lo, hi in pieces:
                row, *arrays = fresh_copies(work, made)
                started = time.perf_counter()
                run_chunk(p, k0, k1, lo, hi - lo, n_total, own, row, n_trace, 0, *arrays)
                pieces.played(hi - lo, time.perf_counter() - started)
                if ch == 0:
                    report_progress()

        def report_progress() -> None:
            """Tell ``progress`` of the encounters played since it was last told."""
            done = pieces.report()
            if progress is not None and done:
                progress(done)

        futures = [_pool().submit(play_pieces, ch) for ch in range(1, threads)]
        try:
            play_pieces(0)
        except BaseException:  # Ctrl-C or an error: the others stop after the piece in hand
            pieces.drop()
            raise
        for future in futures:
            future.result()
        report_progress()

    return run_block


class _MadeScratch:
    """A block kernel's working arrays as ``scratch`` made them for its last call
    (:func:`chunked`), made again only for other parameters or other shapes.

    Making them took some 0.1 ms of Python on each thread at each call (a plain duel's
    tables are worked out from the parameters), under the GIL, so a second thread
    started that much later; a run of a fast duel makes three or four calls. The arrays
    are only read, never written: each thread plays on copies of its own. The last
    parameters are held, so the identity compared is theirs; nothing changes a
    compiled scenario's parameters in place (``api.compile_job`` makes new ones).
    """

    def __init__(self, scratch: Callable[..., tuple[Any, ...]]) -> None:
        self.scratch = scratch
        self.last: tuple[Any, tuple[Any, ...], Arrays] | None = None

    def arrays(self, p: Any, t: Any, trace: np.ndarray) -> Arrays:
        """The working arrays for parameters ``p``, a one-chunk ``t`` and ``trace``: a
        ``trace`` row, then those of ``scratch(p, t, trace)``."""
        shapes = (tuple(a.shape for a in t), trace.shape)
        last = self.last
        if last is not None and last[0] is p and last[1] == shapes:
            return last[2]
        made = (np.zeros_like(trace), *self.scratch(p, t, trace))
        self.last = (p, shapes, made)
        return made


def fresh_copies(work: Arrays, made: Arrays) -> Arrays:
    """``work`` with each array's contents set back to the one in ``made``: a piece's
    working arrays as :func:`chunked`'s ``scratch`` made them, copied in place rather
    than made anew. Making them took 0.1-0.2 ms a piece in Python (a plain duel's tables
    are worked out from the parameters), on the calling thread some 10% of a fast
    duel's run on 2 threads by cProfile (``bench_ab`` found no difference at 2 threads);
    the copy takes some microseconds."""
    for w, m in zip(work, made, strict=True):
        np.copyto(w, m)
    return work


_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    """The one pool of threads that block kernels run chunks on (made on first use), its
    threads named after :data:`simlab.engine.POOL_THREAD_PREFIX`."""
    if not _POOL:
        workers = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
        _POOL.append(ThreadPoolExecutor(max_workers=workers, thread_name_prefix=POOL_THREAD_PREFIX))
    return _POOL[0]
