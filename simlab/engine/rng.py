"""Counter-based random numbers: Philox4x32-10 keyed by the seed, counted by encounter.

Every encounter's dice are a pure function of ``(seed, encounter index, stream)``, so a
result never depends on the number of threads, the block size or the order in which
encounters were simulated.

Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as
1, 2, 3", SC 2011; reference implementation Random123) maps a 128-bit counter and a
64-bit key to 128 random bits. simlab uses

* key     = ``(k0, k1)`` = low and high 32 bits of the 64-bit seed;
* counter = ``(encounter_lo, encounter_hi, stream, block_index)``.

Each kind of game action draws from its own *stream*, so adding a reaction roll does not
shift the attack rolls that follow it. Within one (encounter, stream) word ``i`` is word
``i % 4`` of block ``i // 4`` (blocks 0, 1, 2, ...; 2**34 words before the block index
wraps, far beyond any encounter).

Dice
----
A die does not cost a whole word. :func:`roll_die` cuts one word into a *batch* of ``k``
dice of the same size ``s``, where ``k`` is the largest count with ``s**k <= 2**26``
(ten d6, six d20, one die of more than 8,192 sides). This is the batched form of
Lemire's method (Brackett-Rozinsky and Lemire, "Batched Ranged Random Integer
Generation", 2024): the word ``u`` is accepted when ``u * s**k mod 2**32`` is at least
``2**32 mod s**k`` (else the next word is tried; the chance of that is below 2**-6, and
0.04% for d6), and then each die is the high word of the running product, ``x <- u``,
``die_i = (x * s) >> 32``, ``x <- (x * s) mod 2**32``. The dice of an accepted word are the
base-``s`` digits of ``floor(u * s**k / 2**32)``, which is exactly uniform on
``0 .. s**k - 1``, so they are independent and exactly uniform. A die of another size
than the batch in hand discards the rest of the batch and starts a new one from the
next word, so the dice of a stream depend only on the sizes asked for, in order.
:func:`roll_dice_code` takes ``n`` dice of the batch at once, as the high word of
``x * s**n``: the same dice, read as one base-``s`` number (an attack's 2d6 as one
of 36 outcomes); :func:`roll_d6_sum` sums up to four d6 so drawn by table.

State layout
------------
The RNG state of one encounter is a preallocated ``uint32`` array made by
:func:`new_state`, so kernels never allocate per encounter. It holds ``N_STREAMS + 1``
rows of ``STATE_COLUMNS`` words, one after the other in one dimension: column ``j`` of
row ``s`` is ``state[s * STATE_COLUMNS + j]``. Every stream in the kernels is a constant,
so each such index is a constant offset; as a two-dimensional array, each access
multiplied the row by the array's width read at run time (the fights of opposed-tiers
and zones-3d6 ran 1.08x and 1.05x as fast flat, README "Design notes"). Row
``s < N_STREAMS`` belongs to stream ``s``:

====== =====================================================================
column meaning
====== =====================================================================
0..7   the buffered words: two consecutive blocks of the stream
8      position of the next unread word in the buffer (8 = buffer empty)
9      index of the next block to compute
10     the running product ``x`` of the current batch of dice
11     dice left in the batch (0 = none)
12     faces of the batch's dice
13     dice per word for that many faces (``k``)
14     ``s**k``, the batch's range
====== =====================================================================

Row ``N_STREAMS`` is the header: ``[k0, k1, encounter_lo, encounter_hi, 0, ...]``.
:func:`start_encounter` writes the header and block 0 of every stream, into the second
half of its buffer (words 4..7, the next word 4, the next block 1): the eight blocks are
computed two at a time, their rounds interleaved (:func:`philox_pair`). After that, a
stream that needs a word computes its next two blocks at once (:func:`_refill`): their
ten rounds each are independent, so the processor works on both in about the time of
one. Short encounters, whose streams draw four words or fewer, then
compute no block one at a time: opposed-tiers' ``novice-duel``, both sides attacking,
ran 1.13x as fast (README "Design notes"). A stream whose die size keeps changing takes
a new word for each change, and glitters-d20's fights ran 1.05-1.08x as fast with two
blocks a refill (README "Design notes").

Cursors
-------
The hottest loop, a plain duel, draws dice of one size from one stream and nothing else.
It keeps that stream's position in local variables instead of the state array: a
*source* (:func:`dice_source`) and a *cursor* (:func:`cursor_at`, :func:`cursor_code`)
draw exactly the dice :func:`roll_dice_code` would. The cursor itself is the batch in
hand, two numbers that live in registers; what changes once a word (the word's place
in the block, the next block, the encounter) waits in the cursor's buffer beside the
block it reads (:data:`CURSOR_BUFFER` slots), which freed registers for the duel loops
that hold three cursors (README, "Design notes"), and :func:`first_blocks` computes
block 0 of many encounters in one loop that the compiler vectorises (block 0 holds 40
d6, all most duels need); a stream that many encounters never touch starts with
:func:`cursor_fresh`, which computes block 0 at the first draw; :func:`cursor_code_if`
draws dice only some attacks need (a hit's damage) without a branch on whether they do;
and :func:`cursor_loaded` starts a cursor with its first word drawn, for a stream whose
first draw comes at a time nothing foresees (a duel's damage dice, at its first hit).

Speed: a Philox block takes a few ns, and so did a die that cost a word of its own
(bookkeeping, the rejection test). A die from a batch is one multiplication, about
1.2 ns; that is what makes a duel of twenty dice cost about 50 ns of random numbers
through the state array. Through a cursor, the whole ``ss-duel`` encounter, rules and
tallies included, takes about 28 ns on one thread (measured).
"""

from __future__ import annotations

import numpy as np

from simlab.engine.jit import inline_kernel, internal_kernel, ir_inline_kernel, kernel, unlikely
from simlab.limits import seed_value

# Stream numbers are part of the counter. They are FIXED FOREVER: changing or reordering
# them changes every simulated result for every seed. Add new streams at the end only.
STREAM_ATTACK = 0
STREAM_REACTION = 1
STREAM_DAMAGE = 2
STREAM_WOUND = 3
STREAM_TARGET = 4
STREAM_ORDER = 5
STREAM_STATUS = 6
STREAM_SAVE = 7
N_STREAMS = 8

# Column indices of the state array (see the module docstring).
_WORDS = 4
_BUFFERED = 2 * _WORDS  # words the state buffers for a stream: two blocks (see "State layout")
_POS = _BUFFERED  # the columns after the buffer
_BLOCK = _POS + 1
_BATCH_X = _POS + 2
_BATCH_LEFT = _POS + 3
_BATCH_SIDES = _POS + 4
_BATCH_SIZE = _POS + 5
_BATCH_RANGE = _POS + 6
STATE_COLUMNS = _POS + 7
_HEADER = N_STREAMS
_HEADER_AT = _HEADER * STATE_COLUMNS  # where the header row starts
# A batch of dice spans at most 2**26 outcomes, so a word is rejected with chance < 2**-6.
_BATCH_LIMIT = np.uint64(1 << 26)
_MAX_BATCH = 26

# Philox4x32 constants (Salmon et al. 2011): round multipliers and Weyl key increments.
_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = np.uint64(0x9E3779B9)
_W1 = np.uint64(0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_TWO32 = np.uint64(2**32)
_ROUNDS = 10


# ---------------------------------------------------------------------------------------
# The block function
# ---------------------------------------------------------------------------------------


def philox4x32_reference(ctr: tuple[int, ...], key: tuple[int, ...]) -> tuple[int, ...]:
    """Compute one Philox4x32-10 block in plain Python (slow; for tests).

    Parameters
    ----------
    ctr : tuple of 4 int
        Counter words, each in 0..2**32-1.
    key : tuple of 2 int
        Key words, each in 0..2**32-1.

    Returns
    -------
    tuple of 4 int
        The four output words.
    """
    mask = 0xFFFFFFFF
    c0, c1, c2, c3 = (int(c) & mask for c in ctr)
    k0, k1 = (int(k) & mask for k in key)
    for r in range(_ROUNDS):
        if r:
            k0 = (k0 + int(_W0)) & mask
            k1 = (k1 + int(_W1)) & mask
        p0 = int(_M0) * c0
        p1 = int(_M1) * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & mask, (p0 >> 32) ^ c3 ^ k1, p0 & mask
    return (c0, c1, c2, c3)


@ir_inline_kernel
def _philox_round(c0, c1, c2, c3, k0, k1):
    """One Philox S-box/permutation round on 32-bit words held in uint64s whose high
    halves may hold anything: only the low halves are the round's words.

    The words are masked where the multiplications read them, not where each round
    makes them: a product of two values known below 2**32 is one ``vpmuludq`` lane,
    which reads only the low halves, so the compiler drops those masks; the words
    passed on unmasked are read next by an exclusive or or a multiplication, which
    keep the low halves right. :func:`philox_words` masks the block once, at its end.
    Two masks fewer a round, against masking each word as made (``bench_ab``, one
    thread, four to six rounds): the benchmark duels of glitters-d20 1.024x (1.018-1.034),
    shattered-spirits-draft1 1.025x, opposed-tiers 1.015x, zones-3d6 1.008x; the fights
    1.00x.
    """
    p0 = _M0 * (c0 & _MASK32)
    p1 = _M1 * (c2 & _MASK32)
    return (p1 >> _SHIFT32) ^ c1 ^ k0, p1, (p0 >> _SHIFT32) ^ c3 ^ k1, p0


@ir_inline_kernel
def philox_words(c0, c1, c2, c3, k0, k1):
    """One Philox4x32-10 block on uint64-held 32-bit words (inputs already masked).

    Inlined into its caller, so that a loop computing the blocks of many counters at
    once (:func:`first_blocks`) is vectorised by the compiler; by numba, before typing
    (:func:`~simlab.engine.jit.ir_inline_kernel`), as the rounds are: with LLVM's
    inlining :func:`first_blocks` came out 1,136 instructions long instead of 891. The
    rounds leave the words' high halves unmasked (:func:`_philox_round`), and so do the
    keys' Weyl steps; the block is masked once here.
    """
    c0, c1, c2, c3 = _philox_round(c0, c1, c2, c3, k0, k1)
    for _ in range(_ROUNDS - 1):
        k0 = k0 + _W0
        k1 = k1 + _W1
        c0, c1, c2, c3 = _philox_round(c0, c1, c2, c3, k0, k1)
    return c0 & _MASK32, c1 & _MASK32, c2 & _MASK32, c3 & _MASK32


@ir_inline_kernel
def philox_pair(a, b, k0, k1):
    """Two Philox4x32-10 blocks, counters ``a`` and ``b`` (4-tuples of uint64-held
    32-bit words, already masked) under one key: the words of :func:`philox_words` for
    each.

    The two blocks' rounds are written interleaved, so that the compiler keeps them
    interleaved: one block's rounds are a chain, each waiting on the multiplications
    of the one before, and the other block's fill those waits. Computing block 0 of 128
    encounters two at a time so (:func:`first_blocks`) took 2.6-2.8 ns a block instead
    of 3.4-3.7 on the 2-core machine (AVX2, no AVX-512), and the plain duels' median
    speed moved 1.01-1.04x (glitters-d20, ``bench_ab``); four at a time, the loop was no
    longer vectorised (15 ns a block). :func:`start_encounter`'s eight streams are
    computed as four pairs: once the rounds left the words' high halves unmasked
    (:func:`_philox_round`), a call took 44.5 ns against 54 ns as one loop (two million
    calls, one thread), and the fights of zones-3d6 and opposed-tiers ran 1.02x as fast,
    the others' 1.00x (``bench_ab``, six rounds).
    """
    a0, a1, a2, a3 = _philox_round(a[0], a[1], a[2], a[3], k0, k1)
    b0, b1, b2, b3 = _philox_round(b[0], b[1], b[2], b[3], k0, k1)
    for _ in range(_ROUNDS - 1):
        k0 = k0 + _W0
        k1 = k1 + _W1
        a0, a1, a2, a3 = _philox_round(a0, a1, a2, a3, k0, k1)
        b0, b1, b2, b3 = _philox_round(b0, b1, b2, b3, k0, k1)
    mask = _MASK32
    return (a0 & mask, a1 & mask, a2 & mask, a3 & mask), (b0 & mask, b1 & mask, b2 & mask,
                                                          b3 & mask)  # fmt: skip


@kernel
def philox4x32(c0, c1, c2, c3, k0, k1):
    """Compute one Philox4x32-10 block (numba kernel).

    Parameters
    ----------
    c0, c1, c2, c3 : int
        Counter words (only the low 32 bits are used).
    k0, k1 : int
        Key words (only the low 32 bits are used).

    Returns
    -------
    tuple of 4 numpy.uint32
        The four output words, in Random123's order.
    """
    x0, x1, x2, x3 = philox_words(
        np.uint64(c0) & _MASK32, np.uint64(c1) & _MASK32, np.uint64(c2) & _MASK32,
        np.uint64(c3) & _MASK32, np.uint64(k0) & _MASK32, np.uint64(k1) & _MASK32,
    )  # fmt: skip
    return np.uint32(x0), np.uint32(x1), np.uint32(x2), np.uint32(x3)


# ---------------------------------------------------------------------------------------
# Seeds and per-encounter state
# ---------------------------------------------------------------------------------------


def key_from_seed(seed: int) -> tuple[int, int]:
    """Split a 64-bit seed into the Philox key.

    Parameters
    ----------
    seed : int
        Any integer in 0..2**64-1.

    Returns
    -------
    tuple of 2 int
        ``(k0, k1)``: the low and the high 32 bits of ``seed``.

    Raises
    ------
    InputError
        If ``seed`` is not an integer in 0..2**64-1 (:func:`simlab.limits.seed_value`).
    """
    value = seed_value(seed)
    return value & 0xFFFFFFFF, value >> 32


def new_state() -> np.ndarray:
    """Allocate the RNG state of one encounter (once per chunk, not per encounter).

    Plain numpy, not a kernel: made in Python for each chunk, it spares a first run the
    compile of an allocating kernel and of numba's ``np.zeros`` (0.5-1 s).

    Returns
    -------
    numpy.ndarray
        ``uint32`` array of ``(N_STREAMS + 1) * STATE_COLUMNS`` words, laid out as
        described in the module docstring; every stream buffer starts empty and the key
        is zero.
    """
    state = np.zeros((N_STREAMS + 1) * STATE_COLUMNS, dtype=np.uint32)
    state[_POS : N_STREAMS * STATE_COLUMNS : STATE_COLUMNS] = _BUFFERED
    return state


@kernel
def start_encounter(state, k0, k1, encounter):
    """Point ``state`` at the start of one encounter's streams.

    Parameters
    ----------
    state : numpy.ndarray
        A state from :func:`new_state`; overwritten.
    k0, k1 : int
        The key from :func:`key_from_seed`.
    encounter : int
        Encounter index (int64 or uint64; its 64 bits form the counter's low words).

    Notes
    -----
    Every stream restarts at block 0, so what an encounter draws never depends on what
    was drawn before it. Block 0 of every stream is computed here, two at a time (see
    "State layout" in the module docstring).
    """
    key0, key1 = np.uint64(k0) & _MASK32, np.uint64(k1) & _MASK32
    e0, e1 = np.uint64(encounter) & _MASK32, np.uint64(encounter) >> _SHIFT32
    state[_HEADER_AT + 0], state[_HEADER_AT + 1] = key0, key1
    state[_HEADER_AT + 2], state[_HEADER_AT + 3] = e0, e1
    half, block = N_STREAMS // 2, np.uint64(0)
    for s in range(half):  # block 0 of streams s and s + half side by side (philox_pair)
        wa, wb = philox_pair((e0, e1, np.uint64(s), block),
                             (e0, e1, np.uint64(s + half), block), key0, key1)  # fmt: skip
        for j in range(_WORDS):  # into the second half of each buffer
            state[s * STATE_COLUMNS + _WORDS + j] = wa[j]
            state[(s + half) * STATE_COLUMNS + _WORDS + j] = wb[j]
    for s in range(N_STREAMS):
        s_row = s * STATE_COLUMNS
        state[s_row + _POS] = _WORDS
        state[s_row + _BLOCK] = 1
        state[s_row + _BATCH_LEFT] = 0


@kernel
def _refill(state, stream):
    """Compute the stream's next blocks, as many as its buffer holds (two); advance its
    block index past them. The blocks are independent of each other, so the processor
    computes them side by side (the loop has a constant count, and is unrolled)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    block = np.uint64(state[row + _BLOCK])
    e0, e1 = np.uint64(state[_HEADER_AT + 2]), np.uint64(state[_HEADER_AT + 3])
    k0, k1 = np.uint64(state[_HEADER_AT + 0]), np.uint64(state[_HEADER_AT + 1])
    s = np.uint64(stream)
    for b in range(_BUFFERED // _WORDS):
        w0, w1, w2, w3 = philox_words(e0, e1, s, block + np.uint64(b), k0, k1)
        at = row + _WORDS * b
        state[at], state[at + 1], state[at + 2], state[at + 3] = w0, w1, w2, w3
    state[row + _BLOCK] = block + np.uint64(_BUFFERED // _WORDS)


@kernel
def _refill_one(state, stream):
    """Compute the stream's next block alone, into the second half of its buffer (where
    :func:`start_encounter` puts block 0), the next word its first; advance its block
    index past it. The same words as :func:`_refill`'s, for a stream that draws only a
    word or two past its block 0 (the turn order's shuffle, :func:`roll_die_short`)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    block = np.uint64(state[row + _BLOCK])
    e0, e1 = np.uint64(state[_HEADER_AT + 2]), np.uint64(state[_HEADER_AT + 3])
    k0, k1 = np.uint64(state[_HEADER_AT + 0]), np.uint64(state[_HEADER_AT + 1])
    w0, w1, w2, w3 = philox_words(e0, e1, np.uint64(stream), block, k0, k1)
    at = row + _WORDS
    state[at], state[at + 1], state[at + 2], state[at + 3] = w0, w1, w2, w3
    state[row + _BLOCK] = block + np.uint64(1)
    state[row + _POS] = _WORDS


@inline_kernel
def _next_u32_short(state, stream):
    """:func:`next_u32`, the same word, a block computed at a time (:func:`_refill_one`)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    pos = np.int64(state[row + _POS])
    if pos >= _BUFFERED:
        _refill_one(state, stream)
        pos = np.int64(_WORDS)
    state[row + _POS] = pos + 1
    return state[row + pos]


@inline_kernel
def next_u32(state, stream):
    """Return the next 32-bit word of one stream.

    Parameters
    ----------
    state : numpy.ndarray
        The encounter's state (see :func:`start_encounter`).
    stream : int
        One of the ``STREAM_*`` constants.

    Returns
    -------
    numpy.uint32
        Word ``i`` of the stream is word ``i % 4`` of Philox block ``i // 4``.
    """
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    pos = np.int64(state[row + _POS])
    if pos >= _BUFFERED:
        _refill(state, stream)
        pos = np.int64(0)
    state[row + _POS] = pos + 1
    return state[row + pos]


# ---------------------------------------------------------------------------------------
# Dice
# ---------------------------------------------------------------------------------------


def _batch_shape_python(sides: int) -> tuple[int, int]:
    """:func:`batch_shape` in plain Python (for its table, and for tests)."""
    k, span = 1, sides
    while k < _MAX_BATCH and span * sides <= int(_BATCH_LIMIT):
        k += 1
        span *= sides
    return k, span


_TABLED_SIDES = 128  # batch_shape looks dice of at most this many faces up
_BATCH_K = np.array([_batch_shape_python(s)[0] for s in range(_TABLED_SIDES + 1)], np.int64)
_BATCH_SPAN = np.array([_batch_shape_python(s)[1] for s in range(_TABLED_SIDES + 1)], np.uint64)
# _DIE_POWERS[s, n] is s**n, the outcomes of n dice of s faces, for every n up to what a
# batch of them holds (0 beyond): cursor_code reads a batch's last dice and the next
# batch's first as one number each
_DIE_POWERS = np.array(
    [
        [s**n if n <= _BATCH_K[s] else 0 for n in range(_MAX_BATCH + 1)]
        for s in range(_TABLED_SIDES + 1)
    ],
    np.uint64,
)
# _BATCH_BOUND[s] is Lemire's rejection bound (2**32 mod the range) of a batch of dice of
# s faces: a cursor whose dice change size (cursor_dice) starts a batch at most dice
_BATCH_BOUND = np.array([(2**32 % int(span)) if span else 0 for span in _BATCH_SPAN], np.uint64)


@kernel
def batch_shape(sides):
    """Dice per word for dice of ``sides`` faces, and the range they span: ``(k,
    sides**k)`` with ``k`` the largest count (at most 26, at least 1) such that
    ``sides**k <= 2**26``.

    Looked up for dice of up to ``_TABLED_SIDES`` faces: a stream whose die size
    changes (a d6 attack, then a d4 damage die) starts a batch at each change, and the
    loop took up to 26 steps each time.
    """
    if 0 <= sides <= _TABLED_SIDES:
        return _BATCH_K[sides], _BATCH_SPAN[sides]
    s = np.uint64(sides)
    k = 1
    span = s
    while k < _MAX_BATCH and span * s <= _BATCH_LIMIT:
        k += 1
        span *= s
    return k, span


def batch_size(sides: int) -> int:
    """How many dice of ``sides`` faces one word gives (see :func:`batch_shape`)."""
    return int(batch_shape(sides)[0])


@kernel
def _start_batch(state, stream, sides):
    """Draw the next accepted word of the stream as a batch of dice of ``sides`` faces."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_SIDES] != sides:
        k, span = batch_shape(sides)
        state[row + _BATCH_SIDES] = sides
        state[row + _BATCH_SIZE] = k
        state[row + _BATCH_RANGE] = span
    state[row + _BATCH_X] = _accepted_word(state, stream, np.uint64(state[row + _BATCH_RANGE]))
    state[row + _BATCH_LEFT] = state[row + _BATCH_SIZE]


@inline_kernel
def _accepted_word(state, stream, span):
    """The stream's next word that Lemire's test accepts for a batch of ``span`` outcomes
    (module docstring, "Dice"). The bound ``(2**32 - span) % span`` is below ``span``, so
    it is worked out only for the few words whose low part falls under ``span``; with
    ``span`` a constant (:func:`_start_d6_batch`) the compiler works it out once."""
    while True:
        u = np.uint64(next_u32(state, stream))
        if _accepts(u, span):
            return u


@inline_kernel
def _accepts(u, span):
    """Whether Lemire's test accepts word ``u`` for a batch of ``span`` outcomes: the low
    part of ``u * span`` is at least ``2**32 mod span``, a bound below ``span`` worked out
    only when the low part falls under ``span``."""
    low = (u * span) & _MASK32
    return low >= span or low >= (_TWO32 - span) % span


@inline_kernel
def roll_die(state, stream, sides):
    """Roll one die, exactly uniform on 1..sides.

    The die is the next one of the stream's current batch (see the module docstring):
    one multiplication, ``(x * sides) >> 32``. A new batch is started from the next word
    when the batch is used up or was of another size.

    Parameters
    ----------
    state : numpy.ndarray
        The encounter's state.
    stream : int
        One of the ``STREAM_*`` constants.
    sides : int
        Number of faces, 1..2**32-1.

    Returns
    -------
    numpy.int64
        The face rolled, in 1..sides.
    """
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_LEFT] == 0 or state[row + _BATCH_SIDES] != sides:
        _start_batch(state, stream, sides)
    return _take_dice(state, stream, 1, np.uint64(sides)) + 1


@inline_kernel
def roll_die_marked(state, stream, sides):
    """:func:`roll_die`, the same die, for a stream drawn through this alone: a batch
    used up is marked by a die size of 0, so that one compare of the size finds when a
    new batch starts, where :func:`roll_die` tests the dice left as well (two branches,
    each a guess when the die's size changes from roll to roll). The mark must be set
    at the encounter's start too (:func:`forget_batch`)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_SIDES] != sides:
        _start_batch(state, stream, sides)
    x = np.uint64(state[row + _BATCH_X]) * np.uint64(sides)
    state[row + _BATCH_X] = x & _MASK32
    left = np.int64(state[row + _BATCH_LEFT]) - 1
    state[row + _BATCH_LEFT] = left
    state[row + _BATCH_SIDES] = sides if left != 0 else 0
    return np.int64(x >> _SHIFT32) + 1


@inline_kernel
def forget_batch(state, stream):
    """Mark the stream's batch as used up for :func:`roll_die_marked` (after
    :func:`start_encounter`, which empties every batch but keeps its size)."""
    state[stream * STATE_COLUMNS + _BATCH_SIDES] = 0


@inline_kernel
def roll_die_short(state, stream, sides):
    """:func:`roll_die`, the same die, its words drawn a block at a time
    (:func:`_next_u32_short`): for a stream that draws only a few words an encounter,
    where :func:`_refill`'s second block would go unused. Each new batch's shape is
    looked up and its word tested in line. The turn order's shuffle, which draws one
    word past block 0 in most encounters that shuffle, computed 1 block instead of 2:
    154 instructions a refill instead of 265, 28 an encounter of glitters-d20's
    benchmark fight (callgrind)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_LEFT] == 0 or state[row + _BATCH_SIDES] != sides:
        k, span = batch_shape(sides)
        u = np.uint64(_next_u32_short(state, stream))
        while not _accepts(u, span):
            u = np.uint64(_next_u32_short(state, stream))
        _hold_batch(state, row, u, k, sides, span)
    return _take_dice(state, stream, 1, np.uint64(sides)) + 1


@inline_kernel
def roll_die_in_line(state, stream, sides):
    """:func:`roll_die`, the same die, with a new batch started by :func:`_begin_batch`:
    the batch's shape looked up (folded to constants where the die's size is one) and
    the word's acceptance test with no loop on its common path. For the one roll of a
    fight's turn that runs most often.

    :func:`roll_die`'s :func:`_start_batch` is a call in numba's terms, but the compiler
    inlines it into the encounter loop all the same (no call to it is left in glitters-
    d20's compiled fight), with the test's loop on the common path and the batch's
    shape checked against the one in hand. With the attack's d20 drawn by this instead,
    the same work on the common path in another shape, glitters-d20's fights and
    two-sided duels ran 1.23-1.50x as fast (``bench_ab``, one thread); why the shape
    matters that much was not measured (this machine has no hardware counters). Every
    :func:`roll_die` of every system so drawn made opposed-tiers' ``party-fight`` 0.93x
    as fast and the other fights 0.98-1.01x, so the other rolls keep it; the hottest
    dice of the d6 systems, a few d6 summed, start their batches in line already
    (:func:`roll_d6_sum`). Each other roll tried alone: zones-3d6's d6 with advantage
    kept it (``edge-vs-no-edge`` 1.08x); glitters-d20's damage dice (0.72-0.97x),
    zones-3d6's (0.99-1.01x), opposed-tiers' shield and armor die (0.99-1.00x) and the
    random target's pick (glitters-d20's fights 0.89x) did not.
    """
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_LEFT] == 0 or state[row + _BATCH_SIDES] != sides:
        _begin_batch(state, stream, sides)
    return _take_dice(state, stream, 1, np.uint64(sides)) + 1


@inline_kernel
def _begin_batch(state, stream, sides):
    """:func:`_start_batch`'s new batch, its shape looked up (dice of up to
    ``_TABLED_SIDES`` faces; more go to :func:`_start_batch`), and the word tested with
    no loop on the common path: a word whose low part is at least the batch's span is
    accepted at once (the test's bound is below the span); only the others (at most 1
    in 64) go on to :func:`_accepted_from` and its loop. The loop of
    :func:`_accepted_word` in its place made glitters-d20's fights 0.91-0.96x as fast;
    :func:`_start_d6_batch` with the test shaped so made the d6 fights 0.88-0.98x as
    fast (``bench_ab``)."""
    if sides > _TABLED_SIDES:
        _start_batch(state, stream, sides)
        return
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    k, span = _BATCH_K[sides], _BATCH_SPAN[sides]
    u = np.uint64(next_u32(state, stream))
    if (u * span) & _MASK32 < span:
        u = _accepted_from(state, stream, span, u)
    _hold_batch(state, row, u, k, sides, span)


@inline_kernel
def _hold_batch(state, row, u, k, sides, span):
    """Make the accepted word ``u`` the batch in hand of the stream at ``row``: ``k``
    dice of ``sides`` faces, ``span`` outcomes (:func:`_begin_batch`,
    :func:`roll_die_short`)."""
    state[row + _BATCH_X] = u
    state[row + _BATCH_LEFT] = k
    state[row + _BATCH_SIDES] = sides
    state[row + _BATCH_SIZE] = k
    state[row + _BATCH_RANGE] = span


@kernel
def _accepted_from(state, stream, span, u):
    """The first word from ``u`` on (``u`` drawn already, then the stream's next words)
    that Lemire's test accepts for a batch of ``span`` outcomes (:func:`_accepted_word`)."""
    while not _accepts(u, span):
        u = np.uint64(next_u32(state, stream))
    return u


@inline_kernel
def roll_dice_code(state, stream, sides, count):
    """Roll ``count`` dice at once and return them as one number.

    The dice are exactly those of ``count`` calls of :func:`roll_die`, in the same order;
    the result reads their faces minus 1 as base-``sides`` digits, the first die most
    significant (two d6 showing 3 and 5 give ``2 * 6 + 4``). When the batch in hand
    still holds ``count`` dice of this size, they are the high word of ``x *
    sides**count``: one multiplication instead of ``count``.

    Parameters
    ----------
    state : numpy.ndarray
        The encounter's state.
    stream : int
        One of the ``STREAM_*`` constants.
    sides : int
        Number of faces of each die, at least 2.
    count : int
        Number of dice, at least 1, with ``sides**count <= 2**32``.

    Returns
    -------
    numpy.int64
        A number in ``0 .. sides**count - 1``.
    """
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    if state[row + _BATCH_LEFT] >= count and state[row + _BATCH_SIDES] == sides:
        span = np.uint64(sides)
        for _ in range(count - 1):
            span *= np.uint64(sides)
        return _take_dice(state, stream, count, span)
    code = np.int64(0)
    for _ in range(count):
        code = code * sides + roll_die(state, stream, sides) - 1
    return code


#: :func:`roll_d6_sum` adds up to this many d6.
MAX_SUMMED_D6 = 4
# Entry ``code`` is the sum of the base-6 digits of ``code``: of the faces, less 1 each, of
# the d6 that roll_dice_code read as ``code``.
_D6_DIGIT_SUM = np.array(
    [sum((code // 6**i) % 6 for i in range(MAX_SUMMED_D6)) for code in range(6**MAX_SUMMED_D6)],
    dtype=np.int64,
)
_D6_SPAN = np.array([6**count for count in range(MAX_SUMMED_D6 + 1)], dtype=np.uint64)


@inline_kernel
def roll_d6_sum(state, stream, count):
    """The sum of ``count`` d6 (1 to :data:`MAX_SUMMED_D6`), the same dice as ``count``
    calls of :func:`roll_die`. While the batch in hand holds them they are taken at once,
    as :func:`roll_dice_code` would, and their digits summed by table; when it holds none
    (used up, or dice of another size: a tiers' defense after a shield's die) a d6 batch
    is started in line and they are taken from it. Only a sum split between the batch's
    last dice and the next batch calls :func:`_d6_sum_across_batches` (inlined too, it
    added 5 s to opposed-tiers' first run; the new batch in line adds 1-2 s)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    d6_left = np.int64(state[row + _BATCH_LEFT]) if state[row + _BATCH_SIDES] == 6 else 0
    if d6_left < count:
        if d6_left > 0:
            return _d6_sum_across_batches(state, stream, count)
        _start_d6_batch(state, stream)
    return count + _D6_DIGIT_SUM[_take_d6(state, stream, count)]


@kernel
def _d6_sum_across_batches(state, stream, count):
    """:func:`roll_d6_sum` when the batch in hand holds some d6, but fewer than
    ``count``: those it holds, then the rest from a new batch."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    left = np.int64(state[row + _BATCH_LEFT])
    first = _D6_DIGIT_SUM[_take_d6(state, stream, left)]
    _start_d6_batch(state, stream)
    return count + first + _D6_DIGIT_SUM[_take_d6(state, stream, count - left)]


_D6_BATCH = _batch_shape_python(6)  # (d6 a word, their outcomes)


@inline_kernel
def _start_d6_batch(state, stream):
    """:func:`_start_batch` of d6, with the batch's shape, and so the rejection bound,
    constants (a d6 sum that crosses a batch is common: a fight's 3d6 does every third
    or fourth roll)."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    state[row + _BATCH_SIDES] = 6
    state[row + _BATCH_SIZE] = _D6_BATCH[0]
    state[row + _BATCH_RANGE] = _D6_BATCH[1]
    state[row + _BATCH_X] = _accepted_word(state, stream, np.uint64(_D6_BATCH[1]))
    state[row + _BATCH_LEFT] = _D6_BATCH[0]


@inline_kernel
def _take_d6(state, stream, n):
    """The next ``n`` d6 of the stream's batch (which holds them) as one number, read as
    :func:`roll_dice_code` reads it."""
    return _take_dice(state, stream, n, _D6_SPAN[n])


@inline_kernel
def _take_dice(state, stream, n, span):
    """The next ``n`` dice of the stream's batch (which holds them), ``span`` their number
    of outcomes, as one base-``sides`` number: the high word of ``x * span``."""
    row = stream * STATE_COLUMNS  # the stream's words (module docstring)
    x = np.uint64(state[row + _BATCH_X]) * span
    state[row + _BATCH_X] = x & _MASK32
    state[row + _BATCH_LEFT] -= n
    return np.int64(x >> _SHIFT32)


@inline_kernel
def faces_of_code(code, sides, count, out):
    """Write the ``count`` faces (1..``sides``) that ``code`` stands for, as
    :func:`roll_dice_code` returns it (first die most significant), to ``out[:count]``:
    its inverse, for tables made over every outcome of a roll."""
    for i in range(count - 1, -1, -1):
        out[i] = code % sides + 1
        code //= sides


@inline_kernel
def outcomes_within(sides, count, limit):
    """``sides ** count``, the outcomes of ``count`` dice of ``sides`` faces, or
    ``limit + 1`` as soon as that is more than ``limit``: whether a table over every
    outcome of a roll fits ``limit`` entries. (The power itself wraps around in int64
    for dice a scenario allows, 12d40 or 7d1000, and could then look small.)"""
    span = 1
    for _ in range(count):
        span *= sides
        if span > limit:
            return limit + 1
    return span


@inline_kernel
def uniform_index(state, stream, n):
    """Draw an index exactly uniform on 0..n-1 (for random choices).

    Parameters
    ----------
    state : numpy.ndarray
        The encounter's state.
    stream : int
        One of the ``STREAM_*`` constants.
    n : int
        Number of choices, 1..2**32-1.

    Returns
    -------
    numpy.int64
        The chosen index.
    """
    return roll_die(state, stream, n) - 1


# ---------------------------------------------------------------------------------------
# Dice held in registers: one stream, one die size, for the tightest loops
# ---------------------------------------------------------------------------------------
# (see "Cursors" in the module docstring)
#
# The cursors are ir_inline_kernels (numba inlines them before typing), not inline
# kernels (LLVM inlines them): zones-3d6-duel ran 0.78x as fast with LLVM's inlining, and
# their call sites are few (the duel loops), so the compile time they cost is small.


@kernel
def dice_source(k0, k1, stream, sides):
    """What a cursor draws: dice of ``sides`` faces from one stream.

    Parameters
    ----------
    k0, k1 : int
        The key from :func:`key_from_seed`.
    stream : int
        One of the ``STREAM_*`` constants.
    sides : int
        Faces of every die drawn, at least 2.

    Returns
    -------
    tuple
        ``(k0, k1, stream, sides, dice per word, their range, rejection threshold)``:
        the batch shape of :func:`batch_shape` and the threshold of :func:`_start_batch`.
    """
    per_word, span = batch_shape(sides)
    return (
        np.uint64(k0) & _MASK32, np.uint64(k1) & _MASK32, np.uint64(stream),
        np.uint64(sides), np.int64(per_word), span, (_TWO32 - span) % span,
    )  # fmt: skip


@ir_inline_kernel
def _source_block(source, encounter, block):
    """Block ``block`` of the source's stream for ``encounter`` (a uint64): four words."""
    return philox_words(
        encounter & _MASK32, encounter >> _SHIFT32, np.uint64(source[2]), np.uint64(block),
        np.uint64(source[0]), np.uint64(source[1]),
    )  # fmt: skip


# a cursor's buffer: the block it reads (words 0-3), then its next word, its next block
# and its encounter
_CURSOR_WORD, _CURSOR_BLOCK, _CURSOR_ENCOUNTER = 4, 5, 6
#: Slots of a cursor's buffer (``uint64``; :func:`cursor_at`).
CURSOR_BUFFER = 7
CURSOR_GROUP = 128  # encounters whose block 0 first_blocks computes in one loop


@kernel
def first_blocks(source, first, words):
    """Compute block 0 of the source's stream for ``G`` consecutive encounters.

    Parameters
    ----------
    source : tuple
        From :func:`dice_source`.
    first : int
        The first encounter's index.
    words : numpy.ndarray
        ``uint64[4, G]``, overwritten: ``words[j, i]`` becomes word ``j`` of block 0 of
        encounter ``first + i``.

    Notes
    -----
    Encounters ``i`` and ``i + G//2`` are computed together (:func:`philox_pair`): two
    blocks side by side in each step of a loop the compiler vectorises (the last
    encounter alone when ``G`` is odd).
    """
    half = words.shape[1] // 2
    if words.shape[1] % 2:
        last = words.shape[1] - 1
        w = _source_block(source, np.uint64(first + last), 0)
        for j in range(_WORDS):
            words[j, last] = w[j]
    stream, k0, k1 = np.uint64(source[2]), np.uint64(source[0]), np.uint64(source[1])
    block = np.uint64(0)
    for i in range(half):
        a, b = np.uint64(first + i), np.uint64(first + i + half)
        wa, wb = philox_pair((a & _MASK32, a >> _SHIFT32, stream, block),
                             (b & _MASK32, b >> _SHIFT32, stream, block), k0, k1)  # fmt: skip
        for j in range(_WORDS):
            words[j, i] = wa[j]
            words[j, i + half] = wb[j]


@ir_inline_kernel
def cursor_at(words, i, encounter, buffer):
    """Start a cursor at the beginning of one encounter's stream.

    Parameters
    ----------
    words : numpy.ndarray
        Block 0 of several encounters, from :func:`first_blocks`.
    i : int
        The column of ``words`` that belongs to ``encounter``.
    encounter : int
        The encounter's index.
    buffer : numpy.ndarray
        ``uint64``, at least :data:`CURSOR_BUFFER` long, overwritten: the block the
        cursor reads from, then its next word, next block and encounter.

    Returns
    -------
    tuple
        The cursor: ``(batch product, dice left)``, the batch in hand.
    """
    for j in range(_WORDS):
        buffer[j] = words[j, i]
    buffer[_CURSOR_WORD], buffer[_CURSOR_BLOCK] = 0, 1
    buffer[_CURSOR_ENCOUNTER] = np.uint64(encounter)
    return np.uint64(0), np.int64(0)


@ir_inline_kernel
def cursor_loaded(source, words, i, encounter, buffer):
    """Start a cursor as :func:`cursor_at` does, with the stream's first accepted word
    already drawn: a cursor holding a whole batch.

    Parameters
    ----------
    source : tuple
        From :func:`dice_source`.
    words, i, encounter, buffer
        As for :func:`cursor_at`.

    Returns
    -------
    tuple
        The cursor: ``(batch product, dice left)``, the first word's whole batch.

    Notes
    -----
    The dice are the same: the stream's first die comes from that word either way, and
    a draw of no dice (a miss's row of a duel's damage table) reads nothing from it. A
    stream never drawn from in the encounter has drawn a word no one reads, which moves
    no other encounter's dice. What changes is where the word is drawn: a duel's damage
    cursor started empty drew its first word at the first hit, and whether an attack
    pair holds the first hit is what a branch cannot foresee. Started loaded, the
    benchmark duels of glitters-d20, opposed-tiers and zones-3d6 ran 1.06-1.11x as fast
    (``bench_ab``). Their attack cursors, which draw at the first attack, ran 0.89-0.98x
    as fast started so, and so did zones-3d6's general duel loop with its damage cursor
    loaded (``training-duel`` 0.94x): only the one-attack and pair loops start it so,
    and opposed-tiers' pair loop its attack and defense cursors too, once the first
    word was read as below (1.06x; README, "Design notes"). Tried again on December 2
    (``bench_ab``, one thread, 2×10⁶ encounters): glitters-d20's d20 cursor started
    loaded ran its benchmark duel 1.051-1.063x as fast and ``training-duel`` 1.021x, so
    glitters-d20's one-attack and pair loops start it so; shattered-spirits' and
    draft1's duels ran 0.97x as fast, zones-3d6's 0.99x (its ``training-duel`` 1.04x):
    those start it empty.

    The first word is read from ``words``, where :func:`first_blocks` left it, not back
    from ``buffer`` just after :func:`cursor_at` copied it there: a load that waits on
    that store (and on the one of the cursor's place before it) at the start of every
    encounter. Read so, the benchmark duels of glitters-d20, opposed-tiers and zones-3d6
    ran 1.03-1.05x as fast (``bench_ab``, two threads).
    """
    cursor_at(words, i, encounter, buffer)
    u = words[0, i]
    if _accepted(source, u):  # read where it was computed, not back from the buffer
        buffer[_CURSOR_WORD] = 1
        return u, np.int64(source[4])
    return _cursor_word(source, buffer), np.int64(source[4])


@ir_inline_kernel
def cursor_fresh(encounter, buffer):
    """A cursor at the beginning of one encounter's stream whose block 0 is computed
    only when its first die is drawn: for a stream that many encounters never use (a
    duel's damage dice, rolled only on a hit). Of its ``buffer`` (see :func:`cursor_at`)
    only where it is gets written. Returns the cursor."""
    buffer[_CURSOR_WORD], buffer[_CURSOR_BLOCK] = _WORDS, 0
    buffer[_CURSOR_ENCOUNTER] = np.uint64(encounter)
    return np.uint64(0), np.int64(0)


@ir_inline_kernel
def _cursor_word(source, buffer):
    """The next accepted word of a cursor's stream (as :func:`_start_batch`); moves the
    cursor's place in its buffer."""
    pos = np.int64(buffer[_CURSOR_WORD])
    while True:
        if unlikely(pos == _WORDS):  # a new block: once in four words
            block = buffer[_CURSOR_BLOCK]
            w0, w1, w2, w3 = _source_block(source, buffer[_CURSOR_ENCOUNTER], block)
            buffer[0], buffer[1], buffer[2], buffer[3] = w0, w1, w2, w3
            pos = np.int64(0)
            buffer[_CURSOR_BLOCK] = block + np.uint64(1)
        u = buffer[pos]
        pos += 1
        if _accepted(source, u):
            buffer[_CURSOR_WORD] = pos
            return u


@ir_inline_kernel
def _accepted(source, u):
    """Whether the word ``u`` of a cursor's stream is accepted, not rejected: Lemire's
    test of :func:`_accepts`, with its bound worked out once for the stream by
    :func:`dice_source` (``source[6]``) rather than on the word's rare path."""
    return (u * np.uint64(source[5])) & _MASK32 >= np.uint64(source[6])


@ir_inline_kernel
def cursor_code(source, buffer, cursor, count, span):
    """Roll ``count`` dice from a cursor: the dice :func:`roll_dice_code` would roll.

    Parameters
    ----------
    source : tuple
        From :func:`dice_source`.
    buffer : numpy.ndarray
        The cursor's buffer (see :func:`cursor_at`).
    cursor : tuple
        From :func:`cursor_at` or the previous call.
    count : int
        Number of dice, at least 1.
    span : numpy.uint64
        ``sides ** count``, their number of outcomes (the caller computes it once).

    Returns
    -------
    tuple
        ``(code, cursor)``: the dice as one base-``sides`` number, first die most
        significant, and the cursor moved past them.

    Notes
    -----
    Dice that the batch in hand holds are one multiplication by ``span``. When it holds
    fewer, its last dice and the first of the next word's batch are one multiplication
    each (by ``sides`` to the power of their count, :data:`_DIE_POWERS`), joined as
    digits: the same number as the dice read one at a time, without a loop over them
    (measured with ``bench_ab`` on the five benchmark duels: 1.00-1.12x). More dice than
    a batch holds, and dice of more faces than :data:`_DIE_POWERS` tables (128), are read
    one at a time.
    """
    x, left = cursor
    per_word = source[4]
    if left >= count:
        y = x * span
        return np.int64(y >> _SHIFT32), (y & _MASK32, left - count)
    if left == 0 and count <= per_word:  # all from the next word's batch, at once
        x = _cursor_word(source, buffer)
        y = x * span
        return np.int64(y >> _SHIFT32), (y & _MASK32, per_word - count)
    rest = count - left
    if np.int64(source[3]) < _DIE_POWERS.shape[0] and rest <= per_word:
        # the batch's last dice at once, then the rest from the next word's batch at once
        head = np.int64((x * _DIE_POWERS[source[3], left]) >> _SHIFT32)
        x = _cursor_word(source, buffer)
        rest_span = _DIE_POWERS[source[3], rest]
        y = x * rest_span
        code = head * np.int64(rest_span) + np.int64(y >> _SHIFT32)
        return code, (y & _MASK32, per_word - rest)
    return _cursor_dice_one_by_one(source, buffer, x, left, count)


@internal_kernel
def _cursor_dice_one_by_one(source, buffer, x, left, count):
    """:func:`cursor_code` one die at a time: for more dice than a batch holds, or dice
    of more faces than :data:`_DIE_POWERS` tables. A call, not inlined: rare, and each
    copy of the Philox rounds inlined at every roll of every duel loop cost compile time
    (README, "Design notes")."""
    sides = np.uint64(source[3])
    per_word = source[4]
    code = np.int64(0)
    for _ in range(count):
        if left == 0:
            x = _cursor_word(source, buffer)
            left = per_word
        y = x * sides
        code = code * np.int64(sides) + np.int64(y >> _SHIFT32)
        x = y & _MASK32
        left -= 1
    return code, (x, left)


@ir_inline_kernel
def cursor_code_if(source, buffer, cursor, count, span, take):
    """Roll ``count`` dice from a cursor only if ``take``: :func:`cursor_code` when
    ``take``, else nothing drawn, with no branch on ``take`` while the batch in hand
    holds the dice.

    Parameters
    ----------
    source, buffer, cursor, count, span
        As for :func:`cursor_code`.
    take : bool
        Whether the dice are drawn (a hit's damage dice: whether it hit).

    Returns
    -------
    tuple
        ``(code, cursor)``. When ``take`` the dice and the moved cursor of
        :func:`cursor_code`; else the cursor unchanged and a code in ``0 .. span-1`` that
        means nothing (the caller multiplies what it looks up by ``take``).

    Notes
    -----
    A hit's damage dice are drawn only on a hit, which nothing can foresee: a branch on
    it is mispredicted about as often as the attack misses. Here the dice are read from
    the batch every time and the cursor moves past them only if ``take``, by selects;
    the branch left is whether the batch holds them, which goes the same way for a
    batch's worth of hits (zones-3d6's plain duel: 1.22-1.36x, README "Design notes").
    """
    x, left = cursor
    if left >= count:
        y = x * span
        x = y & _MASK32 if take else x
        left = left - count if take else left
        return np.int64(y >> _SHIFT32), (x, left)
    if take:
        return cursor_code(source, buffer, cursor, count, span)
    return np.int64(0), cursor


@ir_inline_kernel
def sized_source(source, sides):
    """``source`` (:func:`dice_source`) made to draw dice of ``sides`` faces: the same
    stream, with the batch shape and rejection bound of that size, looked up for dice
    of up to ``_TABLED_SIDES`` faces."""
    if 0 < sides <= _TABLED_SIDES:
        k, span, bound = _BATCH_K[sides], _BATCH_SPAN[sides], _BATCH_BOUND[sides]
    else:
        k, span = batch_shape(sides)
        bound = (_TWO32 - span) % span
    return (source[0], source[1], source[2], np.uint64(sides), np.int64(k), span, bound)


@ir_inline_kernel
def cursor_dice(source, buffer, cursor, count, sides, span):
    """Roll ``count`` dice of ``sides`` faces from a cursor whose dice change size: the
    dice :func:`roll_dice_code` would roll from the state, as one number.

    Parameters
    ----------
    source : tuple
        From :func:`dice_source`, of any die size: only its stream is read.
    buffer : numpy.ndarray
        The cursor's buffer (:func:`cursor_fresh` or :func:`cursor_at`).
    cursor : tuple
        ``(batch product, dice left, faces of the batch's dice)``: a cursor of
        :func:`cursor_code` with the size of the dice in hand; ``(0, 0, 0)`` at the
        start of an encounter.
    count : int
        Number of dice, at least 1.
    sides : int
        Their faces.
    span : numpy.uint64
        ``sides ** count``.

    Returns
    -------
    tuple
        ``(code, cursor)`` as :func:`cursor_code` returns them, the cursor holding dice
        of ``sides`` faces.

    Notes
    -----
    As :func:`roll_die` does, dice of another size than the batch in hand start a new
    batch from the stream's next accepted word, and the rest of the old batch is never
    read. A damage roll of dice of two sizes (``1d8+1d4``), or two attacks whose dice
    differ, start a batch at nearly every die; through the state array each such die
    took a call and seven reads and writes of memory.
    """
    x, left, held = cursor
    if held != sides:
        left = np.int64(0)  # dice of another size: the rest of their batch is dropped
    code, (x, left) = cursor_code(sized_source(source, sides), buffer, (x, left), count, span)
    return code, (x, left, np.int64(sides))


@ir_inline_kernel
def split_code(code, span, magic):
    """The two rolls that ``code`` (:func:`cursor_code` of both at once) reads, the first
    of ``span_first`` outcomes and the second of ``span``: ``divmod(code, span)``, by a
    multiplication by ``magic`` (:func:`split_magic`) instead of a division.

    Parameters
    ----------
    code, span, magic : numpy.uint64
        ``code < span_first * span``, and ``span_first * span * span <= 2**32``: then the
        multiplication gives the quotient exactly.

    Returns
    -------
    tuple of numpy.uint64
        The first roll's number and the second's.
    """
    first = (code * magic) >> _SHIFT32
    return first, code - first * span


@ir_inline_kernel
def split_magic(span):
    """``ceil(2**32 / span)`` as a ``numpy.uint64``, for :func:`split_code`."""
    span = np.uint64(span)
    return (_TWO32 + span - np.uint64(1)) // span


@kernel
def _top_k_sum(values, n, k, sign):
    """Sum the ``k`` largest of ``sign * values[:n]`` (times ``sign``); partially sorts."""
    total = 0
    for j in range(k):
        best = j
        for i in range(j + 1, n):
            if sign * values[i] > sign * values[best]:
                best = i
        values[j], values[best] = values[best], values[j]
        total += values[j]
    return total


@kernel
def sum_kept(values, n, keep_mode, keep_n):
    """Sum the dice kept from ``values[:n]``.

    Parameters
    ----------
    values : numpy.ndarray
        int64 array whose first ``n`` entries are the faces rolled; reordered in place.
    n : int
        Number of dice rolled.
    keep_mode : int
        0 keep all, 1 keep the ``keep_n`` highest, 2 keep the ``keep_n`` lowest.
    keep_n : int
        How many dice to keep (clamped to 0..n).

    Returns
    -------
    numpy.int64
        Sum of the kept dice.

    Notes
    -----
    Uses a partial selection sort over whichever side is smaller (the kept or the
    dropped dice), so e.g. "4d6 keep highest 3" makes one pass.
    """
    total = np.int64(0)
    for i in range(n):
        total += values[i]
    if keep_mode == 0:
        return total
    k = min(max(keep_n, 0), n)
    sign = 1 if keep_mode == 1 else -1
    if 2 * k <= n:
        return _top_k_sum(values, n, k, sign)
    return total - _top_k_sum(values, n, n - k, -sign)


@kernel
def _roll_term(state, stream, count, sides, keep_mode, keep_n, scratch):
    """Roll ``count`` dice of ``sides`` faces and return the sum of the kept ones."""
    if keep_mode == 0:
        total = np.int64(0)
        for _ in range(count):
            total += roll_die(state, stream, sides)
        return total
    if count > scratch.shape[0]:
        raise ValueError("roll_dice: a keep term has more dice than the scratch array")
    for i in range(count):
        scratch[i] = roll_die(state, stream, sides)
    return sum_kept(scratch, count, keep_mode, keep_n)


@kernel
def roll_dice(state, stream, terms, constant, scratch):
    """Roll a dice expression such as ``4d6kh3 - 1d4 + 2``.

    Parameters
    ----------
    state : numpy.ndarray
        The encounter's state.
    stream : int
        One of the ``STREAM_*`` constants; every die comes from this stream, term by term
        and die by die, in order.
    terms : numpy.ndarray
        int64 array of shape ``(n_terms, 5)``; columns ``[count, sides, keep_mode,
        keep_n, sign]`` with keep_mode 0 (keep all), 1 (keep highest ``keep_n``) or 2
        (keep lowest ``keep_n``) and sign +1 or -1.
    constant : int
        Added to the total.
    scratch : numpy.ndarray
        Preallocated int64 work array, at least as long as the largest ``count`` of a
        keep term (the dice parser limits this to 100).

    Returns
    -------
    numpy.int64
        The total.
    """
    total = np.int64(constant)
    for t in range(terms.shape[0]):
        total += terms[t, 4] * _roll_term(
            state, stream, terms[t, 0], terms[t, 1], terms[t, 2], terms[t, 3], scratch
        )
    return total


# ---------------------------------------------------------------------------------------
# Helpers that draw many values for one encounter's stream (tests, exact-vs-sim checks)
# ---------------------------------------------------------------------------------------


@kernel
def _sample_u32(state, k0, k1, encounter, stream, out):
    start_encounter(state, k0, k1, encounter)
    for i in range(out.shape[0]):
        out[i] = next_u32(state, stream)


@kernel
def _sample_die(state, k0, k1, encounter, stream, sides, out):
    start_encounter(state, k0, k1, encounter)
    for i in range(out.shape[0]):
        out[i] = roll_die(state, stream, sides)


@kernel
def _sample_dice(state, k0, k1, encounter, stream, terms, constant, scratch, out):
    start_encounter(state, k0, k1, encounter)
    for i in range(out.shape[0]):
        out[i] = roll_dice(state, stream, terms, constant, scratch)


def sample_u32(seed: int, encounter: int, stream: int, n: int) -> np.ndarray:
    """Draw the first ``n`` words of one encounter's stream.

    Parameters
    ----------
    seed : int
        Seed in 0..2**64-1.
    encounter : int
        Encounter index, 0..2**63-1.
    stream : int
        One of the ``STREAM_*`` constants.
    n : int
        Number of words.

    Returns
    -------
    numpy.ndarray
        uint32 array of length ``n``.
    """
    k0, k1 = key_from_seed(seed)
    out = np.empty(n, dtype=np.uint32)
    _sample_u32(new_state(), k0, k1, encounter, stream, out)
    return out


def sample_die(seed: int, encounter: int, stream: int, sides: int, n: int) -> np.ndarray:
    """Roll ``n`` dice of ``sides`` faces from one encounter's stream.

    Parameters
    ----------
    seed : int
        Seed in 0..2**64-1.
    encounter : int
        Encounter index, 0..2**63-1.
    stream : int
        One of the ``STREAM_*`` constants.
    sides : int
        Number of faces, 1..2**32-1.
    n : int
        Number of dice.

    Returns
    -------
    numpy.ndarray
        int64 array of length ``n`` with values in 1..sides.
    """
    k0, k1 = key_from_seed(seed)
    out = np.empty(n, dtype=np.int64)
    _sample_die(new_state(), k0, k1, encounter, stream, sides, out)
    return out


def sample_dice(
    seed: int, encounter: int, stream: int, terms: np.ndarray, constant: int, n: int
) -> np.ndarray:
    """Roll a dice expression ``n`` times from one encounter's stream.

    Parameters
    ----------
    seed : int
        Seed in 0..2**64-1.
    encounter : int
        Encounter index, 0..2**63-1.
    stream : int
        One of the ``STREAM_*`` constants.
    terms : numpy.ndarray
        int64 array of shape ``(n_terms, 5)`` as for :func:`roll_dice`.
    constant : int
        Added to every total.
    n : int
        Number of rolls.

    Returns
    -------
    numpy.ndarray
        int64 array of length ``n``: consecutive totals, as :func:`roll_dice` would
        return them one after the other within that encounter.
    """
    k0, k1 = key_from_seed(seed)
    terms = np.ascontiguousarray(terms, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    scratch = np.empty(100, dtype=np.int64)
    _sample_dice(new_state(), k0, k1, encounter, stream, terms, constant, scratch, out)
    return out
