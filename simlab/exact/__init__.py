"""Exact answers (enumeration, Markov chains) that need no sampling, per rule system."""
