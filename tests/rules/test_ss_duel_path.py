"""The plain-duel path of the Shattered Spirits kernels gives the general path's tallies.

``compile.duel_attacker`` marks an encounter as a plain duel (one attacker, one target
that never fights back, no attack changing a later one); the kernels then play it on a
shorter loop (``kernels.play_duels``). Every tally must be the same integer as when the
same job runs through the general loop (``play_encounters``), which the test forces by
clearing the mark. The cases cover each rule that the short loop still applies.
"""

from __future__ import annotations

import pytest

import simlab
from simlab.api import compile_job
from simlab.engine import runner
from simlab.rules.shattered_spirits.compile import G_DUEL_ATTACKER
from tests.support import assert_same_tallies

SEED = 7
N = 20_000

ATTACKS = """
attacks:
  strike: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10]}
  heavy: {profile: [0, 1, 2, 3, 4, 5, 6, 7, 9, 11, 14], advantage: 2, damage_modifier: 1}
  sloppy: {profile: [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6], disadvantage: 1, modifier: -1,
           glancing: true, tier: {12: crit}}
"""

PLAIN = {
    "benchmark": "- {name: A, hp: 30, attacks: [strike]}|- {name: D, hp: 30, guard: 1}",
    "rotation, two per turn": (
        "- {name: A, hp: 9, attacks: [strike, heavy, sloppy], attacks_per_turn: 2}"
        "|- {name: D, hp: 40, guard: 2, vigor: 6}"
    ),
    "wounds and stun room": (
        "- {name: A, hp: 9, attacks: [heavy], roll_modifier: 1}"
        "|- {name: D, hp: 12, downed: wounds, exposed: 1, cover: true}"
    ),
    "round cap reached": "- {name: A, hp: 9, attacks: [sloppy]}|- {name: D, hp: 500}",
    # one attack of 2d6 a turn, two at a time (kernels.pair_loop): an odd round cap that
    # most duels reach, its last round played alone; one that some reach, with Vigor
    "pairs, odd cap": "- {name: A, hp: 9, attacks: [strike]}|- {name: D, hp: 40}|max_rounds: 9",
    "pairs, odd cap, vigor": (
        "- {name: A, hp: 9, attacks: [strike]}|- {name: D, hp: 20, vigor: 4, guard: 1}"
        "|max_rounds: 7"
    ),
    "vigor, then wounds until dead": (
        "- {name: A, hp: 9, attacks: [heavy, strike], attacks_per_turn: 3}"
        "|- {name: D, hp: 7, vigor: 5, downed: wounds}"
        "|params: {wound_roll: highest, strain_meter: 5}"
    ),
    # with an Evade its Reflex, spent by an override (OVERRIDES), can never pay for
    "target listed first": (
        "- {name: D, hp: 25, tokens: {reflex: 1}, react: {evade: {when_damage_at_least: 3}}}"
        "|- {name: A, hp: 9, attacks: [heavy], impaired: 1, target: random}"
    ),
}

#: Overrides a case of PLAIN is run with: a file must give a reaction its tokens.
OVERRIDES = {"target listed first": {"D.tokens.reflex": 0}}

NOT_PLAIN = {
    "both attack": "- {name: A, hp: 9, attacks: [strike]}|- {name: D, hp: 9, attacks: [strike]}",
    "target can evade": (
        "- {name: A, hp: 9, attacks: [strike]}"
        "|- {name: D, hp: 9, tokens: {reflex: 1}, react: {evade: {when_damage_at_least: 3}}}"
    ),
    "rushing terrain": "- {name: A, hp: 9, attacks: [strike]}|- {name: D, hp: 9, rushing: 1}",
    "status rows": "- {name: A, hp: 9, attacks: [dazing]}|- {name: D, hp: 9}",
    "two targets": "- {name: A, hp: 9, attacks: [strike]}|- {name: D, hp: 9, count: 2}",
}


def _scenario(name: str, members: str) -> object:
    first, second, *params = members.split("|")
    cap = "" if any("max_rounds" in p for p in params) else "max_rounds: 12\n"
    text = (
        f"scenario: {name}\nrules: shattered-spirits\n{cap}{''.join(params)}\n"
        f"{ATTACKS}"
        "  dazing: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10], status: {12: [stun 1]}}\n"
        f"sides:\n  first:\n    {first}\n  second:\n    {second}\n"
    )
    return simlab.loads(text, f"{name}.yaml")


def _general(job: runner.Job) -> runner.Job:
    globals_ = job.params.globals_.copy()
    globals_[G_DUEL_ATTACKER] = -1
    return runner.Job(
        job.rules, job.params._replace(globals_=globals_), job.layout, job.seed, job.n
    )


@pytest.mark.parametrize("case", list(PLAIN))
@pytest.mark.kernels
def test_plain_duel_path_gives_the_general_tallies(case):
    scenario = _scenario("duel", PLAIN[case])
    if case in OVERRIDES:
        scenario = scenario.with_(OVERRIDES[case])
    job = compile_job(scenario, N, SEED)
    assert job.params.globals_[G_DUEL_ATTACKER] >= 0
    fast = runner.run_range(job, 0, N, 3)
    general = runner.run_range(_general(job), 0, N, 3)
    assert_same_tallies(fast, general, N)


@pytest.mark.parametrize(("n", "first", "count", "chunks"), [(13, 0, 13, 2), (1000, 377, 400, 3)])
@pytest.mark.kernels
def test_plain_duel_path_on_few_encounters_and_a_part_of_a_run(n, first, count, chunks):
    # fewer encounters than tally batches (empty batches), and a block that starts
    # mid-run, as the runner and the cluster workers cut them
    job = compile_job(_scenario("duel", PLAIN["rotation, two per turn"]), n, SEED)
    fast = runner.run_range(job, first, count, chunks)
    general = runner.run_range(_general(job), first, count, chunks)
    assert_same_tallies(fast, general, count)


@pytest.mark.kernels
def test_plain_duel_path_with_a_trace_matches_without():
    scn = _scenario("duel", PLAIN["rotation, two per turn"])
    traced = simlab.simulate(scn, n=300, seed=SEED, trace=True)
    plain = simlab.simulate(scn, n=300, seed=SEED)
    assert traced.tallies.damage_hist.tolist() == plain.tallies.damage_hist.tolist()
    assert traced.tallies.down_round.tolist() == plain.tallies.down_round.tolist()


@pytest.mark.parametrize("case", list(NOT_PLAIN))
def test_other_encounters_take_the_general_path(case):
    job = compile_job(_scenario("fight", NOT_PLAIN[case]), 10, SEED)
    assert job.params.globals_[G_DUEL_ATTACKER] == -1
