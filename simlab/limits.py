"""Limits on what simlab accepts, in one place (README "Limits").

They keep hostile or mistaken input from hanging or exhausting the machine: each is
checked before the expensive work starts, and going over one is an input error (exit
code 2) that names the limit.
"""

from __future__ import annotations

#: The most encounters one run may simulate (scenario ``encounters:`` and ``-n``).
MAX_ENCOUNTERS = 10**11
#: The largest scenario file read, in bytes (the examples are 1–3 kB).
MAX_SCENARIO_BYTES = 250_000
#: The deepest nesting of lists and mappings in a scenario file.
MAX_DEPTH = 64
#: The most YAML nodes (keys, values, items) in a scenario file (the examples have ~300).
MAX_NODES = 10_000
#: The most problems reported for one file; the rest are counted.
MAX_PROBLEMS = 50
