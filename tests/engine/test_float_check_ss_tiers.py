"""No kernel of a shattered-spirits or opposed-tiers example, traced or not, has a float
variable (``tests/support.py``, :func:`~tests.support.assert_no_float_variable`; the
other three systems: ``test_float_check_d20_zones_draft1.py``)."""

from __future__ import annotations

import pytest

from tests.support import assert_no_float_variable

# Slow tier (make test-slow): compiles every kernel of these systems' examples afresh,
# about half of the slow tier's compiles; tests/conftest.py runs the two float-check files
# first, one in each process, and the kernels they save serve the tests after them.
pytestmark = pytest.mark.slow


def test_no_kernel_of_ss_or_tiers_examples_has_a_float_variable():
    assert_no_float_variable(["shattered-spirits", "opposed-tiers"])
