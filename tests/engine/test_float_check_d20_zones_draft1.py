"""No kernel of a glitters-d20, zones-3d6 or shattered-spirits-draft1 example, traced or
not, has a float variable (``tests/support.py``,
:func:`~tests.support.assert_no_float_variable`; the other two systems:
``test_float_check_ss_tiers.py``)."""

from __future__ import annotations

import pytest

from tests.support import assert_no_float_variable

# Slow tier (make test-slow), as test_float_check_ss_tiers.py, run first in the other
# process.
pytestmark = pytest.mark.slow


def test_no_kernel_of_d20_zones_or_draft1_examples_has_a_float_variable():
    assert_no_float_variable(["glitters-d20", "zones-3d6", "shattered-spirits-draft1"])
