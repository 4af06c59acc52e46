"""Profile: where a scenario's run spends its time, by kernel, source line and rule.

Run with ``python -m bench.profile_kernels SCENARIO [--seconds S] [--threads T]
[--top K] [--no-lines]`` from the repository root, on a Linux machine with ``perf``,
``nm`` and ``addr2line`` (binutils). A worker process compiles the scenario's kernels
into an empty kernel cache (so that numba keeps their object code), with numba's line
tables (``NUMBA_DEBUGINFO=1``) unless ``--no-lines``, then runs the scenario over and
over for ``S`` seconds (default 8) on ``T`` threads (default 1) while ``perf record -e
cpu-clock`` samples it (a timer: it needs no hardware counters, which a virtual
machine often lacks). The samples' addresses are read back through a map of the
kernels' machine code, and, with line tables, through each kernel's lines and the
functions inlined at each address. Printed: the share of the samples in each kernel,
in each source line (the innermost, where a function was inlined), and in each
function with everything inlined into it.

Why: the kernels are one function each once LLVM has inlined the rules into them, so
a profiler sees one symbol; the line tables say which rule an instruction came from.
Kernels compiled with line tables are not quite the kernels a run uses (on December 2
the glitters-d20 benchmark fight's chunk kernel held 88% of the samples with them, 92%
without): read the shares as where to look, and time any change with ``bench_ab``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
from bisect import bisect_right
from pathlib import Path

#: The worker: compiles and warms up the scenario, writes the map of its kernels'
#: machine code for perf and for this script, says ``ready PID``, then runs it.
WORKER = r"""
import ctypes, gc, json, os, subprocess, sys, time
import simlab
from numba.core.registry import CPUDispatcher
path, seconds, threads = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
out, maps = sys.argv[4], sys.argv[5]
scenario = simlab.load(path)
simlab.simulate(scenario, n=2_000, threads=threads)
kernels = []
for dispatcher in [o for o in gc.get_objects() if isinstance(o, CPUDispatcher)]:
    for i, cres in enumerate(dispatcher.overloads.values()):
        code = getattr(cres.library, "_compiled_object", None)
        if not code:
            continue
        obj = os.path.join(out, f"{id(dispatcher)}-{i}.o")
        with open(obj, "wb") as fh:
            fh.write(code)
        nm = subprocess.run(["nm", "-S", "--defined-only", obj], capture_output=True,
                            text=True, check=True).stdout
        engine = cres.library._codegen._engine
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[2] in "tT":
                address = engine.get_function_address(parts[3])
                if address:
                    kernels.append((address, int(parts[1], 16), parts[3], obj,
                                    int(parts[0], 16)))
with open(os.path.join(maps, f"perf-{os.getpid()}.map"), "w") as fh:
    for address, size, name, _, _ in sorted(kernels):
        fh.write(f"{address:x} {size:x} {name}\n")
with open(os.path.join(out, "kernels.json"), "w") as fh:
    json.dump(kernels, fh)
print("ready", os.getpid(), flush=True)
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    simlab.simulate(scenario, n=100_000, threads=threads)
"""

#: The folder perf reads a JIT's symbol maps from (``perf-PID.map``): perf's own
#: convention on Linux, the same on every machine.
PERF_MAPS = Path(os.sep, "tmp")
#: A kernel's machine code: (address, size, symbol, object file, offset in it).
Kernel = tuple[int, int, str, str, int]
#: numba's symbol of a function: ``…<module><length><name>B<digits>…``.
_FUNCTION = re.compile(r"(?:kernels|encounter|rng|jit|arrays)\d+([A-Za-z_][A-Za-z_0-9]*?)B\d")


def short_name(symbol: str) -> str:
    """The Python name in numba's symbol of a compiled function, or its first 40
    characters where none is found."""
    match = _FUNCTION.search(symbol)
    return match.group(1) if match else symbol[:40]


def record(scenario: str, seconds: float, threads: int, lines: bool, out: Path) -> list[int]:
    """Run the worker on ``scenario`` under ``perf record``; the sampled addresses."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(out / "cache"))
    if lines:
        env["NUMBA_DEBUGINFO"] = "1"
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, scenario, str(seconds + 30), str(threads), str(out),
         str(PERF_MAPS)],
        env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert worker.stdout is not None
    for line in worker.stdout:
        if line.startswith("ready"):
            break
    else:
        sys.exit(f"expected the worker to get ready; it exited with code {worker.wait()}")
    data = out / "perf.data"
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-p",
                    str(worker.pid), "-o", str(data), "--", "sleep", str(seconds)],
                   check=True, capture_output=True)  # fmt: skip
    worker.kill()
    worker.wait()
    (PERF_MAPS / f"perf-{worker.pid}.map").unlink(missing_ok=True)
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"],
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    return [int(ip, 16) for ip in script.split()]


def by_kernel(ips: list[int], kernels: list[Kernel]) -> dict[int, collections.Counter[int]]:
    """The samples in each kernel (by its index in ``kernels``, sorted by address),
    counted by their offset in it."""
    starts = [k[0] for k in kernels]
    found: dict[int, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for ip in ips:
        i = bisect_right(starts, ip) - 1
        if i >= 0 and ip < kernels[i][0] + kernels[i][1]:
            found[i][ip - kernels[i][0]] += 1
    return found


def inlined_frames(kernel: Kernel, offsets: list[int]) -> dict[int, list[tuple[str, str]]]:
    """For each offset into ``kernel``, its (function, file:line) frames from addr2line,
    the innermost first."""
    _, _, _, obj, base = kernel
    query = "\n".join(hex(base + offset) for offset in offsets)
    text = subprocess.run(["addr2line", "-a", "-i", "-f", "-e", obj], input=query,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    raw: dict[int, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("0x"):
            current = raw[int(line, 16) - base] = []
        else:
            current.append(line)
    return {offset: [(short_name(f[i]), _where(f[i + 1])) for i in range(0, len(f) - 1, 2)]
            for offset, f in raw.items()}  # fmt: skip


def _where(location: str) -> str:
    """``file:line`` of addr2line's location, from the package folder on."""
    location = location.split(" ")[0]
    return location.split("/simlab/")[-1] if "/simlab/" in location else location


def report(ips: list[int], kernels: list[Kernel], top: int, lines: bool) -> None:
    """Print the shares of the samples by kernel, then by line and by function."""
    total = len(ips)
    found = by_kernel(ips, kernels)
    print(f"{total:,} samples")
    print("-- by kernel")
    for i, counts in sorted(found.items(), key=lambda item: -sum(item[1].values()))[:top]:
        print(f"{100 * sum(counts.values()) / total:6.2f}%  {short_name(kernels[i][2])}")
    if not lines:
        return
    innermost: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    for i, counts in found.items():
        for offset, frames in inlined_frames(kernels[i], sorted(counts)).items():
            n = counts[offset]
            innermost[frames[0][1] if frames else "?"] += n
            for function in {f for f, _ in frames}:
                inclusive[function] += n
    for title, counter in (
        ("innermost line", innermost),
        ("function, inlined ones in it", inclusive),
    ):
        print(f"-- by {title}")
        for key, n in counter.most_common(top):
            print(f"{100 * n / total:6.2f}%  {key}")


def main() -> None:
    """Profile the scenario named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--no-lines", action="store_true", help="kernels as a run compiles them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        ips = record(args.scenario, args.seconds, args.threads, not args.no_lines, out)
        listed = json.loads((out / "kernels.json").read_text())
        kernels = sorted((int(a), int(n), str(s), str(o), int(b)) for a, n, s, o, b in listed)
        report(ips, kernels, args.top, not args.no_lines)


if __name__ == "__main__":
    main()
