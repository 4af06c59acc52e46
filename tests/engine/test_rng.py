"""Tests of the counter-based RNG (simlab.engine.rng).

Statistical tests use fixed seeds, so they are deterministic: they either always pass or
always fail. Under a correct generator the p-value of a goodness-of-fit test is uniform
on (0, 1), so the threshold p > 1e-6 would wrongly fail a given (seed, test) with
probability 1e-6; over the dozen such checks in this file that is about 1e-5, i.e. the
chance that the fixed seeds chosen here are "unlucky" is negligible, while a real bias
(say a 1% skew on one face of a d6 over 10**6 draws) gives p-values far below 1e-6.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from simlab.engine import rng
from simlab.engine.jit import allocating_kernel
from simlab.errors import InputError

# Random123 tests/kat_vectors, rows "philox4x32 10": counter[4], key[2] -> output[4].
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    (
        (0xFFFFFFFF,) * 4,
        (0xFFFFFFFF,) * 2,
        (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD),
    ),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]

SEED = 20240611
N_DRAWS = 10**6
P_MIN = 1e-6


# ---------------------------------------------------------------------------------------
# Kernel wrappers
# ---------------------------------------------------------------------------------------


@allocating_kernel
def _draw_interleaved(state, k0, k1, encounters, n):
    """Draw ``n`` words of every stream of each encounter, round-robin over streams,
    reusing one state; returns shape (len(encounters), N_STREAMS, n)."""
    out = np.zeros((encounters.shape[0], rng.N_STREAMS, n), dtype=np.uint32)
    for e in range(encounters.shape[0]):
        rng.start_encounter(state, k0, k1, encounters[e])
        for i in range(n):
            for s in range(rng.N_STREAMS):
                stream = (s * 3 + i) % rng.N_STREAMS  # vary the interleaving order
                out[e, stream, i] = rng.next_u32(state, stream)
    return out


@allocating_kernel
def _mixed_dice(state, k0, k1, encounter, stream, sizes, in_line=False):
    """A die of each of ``sizes``, in order: by ``roll_die``, or ``roll_die_in_line``."""
    rng.start_encounter(state, k0, k1, encounter)
    out = np.empty(sizes.shape[0], dtype=np.int64)
    for i in range(sizes.shape[0]):
        if in_line:
            out[i] = rng.roll_die_in_line(state, stream, sizes[i])
        else:
            out[i] = rng.roll_die(state, stream, sizes[i])
    return out


@allocating_kernel
def _dice_codes(state, k0, k1, encounter, stream, groups):
    """``roll_dice_code`` for each (sides, count) row of ``groups``, in order."""
    rng.start_encounter(state, k0, k1, encounter)
    out = np.empty(groups.shape[0], dtype=np.int64)
    for i in range(groups.shape[0]):
        out[i] = rng.roll_dice_code(state, stream, groups[i, 0], groups[i, 1])
    return out


@allocating_kernel
def _sums(state, k0, k1, encounter, stream, groups):
    """The sum of each (sides, count) row of ``groups``, in order: d6 by ``roll_d6_sum``,
    other dice one by one with ``roll_die``."""
    rng.start_encounter(state, k0, k1, encounter)
    out = np.zeros(groups.shape[0], dtype=np.int64)
    for i in range(groups.shape[0]):
        if groups[i, 0] == 6:
            out[i] = rng.roll_d6_sum(state, stream, groups[i, 1])
        else:
            for _ in range(groups[i, 1]):
                out[i] += rng.roll_die(state, stream, groups[i, 0])
    return out


# how _codes_both_ways starts its cursor
GIVEN, FRESH, LOADED = 0, 1, 2


@allocating_kernel
def _codes_both_ways(state, k0, k1, stream, sides, first, n_encounters, counts, start,
                     takes=None):  # fmt: skip
    """The dice codes of ``counts`` (dice per draw) for each encounter from ``first``,
    drawn by ``roll_dice_code`` on a state and by ``cursor_code`` on a cursor whose
    block 0 comes from ``first_blocks`` (``start`` 0: ``cursor_at``; 2: the same with
    its first word drawn, ``cursor_loaded``) or is computed at its first draw (1:
    ``cursor_fresh``); returns both, shape (n_encounters, len(counts)).

    With ``takes`` (bool, that shape) the cursor draws with ``cursor_code_if`` every
    time, taking only where ``takes`` says, and the state draws only there (-1 where
    it does not)."""
    source = rng.dice_source(k0, k1, stream, sides)
    words = np.empty((4, n_encounters), dtype=np.uint64)
    buffer = np.empty(rng.CURSOR_BUFFER, dtype=np.uint64)
    rng.first_blocks(source, first, words)
    by_state = np.full((n_encounters, counts.shape[0]), -1, dtype=np.int64)
    by_cursor = np.empty((n_encounters, counts.shape[0]), dtype=np.int64)
    for i in range(n_encounters):
        rng.start_encounter(state, k0, k1, first + i)
        if start == FRESH:
            cursor = rng.cursor_fresh(first + i, buffer)
        elif start == LOADED:
            cursor = rng.cursor_loaded(source, words, i, first + i, buffer)
        else:
            cursor = rng.cursor_at(words, i, first + i, buffer)
        for j in range(counts.shape[0]):
            span = np.uint64(sides) ** np.uint64(counts[j])
            if takes is None:
                by_state[i, j] = rng.roll_dice_code(state, stream, sides, counts[j])
                by_cursor[i, j], cursor = rng.cursor_code(source, buffer, cursor, counts[j], span)
            else:
                if takes[i, j]:
                    by_state[i, j] = rng.roll_dice_code(state, stream, sides, counts[j])
                by_cursor[i, j], cursor = rng.cursor_code_if(
                    source, buffer, cursor, counts[j], span, takes[i, j]
                )
    return by_state, by_cursor


@allocating_kernel
def _uniform_indices(state, k0, k1, encounter, stream, n_choices, n):
    rng.start_encounter(state, k0, k1, encounter)
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = rng.uniform_index(state, stream, n_choices)
    return out


def _batched_reference(
    words: np.ndarray, sizes: list[int], rejected: list[int] | None = None
) -> list[int]:
    """Roll dice of the given sizes, in order, from a word sequence, in plain Python:
    the batched Lemire method of the rng module docstring, written independently. The
    die size of each word the test rejects is appended to ``rejected`` when given."""
    out: list[int] = []
    it = iter(int(w) for w in words)
    x, left, batch_sides = 0, 0, 0
    for sides in sizes:
        if left == 0 or sides != batch_sides:
            k = rng.batch_size(sides)
            span = sides**k
            x = next(it)
            while (x * span) % 2**32 < 2**32 % span:
                if rejected is not None:
                    rejected.append(sides)
                x = next(it)
            left, batch_sides = k, sides
        m = x * sides
        out.append((m >> 32) + 1)
        x, left = m % 2**32, left - 1
    return out


# ---------------------------------------------------------------------------------------
# Philox block function
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ctr", "key", "expected"), KAT)
def test_philox_reference_matches_random123_kat(ctr, key, expected):
    assert rng.philox4x32_reference(ctr, key) == expected


@pytest.mark.parametrize(("ctr", "key", "expected"), KAT)
def test_philox_kernel_matches_random123_kat(ctr, key, expected):
    out = rng.philox4x32(*ctr, *key)
    assert tuple(int(w) for w in out) == expected


# ---------------------------------------------------------------------------------------
# Seeds, constants, state
# ---------------------------------------------------------------------------------------


def test_stream_constants_are_fixed():
    names = ["ATTACK", "REACTION", "DAMAGE", "WOUND", "TARGET", "ORDER", "STATUS", "SAVE"]
    assert [getattr(rng, f"STREAM_{n}") for n in names] == list(range(8))
    assert rng.N_STREAMS == 8


@pytest.mark.parametrize(
    ("seed", "key"),
    [
        (0, (0, 0)),
        (2**64 - 1, (0xFFFFFFFF, 0xFFFFFFFF)),
        (0x1234567890ABCDEF, (0x90ABCDEF, 0x12345678)),
        (np.uint64(7), (7, 0)),
    ],
)
def test_key_from_seed(seed, key):
    assert rng.key_from_seed(seed) == key


@pytest.mark.parametrize("seed", [-1, 2**64, -1.0, 1e20])
def test_key_from_seed_rejects(seed):
    with pytest.raises(InputError, match=r"expected a seed between 0 and 2\*\*64-1; got"):
        rng.key_from_seed(seed)


@pytest.mark.parametrize("seed", [1.5, float("nan"), float("inf"), "3", True, None])
def test_key_from_seed_rejects_what_is_not_a_whole_number(seed):
    """A float was refused as if out of range ("between 0 and 2**64-1; got 1000.0")."""
    with pytest.raises(InputError, match=rf"^expected a seed as a whole number; got {seed!r}$"):
        rng.key_from_seed(seed)


def test_key_from_seed_takes_a_float_with_no_fraction():
    """As ``n=1e3`` is taken, and ``--seed 1e3``: the same key as the int."""
    assert rng.key_from_seed(1e3) == rng.key_from_seed(1000)
    assert rng.key_from_seed(np.float64(7.0)) == rng.key_from_seed(7)


def test_new_state_layout():
    state = rng.new_state()
    assert state.dtype == np.uint32
    assert state.shape == ((rng.N_STREAMS + 1) * rng.STATE_COLUMNS,)
    rows = state.reshape(rng.N_STREAMS + 1, rng.STATE_COLUMNS)  # a view: row s is stream s
    # every stream's buffer empty (its next word past the 8 buffered), all else zero
    assert rows[: rng.N_STREAMS, rng._POS].tolist() == [8] * rng.N_STREAMS
    rows[: rng.N_STREAMS, rng._POS] = 0
    assert not state.any()


# ---------------------------------------------------------------------------------------
# Determinism and counter layout
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "encounter", "stream"),
    [(0, 0, 0), (SEED, 17, rng.STREAM_DAMAGE), (2**64 - 1, 2**40 + 7, rng.STREAM_SAVE)]
    + [(SEED, 2**33 + 5, stream) for stream in range(rng.N_STREAMS)],
)
def test_words_are_philox_of_documented_counter(seed, encounter, stream):
    """The first twelve words of a stream, across block 0 (computed for every stream by
    ``start_encounter``) and the first two-block refill, are Philox of the documented
    counter."""
    words = rng.sample_u32(seed, encounter, stream, 12)
    key = rng.key_from_seed(seed)
    expected: list[int] = []
    for block in range(3):
        ctr = (encounter & 0xFFFFFFFF, encounter >> 32, stream, block)
        expected.extend(rng.philox4x32_reference(ctr, key))
    assert words.tolist() == expected


def test_same_inputs_same_sequence():
    a = rng.sample_u32(SEED, 5, rng.STREAM_ATTACK, 100)
    b = rng.sample_u32(SEED, 5, rng.STREAM_ATTACK, 100)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "other",
    [(SEED, 5, rng.STREAM_REACTION), (SEED, 6, rng.STREAM_ATTACK), (SEED + 1, 5, 0)],
)
def test_different_stream_encounter_or_seed_differ(other):
    a = rng.sample_u32(SEED, 5, rng.STREAM_ATTACK, 100)
    seed, encounter, stream = other
    b = rng.sample_u32(seed, encounter, stream, 100)
    assert np.count_nonzero(a == b) <= 1


def test_sequence_independent_of_call_order_and_interleaving():
    k0, k1 = rng.key_from_seed(SEED)
    encounters = np.array([3, 0, 2**33 + 1, 3, 1], dtype=np.int64)
    got = _draw_interleaved(rng.new_state(), k0, k1, encounters, 10)
    for e, encounter in enumerate(encounters):
        for stream in range(rng.N_STREAMS):
            alone = rng.sample_u32(SEED, int(encounter), stream, 10)
            assert np.array_equal(got[e, stream], alone)


# ---------------------------------------------------------------------------------------
# Dice: exactness and uniformity
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("sides", [6, 7, 20, 3 * 2**30, 2**32 - 1])
def test_roll_die_matches_batched_reference(sides):
    # 3 * 2**30 is one die per word and rejects a quarter of the words.
    words = rng.sample_u32(SEED, 9, rng.STREAM_WOUND, 400)
    dice = rng.sample_die(SEED, 9, rng.STREAM_WOUND, sides, 200)
    assert dice.tolist() == _batched_reference(words, [sides] * 200)


@pytest.mark.parametrize(
    ("sides", "k"), [(2, 26), (6, 10), (20, 6), (100, 3), (8192, 2), (8193, 1)]
)
def test_batch_size(sides, k):
    assert rng.batch_size(sides) == k
    assert sides**k <= 2**26 or k == 1
    assert k == 26 or sides ** (k + 1) > 2**26


def test_batch_shape_table_is_the_loop():
    """Dice of up to ``_TABLED_SIDES`` faces are looked up, the rest computed: both give
    the largest k with sides**k <= 2**26 (at most 26)."""
    for sides in range(1, rng._TABLED_SIDES + 40):
        k, span = (int(v) for v in rng.batch_shape(sides))
        assert span == sides**k
        assert (k, span) == rng._batch_shape_python(sides)
        assert sides**k <= 2**26 or k == 1
        assert k == 26 or sides ** (k + 1) > 2**26


def test_batch_dice_are_digits_of_one_uniform_draw():
    # The dice of one accepted word are the base-6 digits of floor(u * 6**10 / 2**32).
    words = rng.sample_u32(SEED, 3, rng.STREAM_ATTACK, 1)
    dice = rng.sample_die(SEED, 3, rng.STREAM_ATTACK, 6, 10)
    u = int(words[0])
    assert (u * 6**10) % 2**32 >= 2**32 % 6**10  # this word is not rejected
    value = u * 6**10 // 2**32
    assert [d - 1 for d in dice.tolist()] == [value // 6 ** (9 - i) % 6 for i in range(10)]


def test_mixed_sizes_start_a_new_batch():
    k0, k1 = rng.key_from_seed(SEED)
    sizes = np.array([6, 6, 20, 20, 20, 6, 4, 4, 6] * 30, dtype=np.int64)
    dice = _mixed_dice(rng.new_state(), k0, k1, 5, rng.STREAM_DAMAGE, sizes)
    words = rng.sample_u32(SEED, 5, rng.STREAM_DAMAGE, 400)
    assert dice.tolist() == _batched_reference(words, sizes.tolist())


def test_roll_die_in_line_rolls_the_dice_of_roll_die():
    """``roll_die_in_line`` starts its batches in line, testing a word without a loop
    unless the test may reject it: the same dice as ``roll_die``, here with words
    rejected for tabled dice (a d87 batch is rejected 1.3% of the time) and for a die
    of more faces than the table holds (one die a word, a quarter rejected)."""
    k0, k1 = rng.key_from_seed(SEED)
    sizes = np.array([87] * 8 + [20, 20, 20, 6, 3 * 2**30, 4, 4] * 2 + [87] * 5 * 30)
    sizes = np.tile(sizes, 12)
    dice = _mixed_dice(rng.new_state(), k0, k1, 2, rng.STREAM_DAMAGE, sizes, True)
    words = rng.sample_u32(SEED, 2, rng.STREAM_DAMAGE, 8000)
    rejected: list[int] = []
    assert dice.tolist() == _batched_reference(words, sizes.tolist(), rejected)
    assert 87 in rejected and 3 * 2**30 in rejected
    assert (
        dice.tolist() == _mixed_dice(rng.new_state(), k0, k1, 2, rng.STREAM_DAMAGE, sizes).tolist()
    )


def test_dice_code_is_the_same_dice_read_in_base_sides():
    # Groups of 3 d6 straddle the batches of ten; d20 groups force a new batch.
    k0, k1 = rng.key_from_seed(SEED)
    groups = np.array([(6, 2), (6, 3), (6, 3), (6, 3), (20, 2), (6, 1), (6, 2)] * 40)
    codes = _dice_codes(rng.new_state(), k0, k1, 4, rng.STREAM_ATTACK, groups)
    words = rng.sample_u32(SEED, 4, rng.STREAM_ATTACK, 400)
    dice = iter(_batched_reference(words, [s for s, n in groups.tolist() for _ in range(n)]))
    expected = []
    for sides, count in groups.tolist():
        faces = [next(dice) - 1 for _ in range(count)]
        expected.append(sum(f * sides ** (count - 1 - i) for i, f in enumerate(faces)))
    assert codes.tolist() == expected


def test_roll_d6_sum_adds_the_dice_roll_die_would_give():
    """``roll_d6_sum`` draws the d6 ``roll_die`` would, one at a time, and sums them: here
    between dice of other sizes on the same stream (opposed-tiers' defense and shield),
    so that batches start, end part-used and hold too few dice for a sum."""
    k0, k1 = rng.key_from_seed(SEED)
    groups = np.array([(6, 3), (4, 1), (6, 2), (6, 4), (6, 1), (8, 2), (6, 4), (6, 4)] * 40)
    sums = _sums(rng.new_state(), k0, k1, 7, rng.STREAM_REACTION, groups)
    words = rng.sample_u32(SEED, 7, rng.STREAM_REACTION, 800)
    dice = iter(_batched_reference(words, [s for s, n in groups.tolist() for _ in range(n)]))
    expected = [sum(next(dice) for _ in range(count)) for _, count in groups.tolist()]
    assert sums.tolist() == expected


def test_faces_of_code_gives_back_the_dice_of_a_code():
    """``faces_of_code`` inverts ``roll_dice_code``: the faces rolled, in order."""
    k0, k1 = rng.key_from_seed(SEED)
    groups = np.array([(6, 3), (6, 6), (20, 2), (2, 12), (7, 1)] * 30)
    codes = _dice_codes(rng.new_state(), k0, k1, 9, rng.STREAM_DAMAGE, groups)
    words = rng.sample_u32(SEED, 9, rng.STREAM_DAMAGE, 600)
    dice = iter(_batched_reference(words, [s for s, n in groups.tolist() for _ in range(n)]))
    for code, (sides, count) in zip(codes.tolist(), groups.tolist(), strict=True):
        out = np.zeros(count, dtype=np.int64)
        rng.faces_of_code.py_func(code, sides, count, out)
        assert out.tolist() == [next(dice) for _ in range(count)]


@pytest.mark.parametrize(
    "start", [GIVEN, FRESH, LOADED], ids=["block-0-given", "block-0-computed", "first-word-drawn"]
)
@pytest.mark.parametrize(
    ("seed", "first", "sides"),
    [(SEED, 0, 6), (2**64 - 1, 2**32 - 100, 6), (3, 10**12, 20), (11, 500, 7)],
)
def test_cursor_draws_the_dice_of_roll_dice_code(seed, first, sides, start):
    # Counts of 1-3 dice straddle the batches; 60 draws per encounter run through
    # several blocks, and 300 encounters through about a thousand words each way, so
    # rejected words (0.04% for d6) and blocks past block 0 are both exercised.
    k0, k1 = rng.key_from_seed(seed)
    counts = np.array([2, 3, 3, 1, 2, 3, 2, 2, 3, 1] * 6, dtype=np.int64)
    by_state, by_cursor = _codes_both_ways(
        rng.new_state(), k0, k1, rng.STREAM_ATTACK, sides, first, 300, counts, start
    )
    assert by_cursor.tolist() == by_state.tolist()


def test_loaded_cursor_draws_past_a_rejected_first_word():
    # cursor_loaded reads an encounter's first word from first_blocks' array and falls
    # back to the cursor's buffer when Lemire's test rejects it (about 1.1% of d5
    # batches, the most of the usual dice): the encounters whose first word is rejected
    # draw the same dice as roll_dice_code, and so do the others.
    k0, k1 = rng.key_from_seed(SEED)
    n = 3000
    source = rng.dice_source(k0, k1, rng.STREAM_ATTACK, 5)
    words = np.empty((4, n), dtype=np.uint64)
    rng.first_blocks(source, 0, words)
    span, threshold = int(source[5]), int(source[6])
    rejected = np.array([(int(u) * span) & 0xFFFFFFFF < threshold for u in words[0]])
    assert 10 <= rejected.sum() < n // 10
    counts = np.array([2, 1, 3, 2] * 5, dtype=np.int64)
    by_state, by_cursor = _codes_both_ways(
        rng.new_state(), k0, k1, rng.STREAM_ATTACK, 5, 0, n, counts, LOADED
    )
    assert by_cursor[rejected].tolist() == by_state[rejected].tolist()
    assert by_cursor.tolist() == by_state.tolist()


@pytest.mark.parametrize(
    ("sides", "counts"),
    [(6, [12, 3, 11, 1, 10, 2, 12]), (200, [4, 1, 3, 4, 2, 4]), (129, [3, 2, 4, 1])],
    ids=["d6-more-than-a-batch", "d200-untabled", "d129-untabled"],
)
@pytest.mark.parametrize("start", [GIVEN, LOADED], ids=["block-0-given", "first-word-drawn"])
def test_cursor_draws_the_dice_of_roll_dice_code_past_a_batch(sides, counts, start):
    # cursor_code reads dice one at a time when a draw holds more than a batch (10 d6,
    # 3 d200) or the die has more faces than _DIE_POWERS tables: still the same dice,
    # from an empty cursor or one holding its first word's whole batch.
    k0, k1 = rng.key_from_seed(SEED)
    assert max(counts) > rng.batch_size(sides) or sides >= rng._DIE_POWERS.shape[0]
    by_state, by_cursor = _codes_both_ways(
        rng.new_state(), k0, k1, rng.STREAM_DAMAGE, sides, 40, 100,
        np.array(counts * 5, dtype=np.int64), start,
    )  # fmt: skip
    assert by_cursor.tolist() == by_state.tolist()


@pytest.mark.parametrize(("sides", "counts"), [(6, [1, 2, 3, 4]), (20, [1, 2, 3])])
@pytest.mark.parametrize("start", [GIVEN, LOADED], ids=["block-0-given", "first-word-drawn"])
def test_cursor_code_if_draws_only_the_dice_taken(sides, counts, start):
    # Random takes (a hit's damage dice), with counts that straddle the batches: the
    # draws taken are the dice roll_dice_code rolls, in order, as if the others were
    # never asked for; those not taken return a code in range and draw nothing. A
    # cursor started with its first word drawn (a duel's damage cursor) draws the same.
    k0, k1 = rng.key_from_seed(SEED)
    n_encounters, n_draws = 200, 80
    choose = np.random.default_rng(5)
    draws = np.array(choose.choice(counts, n_draws), dtype=np.int64)
    takes = choose.random((n_encounters, n_draws)) < 0.6
    by_state, by_cursor = _codes_both_ways(
        rng.new_state(), k0, k1, rng.STREAM_DAMAGE, sides, 7, n_encounters, draws, start, takes
    )
    assert by_cursor[takes].tolist() == by_state[takes].tolist()
    spans = np.broadcast_to(sides**draws, takes.shape)
    assert ((by_cursor >= 0) & (by_cursor < spans))[~takes].all()
    assert 0 < takes.mean() < 1


@allocating_kernel
def _sized_codes_both_ways(state, k0, k1, stream, first, n_encounters, counts, sides):
    """The dice codes of draws of ``counts[j]`` dice of ``sides[j]`` faces for each
    encounter from ``first``, drawn by ``roll_dice_code`` on a state and by
    ``cursor_dice`` on a cursor started by ``cursor_fresh``; returns both."""
    source = rng.dice_source(k0, k1, stream, 2)  # its die size is never used
    buffer = np.empty(rng.CURSOR_BUFFER, dtype=np.uint64)
    by_state = np.empty((n_encounters, counts.shape[0]), dtype=np.int64)
    by_cursor = np.empty((n_encounters, counts.shape[0]), dtype=np.int64)
    for i in range(n_encounters):
        rng.start_encounter(state, k0, k1, first + i)
        x, left = rng.cursor_fresh(first + i, buffer)
        cursor = (x, left, np.int64(0))
        for j in range(counts.shape[0]):
            span = np.uint64(sides[j]) ** np.uint64(counts[j])
            by_state[i, j] = rng.roll_dice_code(state, stream, sides[j], counts[j])
            by_cursor[i, j], cursor = rng.cursor_dice(source, buffer, cursor, counts[j],
                                                      sides[j], span)  # fmt: skip
    return by_state, by_cursor


def test_cursor_of_dice_that_change_size_draws_the_dice_of_the_state():
    # Damage dice of several sizes (1d8+1d4, a d3 whose batches are rejected 0.8% of
    # the time, a d200 past the looked-up sizes, 12 d6 past a batch): each change of
    # size starts a batch from the next word, and dice of one size in a row go on in
    # their batch and across its end, as roll_dice_code rolls them from the state.
    k0, k1 = rng.key_from_seed(SEED)
    pattern = [(1, 8), (1, 4), (2, 4), (1, 8), (3, 8), (3, 8), (1, 3), (5, 3), (1, 200),
               (2, 200), (12, 6), (1, 6), (1, 20), (1, 8)]  # fmt: skip
    counts = np.array([n for n, _ in pattern] * 4, dtype=np.int64)
    sides = np.array([s for _, s in pattern] * 4, dtype=np.int64)
    by_state, by_cursor = _sized_codes_both_ways(
        rng.new_state(), k0, k1, rng.STREAM_DAMAGE, 90, 400, counts, sides
    )
    assert by_cursor.tolist() == by_state.tolist()
    assert (by_cursor < sides.astype(float) ** counts).all()
    assert len({tuple(row) for row in by_cursor.tolist()}) == 400  # draws that vary


def test_first_blocks_are_block_zero_of_each_encounter():
    k0, k1 = rng.key_from_seed(2**40 + 17)
    first = 2**32 - 3  # the encounter index crosses into the counter's high word
    words = np.empty((4, 7), dtype=np.uint64)  # two halves computed together, one alone
    rng.first_blocks(rng.dice_source(k0, k1, rng.STREAM_WOUND, 6), first, words)
    for i in range(7):
        e = first + i
        block = rng.philox4x32(e & 0xFFFFFFFF, e >> 32, rng.STREAM_WOUND, 0, k0, k1)
        assert words[:, i].tolist() == [int(w) for w in block]


def test_consecutive_dice_of_a_batch_are_independent():
    dice = rng.sample_die(SEED, 1, rng.STREAM_ATTACK, 6, N_DRAWS)
    pairs = np.bincount((dice[:-1] - 1) * 6 + dice[1:] - 1, minlength=36)
    assert stats.chisquare(pairs).pvalue > P_MIN


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 20, 1000])
def test_roll_die_uniform(sides):
    dice = rng.sample_die(SEED, 0, rng.STREAM_ATTACK, sides, N_DRAWS)
    assert dice.min() >= 1
    assert dice.max() <= sides
    counts = np.bincount(dice, minlength=sides + 1)[1:]
    assert stats.chisquare(counts).pvalue > P_MIN


def test_roll_die_one_side():
    assert set(rng.sample_die(SEED, 0, 0, 1, 100).tolist()) == {1}


def test_uniform_index():
    k0, k1 = rng.key_from_seed(SEED)
    idx = _uniform_indices(rng.new_state(), k0, k1, 4, rng.STREAM_TARGET, 5, 1000)
    assert set(idx.tolist()) == set(range(5))
    dice = rng.sample_die(SEED, 4, rng.STREAM_TARGET, 5, 1000)
    assert np.array_equal(idx, dice - 1)


# ---------------------------------------------------------------------------------------
# Dice expressions
# ---------------------------------------------------------------------------------------


def _terms(*rows: tuple[int, int, int, int, int]) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(-1, 5)


def _exact_pmf(terms: np.ndarray, constant: int) -> dict[int, float]:
    """Enumerate every outcome of every die; returns value -> probability."""
    dice = [int(t[1]) for t in terms for _ in range(int(t[0]))]
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(range(1, s + 1) for s in dice)):
        total, i = constant, 0
        for count, _, mode, keep_n, sign in terms.tolist():
            group = sorted(faces[i : i + count])
            i += count
            if mode == 1:
                group = group[count - keep_n :]
            elif mode == 2:
                group = group[:keep_n]
            total += sign * sum(group)
        counts[total] += 1
    n = sum(counts.values())
    return {v: c / n for v, c in counts.items()}


EXPRESSIONS = {
    "2d6": (_terms((2, 6, 0, 0, 1)), 0),
    "3d6kh2": (_terms((3, 6, 1, 2, 1)), 0),
    "4d6kl3": (_terms((4, 6, 2, 3, 1)), 0),
    "1d10+4": (_terms((1, 10, 0, 0, 1)), 4),
    "2d6-1d4": (_terms((2, 6, 0, 0, 1), (1, 4, 0, 0, -1)), 0),
}


@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_roll_dice_distribution(name):
    terms, constant = EXPRESSIONS[name]
    pmf = _exact_pmf(terms, constant)
    values = rng.sample_dice(SEED, 1, rng.STREAM_DAMAGE, terms, constant, N_DRAWS)
    observed = Counter(values.tolist())
    assert set(observed) <= set(pmf)
    support = sorted(pmf)
    f_obs = [observed[v] for v in support]
    f_exp = [pmf[v] * N_DRAWS for v in support]
    assert stats.chisquare(f_obs, f_exp).pvalue > P_MIN


@pytest.mark.parametrize(
    ("values", "n", "mode", "keep_n", "expected"),
    [
        ([3, 1, 6, 2], 4, 0, 0, 12),
        ([3, 1, 6, 2], 4, 1, 3, 11),
        ([3, 1, 6, 2], 4, 2, 3, 6),
        ([3, 1, 6, 2], 4, 1, 1, 6),
        ([3, 1, 6, 2], 4, 2, 1, 1),
        ([3, 1, 6, 2], 4, 1, 2, 9),
        ([3, 1, 6, 2], 4, 2, 2, 3),
        ([5, 5, 1], 3, 1, 2, 10),
        ([5, 1, 1], 3, 2, 2, 2),
        ([3, 1, 6, 2], 4, 1, 9, 12),
        ([3, 1, 6, 2], 4, 2, 0, 0),
        ([1, 2, 9], 2, 1, 1, 2),
    ],
)
def test_sum_kept_hand_checked(values, n, mode, keep_n, expected):
    arr = np.array(values, dtype=np.int64)
    assert rng.sum_kept(arr, n, mode, keep_n) == expected


@pytest.mark.parametrize(("mode", "keep_n"), [(1, 3), (2, 3), (1, 1), (0, 0)])
def test_roll_dice_uses_stream_dice_in_order(mode, keep_n):
    n = 500
    terms = _terms((4, 6, mode, keep_n, 1))
    totals = rng.sample_dice(SEED, 2, rng.STREAM_SAVE, terms, 1, n)
    dice = np.sort(rng.sample_die(SEED, 2, rng.STREAM_SAVE, 6, 4 * n).reshape(n, 4), axis=1)
    kept = {0: dice, 1: dice[:, 4 - keep_n :], 2: dice[:, :keep_n]}[mode]
    assert np.array_equal(totals, kept.sum(axis=1) + 1)


def test_roll_dice_rejects_too_many_dice_for_scratch():
    terms = _terms((101, 6, 1, 3, 1))
    with pytest.raises(ValueError, match="scratch"):
        rng.sample_dice(SEED, 0, 0, terms, 0, 1)
