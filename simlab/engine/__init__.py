"""The simulation engine: random numbers, the encounter helpers, tallies, the runner.

This package's own module imports nothing, so that the command line can read the name
below without importing numba.
"""

#: The name prefix of the threads block kernels run on (``jit._pool``: ``simlab_0``, ...).
#: The command's quick exit (``cli._threads_at_work``) knows them by it: idle once a
#: command returns, they need not be waited for.
POOL_THREAD_PREFIX = "simlab"
