"""A Dask ``LocalCluster`` of two single-threaded worker processes, for the tests of
runs on a cluster (``test_distributed*.py``)."""

from __future__ import annotations

import os

import pytest

from tests.engine.cluster import dask_distributed


@pytest.fixture(scope="module")
def client():  # type: ignore[no-untyped-def]
    distributed = dask_distributed()
    saved = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # inherited by the worker processes only
    try:
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
    finally:
        if saved is None:
            del os.environ["NUMBA_NUM_THREADS"]
        else:
            os.environ["NUMBA_NUM_THREADS"] = saved
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
