"""Dask for the tests of runs on a cluster (``test_distributed*.py``)."""

from __future__ import annotations

import os
from typing import Any

import pytest


def dask_distributed() -> Any:
    """``distributed``, or the calling test module skipped without it (outside CI, which
    installs the test extra, Dask with it: missing there, it fails)."""
    if os.environ.get("CI"):
        import distributed

        return distributed
    return pytest.importorskip("distributed")
