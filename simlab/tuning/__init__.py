"""Tuning: overrides, sweeps and A/B comparisons on common random numbers.

A layer above :func:`simlab.simulate` and :func:`simlab.exact`: it changes scenario
documents (validated like files), runs them on the same seed — so every variant plays
the same dice — and compares the figures. The engine and rule systems know nothing
of it.
"""
