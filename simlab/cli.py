"""The ``simlab`` command: a thin shell over the Python API (:mod:`simlab.api`).

Exit codes: 0 ok; 1 a balance check failed or drifted; 2 invalid input (the message says
``file:line:col: expected X; got Y``) or an output the machine refuses (read-only, full
disk); 3 an internal error; 130 interrupted (Ctrl-C); 143 stopped by a SIGTERM (a CI
job cancelled, a ``kill``). Heavy imports (numba,
pandas, the rule systems) happen inside the commands, so ``simlab --help`` stays fast.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import gc
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sized
from typing import Any, NoReturn

import click

from simlab.limits import MAX_ENCOUNTERS, MAX_SEED
from simlab.report.width import NARROWEST
from simlab.report.words import counted

EXIT_OK, EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
#: What an interrupted command leaves (``simlab.report.files.output_unit``).
LEFT_AS_IT_WAS = "every output folder is as it was or complete, never a mix"


#: The indent of an error's continued lines, so that each problem's start stands out.
ERROR_INDENT = "  "
#: What an error's line is not broken inside: a quoted ': ' (YAML's key and value
#: parted) split at its space reads as two stray quotes.
_UNBROKEN = ("': '",)
#: A value an error quotes or suggests, kept on one line (:func:`_suggestions`): text in
#: quotes (not an apostrophe: ``Brute's``) and a ``[…]`` or ``{…}`` as written in YAML,
#: with its key where it has one (``base_defense: [1, 2]``).
_QUOTED = re.compile(r"""(?<![\w'])'[^'\n]*'(?!\w)|(?<![\w"])"[^"\n]*"(?!\w)"""
                     r"|(?:(?<![\w.-])[\w.-]+: )?(?:\[[^\[\]\n]*\]|\{[^{}\n]*\})")  # fmt: skip


def _fail(message: str, code: int) -> NoReturn:
    """Print ``message`` on stderr and exit with ``code``. Where stderr is a terminal,
    each of its lines (one a problem) is broken at spaces to the terminal's width; in a
    pipe or a CI log a problem keeps one line, whatever ``COLUMNS`` says (pytest-xdist's
    workers set it), so that ``grep`` finds it whole."""
    if sys.stderr.isatty():
        from simlab.report.width import wrapped

        width = _stderr_width()
        message = "\n".join(wrapped(line, width, _continued(line), _suggestions(line, width))
                            for line in message.splitlines())  # fmt: skip
    click.echo(message, err=True)
    sys.exit(code)


def _continued(line: str) -> str:
    """The indent of an error line's continued lines: :data:`ERROR_INDENT`, or under the
    text of a list item (``  - Brute: …``, one reason of several) where the line is one."""
    item = len(line) - len(line.lstrip(" -"))
    return " " * item if line.lstrip().startswith("- ") else ERROR_INDENT


def _suggestions(line: str, width: int) -> tuple[str, ...]:
    """What an error's ``line`` is not broken inside on a terminal ``width`` columns
    wide: a quoted ``': '``, and each value it quotes or suggests (``'warhammer,
    shortsword'``, ``[1, 2]``) that fits on a continued line, which moves to the next
    line whole where it would be split; a longer one is broken at its spaces."""
    room = max(width, NARROWEST) - len(ERROR_INDENT)
    found = (m.group() for m in _QUOTED.finditer(line))
    return (*_UNBROKEN, *(value for value in found if " " in value and len(value) <= room))


def _stderr_width() -> int:
    """The width of the terminal stderr shows in: ``COLUMNS`` when set, else the
    terminal's own (stdout may be a pipe), else 80."""
    with contextlib.suppress(ValueError):
        return int(os.environ.get("COLUMNS", ""))
    with contextlib.suppress(OSError, ValueError):
        return os.get_terminal_size(sys.stderr.fileno()).columns
    return 80


def handle_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn simlab's errors into a message and an exit code, never a traceback."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from simlab.errors import InputError

        try:
            with _sigterm_stops_as_ctrl_c():
                return command(*args, **kwargs)
        except InputError as err:
            _fail(str(err), EXIT_INPUT)
        except Terminated:
            _fail(f"stopped (SIGTERM); {LEFT_AS_IT_WAS}", EXIT_TERMINATED)
        except KeyboardInterrupt:
            _fail(f"interrupted; {LEFT_AS_IT_WAS}", EXIT_INTERRUPTED)
        except Exception as err:  # the last line of defence: report, do not dump
            if os.environ.get("SIMLAB_DEBUG"):
                raise
            _fail(f"internal error: {type(err).__name__}: {err} (set SIMLAB_DEBUG=1 for details)",
                  EXIT_INTERNAL)  # fmt: skip
        return None

    return wrapper


class Terminated(KeyboardInterrupt):
    """A SIGTERM, raised as a Ctrl-C is (:func:`_sigterm_stops_as_ctrl_c`)."""


@contextlib.contextmanager
def _sigterm_stops_as_ctrl_c() -> Iterator[None]:
    """Stop the command on a SIGTERM as on a Ctrl-C: a CI job cancelled or timed out
    gets one (GitLab, Jenkins), where Python's default ended the process at once,
    silently, its drawing processes and their temporary folder left behind. Raised as a
    KeyboardInterrupt, it is taken where a Ctrl-C is (between two pictures of a report)
    and cleaned up after as one is. A handler set before (a caller's, or SIGTERM
    ignored) is left as it is."""
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield
        return
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _terminated(number: int, frame: object) -> None:
    raise Terminated


def without_cycle_collector(command: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``command`` with Python's cycle collector paused (``gc.disable``).

    Starting a simulation imports pandas, numba and pydantic and loads the compiled
    kernels: hundreds of thousands of new objects, which the collector walks again and
    again while they pile up: about 0.1 s of a second ``simlab run`` (1.66 s against
    1.77 s wall, medians of ten alternated runs; peak memory +0.7 MB). A run makes few
    reference cycles after that, so the collector is paused for the whole command, and
    restored after it, error or not; commands that draw figures (matplotlib makes cycles
    of every figure) keep it.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return command(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return wrapper


class SystemPath(click.Path):
    """A path, refused at once (exit 2, naming the argument) where no system could hold
    it (:func:`simlab.arguments.path_too_long`): asking the system of it raised
    ``OSError: File name too long`` wherever it was first looked at, an internal error."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from simlab.arguments import path_too_long

        too_long = path_too_long(os.fspath(value))
        if too_long:
            self.fail(f"expected a path the system can hold; got {too_long}", param, ctx)
        return super().convert(value, param, ctx)


SCENARIO = click.argument("scenario", type=SystemPath())
SET = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="NAME.FIELD=VALUE",
    help="Override a field (repeatable): Defender.guard=2, strike.profile[9]=8 (row 9), "
    "params.strain_meter=8, max_rounds=50. See README, Tuning.",
)


def PRECISION(command: Callable[..., Any]) -> Callable[..., Any]:  # noqa: N802 (an option, like SET)
    """--precision H and --precision-on FIGURE[:ON]: run until the figures are known to ±H."""
    return _precision_options(
        "Simulate in fixed stages until every reported rate's 95% half-width is at most H "
        "(means: H × max(|mean|, 1)); -n is then a cap. See README, Targets.",
        "Apply --precision only to these figures (repeatable): hit_rate:strike, "
        "win_rate:attacker, mean_rounds.",
    )(command)


def TUNE_PRECISION(command: Callable[..., Any]) -> Callable[..., Any]:  # noqa: N802 (an option)
    """tune's --precision H and --precision-on: by default only the target's figure."""
    return _precision_options(
        "Simulate each value in fixed stages until the target's figure has a 95% half-width "
        "of at most H (a mean: H × max(|mean|, 1)); -n is then a cap. See README, Targets.",
        "Apply --precision to these figures in place of the target's (repeatable): "
        "hit_rate:strike, win_rate:attacker, mean_rounds.",
    )(command)


def _precision_options(precision: str, on: str) -> Callable[..., Any]:
    """The --precision and --precision-on options, with their help texts."""

    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        command = click.option("--precision-on", "precision_on", multiple=True,
                               metavar="FIGURE[:ON]", help=on)(command)  # fmt: skip
        return click.option("--precision", type=Fraction("a half-width", up_to_one=True),
                            metavar="H", help=precision)(command)  # fmt: skip

    return add


def _figures(precision_on: tuple[str, ...]) -> tuple[Any, ...]:
    """The ``--precision-on`` figures, parsed, each with its label: a message about one
    names ``--precision-on`` (the Python API's, ``precision_on``)."""
    if not precision_on:
        return ()
    from simlab.tuning.figures import parse_figure
    from simlab.tuning.overrides import argument_label

    return tuple(parse_figure(text, argument_label("--precision-on", text))
                 for text in precision_on)  # fmt: skip


def _progress(precision: float | None) -> Callable[..., Any]:
    """The progress bar factory; none when a run to a precision is not on a terminal (the
    bar's closing "simulated N encounters" would give the cap, not the stop: the command
    says the stop itself, :func:`_say_simulated`)."""
    from simlab.report import terminal

    if precision is None or sys.stdout.isatty():
        return terminal.progress
    return lambda *_args, **_kwargs: contextlib.nullcontext(None)


def _say(line: str) -> None:
    """Print a note for the reader through the terminal's console, wrapped at its width
    as the tables' notes are (``click.echo`` printed it on one line of 200 columns and
    more). A line a tool or a CI log reads goes through :func:`_say_for_tools`."""
    from simlab.report import terminal

    terminal.console.print(line, markup=False, highlight=False)


def _say_for_tools(line: str) -> None:
    """Print a note a tool or a CI log reads (``grep '^precision:'``, the overrides a
    run was made with, the scenarios a new baseline dropped): broken at spaces on a
    terminal, on one line when piped, whatever ``COLUMNS`` says
    (``terminal.say_for_tools``)."""
    from simlab.report import terminal

    terminal.say_for_tools(line)


def _wrote_files(written: Sized, out: str) -> None:
    """Say how many files a command wrote to its ``--out`` folder, a line a CI job or a
    script reads (``grep '^wrote'``): one line when piped."""
    from simlab.report import terminal

    terminal.say_for_tools(f"wrote {counted(len(written), 'file')} to {out}")


def _say_simulated(encounters: int, what: str = "", precision: Any = None) -> None:
    """Say what a run to a precision (its record; None: a plain run, whose progress said
    it) simulated, in the words a plain run's progress says it in
    (``terminal.simulated_line``), before the tables, when standard output is not a
    terminal: the encounters run, of ``what``, and whether the precision was met or the
    cap reached."""
    from simlab.report import terminal

    _say_stop(terminal.simulated_line(encounters, what, precision), precision)


def _say_stop(line: str, precision: Any) -> None:
    """Say ``line``, what a run to a precision simulated (:func:`_say_simulated`), when
    standard output is not a terminal; nothing for a plain run (``precision`` None)."""
    if precision is not None and not sys.stdout.isatty():
        _say_for_tools(line)


def _sweep_precision(sweep: Any) -> dict[str, Any] | None:
    """A sweep run to a precision, as :func:`_say_simulated` says it: its cap (each
    point's), met when every point met the precision, and how many of its points reached
    the cap; None for a plain sweep."""
    found = [p.result.meta.get("precision") for p in sweep.points if p.result is not None]
    if not found or None in found:
        return None
    capped = sum(not record["met"] for record in found)
    return {"cap": sweep.encounters, "met": capped == 0, "capped": capped,
            "points": len(found), "each": True}  # fmt: skip


def _precision_line(result: Any) -> None:
    """Say how a precision-stopped run was obtained."""
    record = result.meta.get("precision")
    if record is not None:
        from simlab.tuning.precision import describe_record

        _say_for_tools(f"precision: {describe_record(record)}")


def _with_sets(scenario: Any, sets: tuple[str, ...], varied: tuple[str, ...] = ()) -> Any:
    """The scenario with the --set overrides applied (validated like the file); a field
    both set and ``varied`` (``--vary``'s NAME.FIELD) is an error: the --vary would
    silently win."""
    if not sets:
        return scenario
    from simlab.errors import InputError
    from simlab.tuning.overrides import override, parse_assignment

    overrides = [parse_assignment(s) for s in sets]
    for o in overrides:
        if o.target in varied:
            raise InputError(f"{o.label}: expected a field that --vary does not vary; "
                             f"got {o.target}, varied by --vary too")  # fmt: skip
    return override(scenario, overrides)


class _Command(click.Command):
    """A command whose option of ``NAME=VALUE`` written with a space for its ``=``
    (``--set Defender.hp 40``) is said as such: click took the value for an argument too
    many, ``Got unexpected extra argument (40)``, which named neither the option nor the
    ``=``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse ``args`` as click does; see the class."""
        given = list(args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as err:
            said = _space_for_equals(self, given)
            if said is None or "unexpected extra argument" not in err.message:
                raise
            _fail(said, EXIT_INPUT)


def _space_for_equals(command: click.Command, args: list[str]) -> str | None:
    """The first option of ``command`` written ``NAME=VALUE`` (its metavar holds a
    '=') whose value in ``args`` has no '=' and is followed by a word that is no option:
    what it expected, and the two joined by '='; None when there is none."""
    spelled = {name: param.metavar for param in command.params
               if isinstance(param, click.Option) and "=" in (param.metavar or "")
               for name in param.opts}  # fmt: skip
    for option, value, after in zip(args, args[1:], args[2:], strict=False):
        if option in spelled and "=" not in value and not after.startswith("-"):
            return (f"{option} {value}: expected {spelled[option]}; got no '=' ({after!r} after it "
                    f"was read as one more argument: write {option} {value}={after})")  # fmt: skip
    return None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="simlab")
def main() -> None:
    """Monte Carlo balance analysis for tabletop combat rules.

    Start with `simlab validate SCENARIO`, then `simlab run SCENARIO`; each
    command's --help gives its options, the README the rest.

    \b
    Exit codes: 0 ok; 1 a balance spec failed (check), a figure drifted (report
    --baseline) or a target is out of reach (tune); 2 invalid input or an output
    the machine refuses; 3 internal error (a bug); 130 interrupted (Ctrl-C);
    143 stopped (SIGTERM).
    """
    from simlab.engine import compiling

    click.get_current_context().with_resource(compiling.listening(_compile_notice()))


main.command_class = _Command


def _compile_notice() -> Callable[[str], None] | None:
    """How a command tells that its run is compiling a rule system's kernels (numba is
    silent for the 5–15 s of a first run). With standard output a terminal, on it: its
    progress bar says so (``terminal.say_compiling``), where it said that it *may* be
    compiling on every run, and a command with no bar (``simlab tune``) prints a line.
    Piped or sent to a file (``simlab run X > out.txt``), a line on standard error, when
    that is a terminal; not into a log or a test's captured output. The Python API's own
    notice (on the ``simlab`` logger) never shows in a command: this listener, the outer
    one, wins."""
    if sys.stdout.isatty():
        return _say_compiling_on_the_terminal
    if sys.stderr.isatty():
        return _say_compiling_on_stderr
    return None


def _say_compiling_on_the_terminal(rules: str) -> None:
    """Say in the progress bar (or a line) that the kernels of ``rules`` are compiling
    (:func:`_compile_notice`; the terminal's module, pandas and rich are imported only
    by a command that shows something)."""
    from simlab.report import terminal

    terminal.say_compiling(rules)


def _say_compiling_on_stderr(rules: str) -> None:
    """Print on standard error that the kernels of ``rules`` are compiling
    (:func:`_compile_notice`)."""
    from simlab.engine.compiling import compile_notice

    click.echo(compile_notice(rules), err=True)


def entry(args: list[str] | None = None) -> None:
    """The ``simlab`` command, and ``python -m simlab``: :func:`main`, then a quick exit.

    Once a command has printed and written all it has to, Python would still spend about
    0.3 s (a second ``simlab run`` on the 2-core machine: a fifth of it) tearing pandas,
    numba and the loaded kernels down module by module, which shows and writes nothing.
    So the exit functions run (``atexit``: a Dask client's, temporary folders'), both
    streams are flushed, and the process ends there with the command's status
    (:func:`_exit_now`). Tests call :func:`main`, which returns as click's commands do.
    """
    sys.stdout = _StreamThatOutlivesItsReader(sys.stdout)
    sys.stderr = _StreamThatOutlivesItsReader(sys.stderr)
    try:
        main(args)
    except SystemExit as done:
        _exit_now(done.code)
    _exit_now(EXIT_OK)


class _StreamThatOutlivesItsReader:
    """Standard output or error whose reader may stop reading (``simlab validate DIR |
    head -1``, ``simlab run … 2>&1 | head -1``): the rest goes nowhere, and the command
    writes its files and exits with its own status, where the closed pipe ended it with
    status 1 (click's, on ``--help``; Python's, halfway through a usage error's lines)
    or 3 (``validate``'s ``internal error: BrokenPipeError``). The one place every
    command's output goes through: ``click.echo`` and rich's console alike."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text``; into nothing once the reader is gone."""
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            self._to_nowhere()
            return len(text)

    def flush(self) -> None:
        """Flush; nothing to flush once the reader is gone."""
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._to_nowhere()

    def _to_nowhere(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _exit_now(status: object) -> None:
    """End the process with ``status`` without the interpreter's teardown; exit as usual
    when that might lose something: a status that is not a number (Python prints it),
    a thread still at work, a stream that cannot be flushed, or no ``atexit`` runner."""
    status = EXIT_OK if status is None else status
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if not isinstance(status, int) or run_exit_functions is None or _threads_at_work():
        raise SystemExit(status)
    run_exit_functions()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: Python reports it as it always does
        raise SystemExit(status) from None
    os._exit(status)


def _threads_at_work() -> bool:
    """Whether a thread other than this one is alive that Python's exit would wait for:
    not a daemon, and not one of the block kernels' pool (``jit._pool``), whose threads
    are idle once a command returns."""
    import threading

    from simlab.engine import POOL_THREAD_PREFIX

    me = threading.current_thread()
    return any(thread is not me and thread.is_alive() and not thread.daemon
               and not thread.name.startswith(POOL_THREAD_PREFIX)
               for thread in threading.enumerate())  # fmt: skip


@main.command(short_help="Check scenario files: every mistake, with its line and column.")
@click.argument("scenarios", nargs=-1, required=True, type=SystemPath())
@SET
@handle_errors
def validate(scenarios: tuple[str, ...], sets: tuple[str, ...]) -> None:
    """Check scenario files (every one in a folder given), with the --set overrides
    applied as a run would apply them, and report every mistake with its line and
    column; exit 2 when any file has one."""
    # not simlab.api: no pandas, numba or scipy (but to say an override changes nothing)
    from pathlib import Path

    from simlab.errors import InputError, ScenarioError
    from simlab.scenario.load import id_clash, load, scenario_paths, written_id_clash
    from simlab.scenario.validation import sorted_unique
    from simlab.tuning.overrides import apply_overrides, parse_assignment

    overrides = [parse_assignment(s) for s in sets]  # a malformed one: exit 2 before any file
    problems = []
    seen: dict[tuple[str, str], Path] = {}
    for path in scenario_paths(scenarios):
        try:
            scn = load(path)
        except ScenarioError as err:
            clash = written_id_clash(path, seen)
            problems += sorted_unique(err.problems + ([] if clash is None else [clash]))
            continue
        clash = id_clash(path, scn, seen)
        if clash is not None:  # what report, check and baseline update refuse
            problems.append(clash)
            continue
        try:
            scn = apply_overrides(scn, overrides) if overrides else scn
        except ScenarioError as err:  # an override this file refuses: say which file
            problems += [_in_file(problem, path) for problem in err.problems]
            continue
        except InputError as err:  # an override this file has no field for: the same
            problems.append(_override_problem(err, path))
            continue
        _say_valid(path, scn)
    if problems:
        raise ScenarioError(problems)


def _override_problem(err: Exception, path: Any) -> Any:
    """An override refused by one file of several (``--set Kaito.hp=31: expected a
    combatant …; got 'Kaito'``) as a problem of ``validate``'s list, naming the file
    (`` (in …)``): it stopped the command, and the files after it were not checked."""
    from simlab.errors import Problem

    label, _, said = str(err).partition(": ")
    return _in_file(Problem(label, None, None, said), path)


def _in_file(problem: Any, path: Any) -> Any:
    """An override's ``problem`` (``--set Kaito.hpp=31: unknown key 'hpp'; …``) with the
    file that refused it named after it (`` (in …)``): given several files, the same
    line came once for each, none saying whose."""
    return dataclasses.replace(problem, message=f"{problem.message} (in {path})")


def _say_valid(path: Any, scn: Any) -> None:
    """``validate``'s line for a file that passed: its scenario, rules and counts, and
    the ``--set`` overrides it passed with, each one that changes nothing said so (as a
    run's head says them: ``words.overrides_said``)."""
    from simlab.report.words import overrides_said

    fighters = counted(len(scn.combatant_names()), "combatant")
    attacks = counted(len(scn.attacks), "attack")
    said = overrides_said({"overrides": scn.overrides, "idle_overrides": scn.idle_overrides})
    applied = f"; with --set {', '.join(said)}" if said else ""
    _echo_wrapped(f"ok: {path}: scenario {scn.scenario!r}, rules {scn.rules}, "
                  f"{fighters}, {attacks}{applied}", whole=(fighters, attacks))  # fmt: skip


def _echo_wrapped(line: str, whole: tuple[str, ...] = ()) -> None:
    """``click.echo`` of ``line``: where stdout is a terminal, broken at spaces to its
    width (or ``COLUMNS``), never inside a part of ``whole`` (a count and its noun, ``7
    combatants``); in a pipe or a CI log one line, whatever ``COLUMNS`` says, as
    :func:`_fail` keeps a problem, so that ``grep`` finds it whole. For ``validate``,
    which imports no rich (README targets: it starts in under 0.5 s)."""
    if not sys.stdout.isatty():
        click.echo(line)
        return
    import shutil

    from simlab.report.width import broken_at_spaces

    click.echo(broken_at_spaces(line, shutil.get_terminal_size().columns, whole=whole))


def _prepare_out(out: str | None, what: str = "--out") -> None:
    """Refuse an --out folder that cannot be written, before any time is spent simulating."""
    if out is not None:
        from simlab.report.files import prepare_output

        prepare_output(out, what)


class Spelled(click.ParamType):
    """A required option's text, which where the option is missing says how it is
    written, with examples: click's "Missing option '--target'." alone said nothing of
    what a target looks like, where every other mistake says what was expected."""

    name = "text"

    def __init__(self, spelling: str) -> None:
        self.spelling = spelling

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        return str(value)

    def get_missing_message(self, param: click.Parameter, ctx: click.Context | None) -> str:
        return self.spelling


#: What ``tune`` says of a missing ``--target`` and ``--vary``, and ``sweep`` of ``--vary``.
TARGET_SPELLED = ("Expected --target FIGURE[:ON]=VALUE, the figure wanted and its value "
                  "(e.g. --target median_time_to_down:Defender=8, --target "
                  "win_rate:attacker=0.5); got none.")  # fmt: skip
TUNED_FIELD_SPELLED = ("Expected --vary NAME.FIELD=LO:HI, the field to tune and its range "
                       "(e.g. --vary Defender.hp=10:60); got none.")  # fmt: skip
SWEPT_FIELD_SPELLED = ("Expected --vary NAME.FIELD=LO:HI[:STEP] or NAME.FIELD=v1,v2, a field "
                       "and its values (e.g. --vary Defender.hp=20:40:5, --vary "
                       "strike.profile[9]=6,8); got none.")  # fmt: skip


class WholeNumber(click.ParamType):
    """A whole number on the command line from ``low`` to ``high``, written in digits
    (``200000``, ``200_000``) or in scientific notation (``2e5``, ``2.5E5``), as a
    designer writes a large count. Anything else fails with exit code 2, before
    anything runs, in the form "expected …; got …": a number written with a fraction
    (``1.5``, and ``1.0`` too) as a scenario file and ``--set`` refuse it
    (``expected an integer; got 1.0``), any other text with an example of a count.

    Parameters
    ----------
    low, high : int
        The range, both included.
    what : str
        What the number is, for the message ("a count").
    example : str
        How to write one, for the message (" such as 200000").
    span : str
        The range as the message gives it ("from 1 to 100,000,000,000 (1e11)").
    """

    name = "integer"

    def __init__(self, low: int, high: int, what: str, example: str, span: str) -> None:
        self.low, self.high = low, high
        self.what, self.example, self.span = what, example, span

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """The number ``value`` stands for, or a usage error saying what was expected."""
        number = value if isinstance(value, int) else whole_number(str(value))
        if number is None and _FRACTION_WRITTEN.fullmatch(str(value).strip()):
            self.fail(f"expected an integer; got {str(value).strip()}", param, ctx)
        if number is None:
            self.fail(f"expected a whole number{self.example}; got {value!r}", param, ctx)
        if not self.low <= number <= self.high:
            self.fail(f"expected {self.what} {self.span}; got {value}", param, ctx)
        return number


class Fraction(click.ParamType):
    """A number strictly above 0 and below 1 (or at most 1 with ``up_to_one``) on the
    command line: ``--precision``'s half-width, ``--alpha``. The message quotes the
    number as typed (``1e-5000``, which reads as 0), and ``nan`` is refused."""

    name = "number"

    def __init__(self, what: str, up_to_one: bool) -> None:
        self.what, self.up_to_one = what, up_to_one

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        """The number ``value`` stands for, or a usage error saying what was expected."""
        span = "(0, 1]" if self.up_to_one else "(0, 1)"
        try:
            number = float(value)
        except (TypeError, ValueError):
            from simlab.scenario.validation import number_hint  # ``1%``: 0.01, as in a file

            self.fail(f"expected {self.what} in {span}, such as 0.01; got {value!r}"
                      f"{number_hint(value)}", param, ctx)  # fmt: skip
        inside = 0 < number <= 1 if self.up_to_one else 0 < number < 1
        if not inside:  # nan too
            self.fail(f"expected {self.what} in {span}, such as 0.01; got {value}", param, ctx)
        return number


def whole_number(text: str) -> int | None:
    """The whole number ``text`` writes (``"200_000"``, ``"2e5"``, ``"2.5E5"``, ``"-3"``),
    or None when it writes none (``"1.5"``, ``"1,000"``, ``"1e-2"``, ``"nan"``), or writes
    it with a fraction (``"1.0"``: a decimal point is a whole number's only in
    scientific notation, as a scenario file and ``--set`` read it). A number of more
    than 21 digits comes back as ±(:data:`BEYOND_ANY_RANGE`), out of every range a
    number is checked against (a seed's goes to 2**64 - 1, 20 digits), rather than made
    at the size ``1e999999999`` asks for."""
    from decimal import Decimal, InvalidOperation

    text = text.strip()
    if not re.fullmatch(r"[+-]?\d+(?:_\d+)*(?:(?:\.\d+)?[eE]\+?\d+)?", text):
        return None
    digits = text.replace("_", "")
    try:
        number = Decimal(digits)
    except InvalidOperation:  # an exponent past what Decimal holds (1e99999999999999999999)
        number = Decimal(re.split("[eE]", digits)[0]).scaleb(22)
    if number != number.to_integral_value():
        return None
    if number and number.adjusted() > 20:
        return BEYOND_ANY_RANGE if number > 0 else -BEYOND_ANY_RANGE
    return int(number)


#: A number written with a fraction (``1.0``, ``1.5``, ``.5``, ``1.25e1``, ``1e-2``), which
#: a whole-number option refuses as a scenario file and ``--set`` do.
_FRACTION_WRITTEN = re.compile(r"[+-]?(?:\d+(?:_\d+)*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")

#: What :func:`whole_number` gives for a number of more than 21 digits: past the top of
#: every option's range (a seed's, :data:`~simlab.limits.MAX_SEED`, is below 2 * 10**19),
#: so that it is refused, never taken as another number.
BEYOND_ANY_RANGE = 10**21 + 1


#: A count of encounters (``-n``, ``--block-size``).
ENCOUNTERS = WholeNumber(1, MAX_ENCOUNTERS, "a count", " such as 200000, 200_000 or 2e5",
                         f"from 1 to {MAX_ENCOUNTERS:,} (1e11)")  # fmt: skip
#: A seed: any 64-bit unsigned number.
SEED = WholeNumber(0, MAX_SEED, "a seed", " such as 7", f"from 0 to {MAX_SEED} (2**64 - 1)")
#: A thread count: any whole number here, its range checked once, against the cores
#: numba may use, with the message of every command (:func:`_check_threads`).
THREADS = WholeNumber(-(2**63), 2**63 - 1, "a thread count", " such as 2",
                      "from 1 to the cores numba may use")  # fmt: skip
#: ``--scheduler``, of every command that simulates on local threads or a Dask cluster
#: (:func:`_connect`).
SCHEDULER = click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run on this Dask scheduler (e.g. tcp://host:8786); same results.",
)


@main.command(short_help="Simulate a scenario: hit rates, damage, time-to-down, win rates.")
@SCENARIO
@click.option(
    "-n",
    "--encounters",
    type=ENCOUNTERS,
    help="Encounters to run (default: the scenario's): 200000, 200_000 or 2e5.",
)
@click.option("--seed", type=SEED, help="Seed (default: scenario's).")
@click.option("--out", type=SystemPath(), help="Write summary.json + Parquet.")
@click.option("--threads", type=THREADS, help="Threads (default: all cores).")
@click.option(
    "--block-size",
    type=ENCOUNTERS,
    help="Most encounters a kernel call plays (default 2^20; with --scheduler, a task: "
    "4 per worker); results do not depend on it.",
)
@SCHEDULER
@click.option(
    "--check",
    is_flag=True,
    help="Also compare each figure with its exact answer where there is one; says "
    "whether all agree, and exits 0 either way.",
)
@SET
@PRECISION
@handle_errors
@without_cycle_collector
def run(
    scenario: str,
    encounters: int | None,
    seed: int | None,
    out: str | None,
    threads: int | None,
    block_size: int | None,
    scheduler: str | None,
    check: bool,
    sets: tuple[str, ...],
    precision: float | None,
    precision_on: tuple[str, ...],
) -> None:
    """Simulate a scenario and print hit rates, damage, time-to-down and win rates."""
    from simlab import api
    from simlab.report import terminal

    scn = _with_sets(api.load(scenario), sets)
    _check_threads(threads)
    _prepare_out(out)
    n = encounters or scn.encounters
    client = _connect(scheduler, threads)
    with _progress(precision if precision is not None else scn.precision)(n) as advance:
        result = api.simulate(scn, n, seed, threads=threads, block_size=block_size,
                              progress=advance, client=client, precision=precision,
                              precision_on=_figures(precision_on))  # fmt: skip
    if check:  # its own words for a check that compares nothing (print_check), no warning
        result.check = api.exact_check(scn, result)
    _say_simulated(result.encounters, precision=result.meta.get("precision"))
    api.note_idle_overrides(result, scn)
    terminal.print_result(result)
    _precision_line(result)
    if result.check is not None:
        terminal.print_check(result.check)
    if out:
        written = api.write_results(result, out)
        _wrote_files(written, out)


#: Seconds ``--scheduler`` waits for its scheduler to answer (Dask's connect timeout).
CONNECT_WAIT = 10.0


def _connect(scheduler: str | None, threads: int | None) -> Any:
    """A Dask client of the ``--scheduler`` given (None without one), or an exit-2
    message saying what is wrong: ``--threads`` beside it, no Dask installed, an address
    that is not one or a scheduler not reached; a scheduler without workers yet is said
    and waited on by the run (:mod:`simlab.engine.distributed`)."""
    if scheduler is None:
        return None
    from simlab.errors import InputError

    if threads is not None:
        raise InputError("expected --threads or --scheduler; got both (on a cluster "
                         "each worker plays on its own threads: NUMBA_NUM_THREADS, "
                         "--nthreads)")  # fmt: skip
    try:
        from distributed import Client
    except ImportError as err:
        raise InputError("expected simlab[dask] installed for --scheduler; got no dask") from err
    import logging

    if not os.environ.get("SIMLAB_DEBUG"):  # a lost scheduler is said once, by simlab,
        # not again at exit as the client's traceback of its last try to reconnect
        logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
    from simlab.engine.distributed import refuse_impossible_address

    refuse_impossible_address(scheduler)  # at once, before "connecting to" and its wait
    # said before, not after: an address nobody answers at is silent until the timeout
    click.echo(f"connecting to {scheduler} (waits up to {CONNECT_WAIT:g} s)…", err=True)
    try:
        client = Client(scheduler, timeout=CONNECT_WAIT)
    except OSError as err:
        raise InputError(f"expected a reachable Dask scheduler at {scheduler}; got {err}") from err
    except (ValueError, TypeError) as err:  # distributed's parse of the address
        raise InputError("expected --scheduler as a Dask scheduler's address such as "
                         f"tcp://host:8786; got {scheduler!r} ({err})") from err  # fmt: skip
    if not client.scheduler_info()["workers"]:
        from simlab.engine.distributed import WORKERS_WAIT

        click.echo(f"no Dask worker connected to {scheduler} yet; waiting up to "
                   f"{WORKERS_WAIT:g} s for one", err=True)  # fmt: skip
    return client


@main.command(
    name="exact", short_help="Solve a scenario exactly, without sampling, where it can be."
)
@SCENARIO
@click.option("--out", type=SystemPath(), help="Write summary.json + Parquet.")
@SET
@handle_errors
def exact_command(scenario: str, out: str | None, sets: tuple[str, ...]) -> None:
    """Solve a scenario exactly, without sampling: hit, crit and damage per attack,
    and a duel's time-to-down.

    What cannot be solved exactly is listed with the feature that prevents it; when
    nothing can be, the exit code is 2 (use `simlab run` to simulate it).
    """
    from simlab import api
    from simlab.errors import ExactUnsupported
    from simlab.report import terminal
    from simlab.report.files import scenario_hash

    scn = _with_sets(api.load(scenario), sets)
    _prepare_out(out)
    try:
        solved = api.exact(scn)
    except ExactUnsupported as err:  # nothing solvable: say of which file, as errors do
        raise ExactUnsupported(f"{scenario}: {err}") from None
    terminal.print_exact(solved)
    if out:
        written = api.write_exact(solved, out, scenario_hash(scn))
        _wrote_files(written, out)


def _only_one(given: tuple[str, ...], option: str) -> str:
    """The one value of ``option``, which ``tune`` takes once (click keeps the last of
    several, silently)."""
    if len(given) > 1:
        from simlab.errors import InputError

        raise InputError(f"expected one {option} (tune searches one field for one figure; "
                         f"simlab sweep varies several); got {len(given)}: "
                         + ", ".join(given))  # fmt: skip
    return given[0]


def _check_threads(threads: int | None) -> None:
    """Refuse a ``--threads`` below 1 or above what numba may use, before anything runs
    (the check :func:`simlab.engine.runner.use_threads` makes at the run): ``--threads:
    expected a thread count from 1 to 2; got 0``, the one message for both ends, on
    every command that takes it."""
    if threads is not None:
        from simlab.engine.runner import max_threads
        from simlab.errors import InputError

        top = max_threads()
        if not 1 <= threads <= top:
            raise InputError(f"--threads: expected a thread count from 1 to {top}; got {threads}")


# -- balance reports ---------------------------------------------------------------------------

SCENARIOS = click.argument("scenarios", nargs=-1, type=SystemPath())
DEFAULT_REPORT_DIR = "reports/latest"
DEFAULT_BASELINE = "reports/baseline/results.json"


def _sample_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """-n, --seed, --threads and --from, shared by report, check and baseline update."""
    options = [
        click.option("-n", "--encounters", type=ENCOUNTERS,
                     help="Encounters per scenario (default: each scenario's)."),
        click.option("--seed", type=SEED,
                     help="Seed (default: each scenario's)."),
        click.option("--threads", type=THREADS,
                     help="Threads (default: all cores)."),
        click.option("--from", "from_", type=SystemPath(), metavar="RESULTS",
                     help="Use saved results (a results.json or its folder) instead of "
                          "simulating."),
    ]  # fmt: skip
    for option in reversed(options):
        command = option(command)
    return command


def _refuse_with_from(scenarios: tuple[str, ...], encounters: int | None, seed: int | None,
                      sets: tuple[str, ...], set_option: str, precision: float | None,
                      threads: int | None, scheduler: str | None = None) -> None:  # fmt: skip
    """Refuse what only a simulation uses beside ``--from`` (saved results are read as
    they are), naming it: scenarios, ``-n``, ``--seed``, ``--set``, ``--precision``,
    ``--threads``, ``--scheduler``."""
    from simlab.errors import InputError

    given = [name for name, value in (("scenarios", scenarios), ("-n", encounters),
                                      ("--seed", seed), (set_option, sets),
                                      ("--precision", precision), ("--threads", threads),
                                      ("--scheduler", scheduler))
             if value not in (None, ())]  # fmt: skip
    if given:
        raise InputError(
            f"expected either scenarios to simulate or --from saved results, "
            f"which are read as they are; got --from with {', '.join(given)}"
        )


def _runs(scenarios: tuple[str, ...], encounters: int | None, seed: int | None,
          threads: int | None, from_: str | None, sets: tuple[str, ...] = (),
          precision: float | None = None, precision_on: tuple[str, ...] = (),
          with_specs_only: bool = False, set_option: str = "--set",
          draws: bool = False, scheduler: str | None = None,
          client: Any = None, on_loaded: Any = None) -> list[Any]:  # fmt: skip
    """Simulate the scenarios named, or read saved results (exactly one of the two);
    ``with_specs_only``: only the scenarios that have ``expect:`` entries; ``set_option``
    names the ``sets`` in messages; ``draws``: the command draws on ``threads`` cores
    too (``report``), so that they mean something beside ``--from``; ``scheduler``:
    simulate on that Dask cluster (:func:`_connect`), or on the one ``client`` is
    already connected to (``baseline update``'s runs of each recorded scenario);
    ``on_loaded``: as for :func:`simlab.api.run_scenarios`."""
    from simlab import api
    from simlab.errors import InputError

    _check_threads(threads)
    if from_ is not None:
        _refuse_with_from(scenarios, encounters, seed, sets, set_option, precision,
                          None if draws else threads, scheduler)  # fmt: skip
        return api.load_results(from_, name="--from")
    if not scenarios:
        raise InputError("expected at least one scenario file or folder (or --from); got none")

    overrides = None
    if sets:
        from simlab.tuning.overrides import parse_assignment

        overrides = [parse_assignment(s, set_option) for s in sets]
    from simlab.report import terminal

    # Piped, each run is said from its result as soon as it has run (a bar's closing line
    # would give a run to a precision's cap, which may be its scenario's own ``precision:``)
    shown = sys.stdout.isatty()
    if client is None:
        if scheduler is not None:  # a mistyped path is said now, not after the connection
            from simlab.scenario.load import scenario_paths

            scenario_paths(scenarios)
        client = _connect(scheduler, threads)
    return api.run_scenarios(scenarios, encounters, seed, threads=threads, client=client,
                             progress=terminal.progress if shown else None,
                             overrides=overrides, precision=precision,
                             precision_on=_figures(precision_on),
                             with_specs_only=with_specs_only, on_loaded=on_loaded,
                             on_run=None if shown else _say_run)  # fmt: skip


def _say_run(run: Any) -> None:
    """Say what one scenario's run simulated (``terminal.simulated_line``): its stop,
    and how a run to a precision stopped."""
    from simlab.report import terminal

    terminal.say_for_tools(terminal.simulated_line(
        run.result.encounters, run.source or "", run.result.meta.get("precision")))  # fmt: skip


@main.command(short_help="Run scenarios and write a balance report with plots.")
@SCENARIOS
@_sample_options
@click.option(
    "--out",
    type=SystemPath(),
    default=DEFAULT_REPORT_DIR,
    show_default=True,
    help="Folder for report.html, report.md, PNGs, results.json.",
)
@click.option(
    "--baseline",
    type=SystemPath(),
    metavar="RESULTS",
    help="Compare with saved results (e.g. reports/baseline/results.json); "
    "exit 1 when a figure drifted.",
)
@click.option(
    "--alpha",
    type=Fraction("a threshold", up_to_one=False),
    default=0.01,
    show_default=True,
    help="Drift threshold on Holm-adjusted p.",
)
@click.option("--title", default="simlab balance report", help="Title of the report.")
@SCHEDULER
@SET
@PRECISION
@handle_errors
def report(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    scheduler: str | None,
    out: str,
    baseline: str | None,
    alpha: float,
    title: str,
    sets: tuple[str, ...],
    precision: float | None,
    precision_on: tuple[str, ...],
) -> None:
    """Run scenarios (files or folders) and write a balance report with plots.

    With --baseline, every figure is compared with the saved results; a figure drifts
    when it is both statistically different (Holm-adjusted p < --alpha) and beyond the
    scenario's practical tolerance. Exit code 1 when anything drifted.
    """
    from simlab import api
    from simlab.report import terminal

    refuse = None
    if baseline is not None:  # a bad or unrelated baseline fails before simulating
        refuse = _refuse_unrelated(api.load_results(baseline, name="--baseline"), baseline)
    _prepare_out(out)
    runs = _runs(scenarios, encounters, seed, threads, from_, sets, precision, precision_on,
                 draws=True, scheduler=scheduler, on_loaded=refuse)  # fmt: skip
    written, specs, drift = api.write_report(runs, out, baseline=baseline, alpha=alpha,
                                             title=title, progress=_drawing,
                                             processes=threads)  # fmt: skip
    if drift is not None:
        terminal.print_drift(drift, str(baseline))
    if not specs.empty:
        _print_specs(specs, runs)
    _say_overrides(runs)
    pngs, scenarios_run = sum(name.endswith(".png") for name in written), len(runs)
    drift_json = ", drift.json" if "drift" in written else ""
    scenarios_said = f"({counted(scenarios_run, 'scenario')})"
    terminal.say_for_tools(f"wrote {out}/report.html, report.md, results.json{drift_json} "
                           f"and {pngs} PNG{'s' * (pngs != 1)} {scenarios_said}",
                           whole=(scenarios_said,))  # fmt: skip
    if drift is not None and not drift.ok:
        _say_drifted(drift, str(baseline), out)


def _refuse_unrelated(before: list[Any], baseline: str) -> Callable[[list[Any]], None]:
    """What refuses, once the scenarios are loaded, a ``baseline`` (its runs ``before``)
    that holds none of them (:func:`simlab.analysis.drift.refuse_nothing_shared`): the
    scenario ids a run is keyed on are the loaded scenarios', so nothing is simulated
    for a report that would be refused."""
    from simlab.analysis.drift import Planned, refuse_nothing_shared

    def refuse(loaded: list[Any]) -> None:
        planned = [Planned(scn.rules, scn.scenario, path.as_posix()) for path, scn in loaded]
        refuse_nothing_shared(planned, before, baseline)

    return refuse


def _say_drifted(drift: Any, baseline: str, out: str) -> None:
    """The drift gate's verdict again at the end, where a CI log is read from, with what
    to do when the change was meant (the first lines may be a screen or more above);
    then exit with the code drift.json says."""
    from simlab.report import terminal
    from simlab.report.gate import EXIT_DRIFT  # drift.json's exit_code
    from simlab.report.render import baseline_hint, drift_verdict

    terminal.say_for_tools(f"drift gate failed (exit code {EXIT_DRIFT}): "
                           f"{drift_verdict(drift, baseline)}")  # fmt: skip
    hint = baseline_hint(out, baseline, drift)
    terminal.say_for_tools(hint, whole=(hint[hint.index("simlab baseline update") :],))
    sys.exit(EXIT_DRIFT)


def _say_overrides(runs: list[Any]) -> None:
    """Say, as the report's head does, which ``--set`` overrides the runs were made
    with and in which scenarios one changes nothing (``render.overrides_note``)."""
    from simlab.report.render import overrides_note

    note = overrides_note(runs)
    if note:
        _say_for_tools(f"{note}.")


def _print_specs(specs: Any, runs: list[Any]) -> None:
    """Print the spec table of ``runs``; where every run was run to one precision, each
    measured half-width within its limit reads within it, as in the run's tables
    (:func:`~simlab.report.terminal.held_to`)."""
    from simlab.report import terminal

    held = {terminal.held_half_width(run.result.meta.get("precision")) for run in runs}
    with terminal.held_to(held.pop() if len(held) == 1 else None):
        terminal.print_specs(specs)


def _drawing(i: int, total: int, scenario: str) -> None:
    """Progress of a report's plots on stderr: one line per scenario."""
    click.echo(f"drawing {i}/{total}: {scenario}", err=True)


@main.command(short_help="Check balance specs (expect: entries); exit 1 when one fails.")
@SCENARIOS
@_sample_options
@click.option(
    "--strict", is_flag=True, help="Also fail a spec whose 95% interval reaches past its bound."
)
@SCHEDULER
@SET
@handle_errors
def check(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    strict: bool,
    scheduler: str | None,
    sets: tuple[str, ...],
) -> None:
    """Check the balance specs (expect: entries) of scenarios; exit 1 when one fails.

    Only the scenarios that have expect: entries are simulated.
    """
    from simlab.analysis.specs import evaluate_all

    runs = _runs(scenarios, encounters, seed, threads, from_, sets, with_specs_only=True,
                 scheduler=scheduler)  # fmt: skip
    specs = evaluate_all(runs, strict=strict)
    _print_specs(specs, runs)
    _say_overrides(runs)
    if (specs.verdict == "fail").any():
        sys.exit(EXIT_CHECK_FAILED)


@main.group(short_help="The saved results the drift gate compares with.")
def baseline() -> None:
    """The saved results the drift gate compares with (reports/baseline/)."""


@baseline.command(name="update", short_help="Write a new baseline: simulate, or take --from.")
@SCENARIOS
@_sample_options
@click.option(
    "--baseline",
    "path",
    type=SystemPath(),  # a folder is refused saying what it is (prepare_results_file)
    default=DEFAULT_BASELINE,
    show_default=True,
    help="The baseline file to (over)write.",
)
@click.option("--replace", is_flag=True,
              help="Write only the scenarios given, dropping the baseline's others "
                   "(default: keep them).")  # fmt: skip
@click.option("--with-overrides", is_flag=True,
              help="Adopt --from results made with --set overrides (the nightly run has "
                   "none: it would drift every night).")  # fmt: skip
@SCHEDULER
@handle_errors
def baseline_update(
    scenarios: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    from_: str | None,
    path: str,
    replace: bool,
    with_overrides: bool,
    scheduler: str | None,
) -> None:
    """Write a new baseline, deliberately: simulate SCENARIOS (or take --from results).

    The scenarios given replace theirs in the baseline, and its others are kept
    (--replace drops them). Without SCENARIOS or --from, the scenarios of the current
    baseline are simulated again, each with the sample size, seed and --set overrides
    recorded there (-n/--seed replace the first two).
    """
    from pathlib import Path

    from simlab import api
    from simlab.analysis.drift import label
    from simlab.report import terminal
    from simlab.report.baseline import read_baseline, refuse_overrides, write_baseline
    from simlab.report.results import prepare_results_file, recorded_runs

    prepare_results_file(path, "--baseline")
    _check_adopting(bool(scenarios or from_), from_, replace, with_overrides)
    if not scenarios and from_ is None:
        # an older simlab's baseline too: its scenarios are run again in this format
        recorded = recorded_runs(path)
        sources = [_check_recorded_source(path, run) for run in recorded]  # before running
        _check_threads(threads)
        client = _connect(scheduler, threads)  # once, for every scenario
        runs = []
        for run, source in zip(recorded, sources, strict=True):
            runs += _runs(
                (source,),
                encounters or run.encounters,
                run.seed if seed is None else seed,
                threads,
                None,
                run.overrides,
                set_option=f"{path}: override",
                client=client,
            )
        written = api.save_results(runs, Path(path))
        how_many = f"({counted(len(runs), 'scenario')}:"
        names = ", ".join(label(r) for r in runs)  # one id may be under two rule systems
        terminal.say_for_tools(f"wrote baseline {written} {how_many} {names})", whole=(how_many,))
        return
    old = read_baseline(path, replace)  # a damaged baseline is refused before simulating
    runs = _runs(scenarios, encounters, seed, threads, from_, scheduler=scheduler)
    if from_ is not None and not with_overrides:
        refuse_overrides(runs, f"--from {from_}")
    new = write_baseline(old, runs, replace)
    for line in new.lines():
        terminal.say_for_tools(line, whole=new.whole())


def _check_adopting(given: bool, from_: str | None, replace: bool,
                    with_overrides: bool) -> None:  # fmt: skip
    """Refuse ``--replace`` without scenarios or ``--from`` (the baseline's own are run
    again, all of them), and ``--with-overrides`` without ``--from`` (only saved results
    can have been made with ``--set``)."""
    from simlab.errors import InputError

    if replace and not given:
        raise InputError("--replace: expected scenarios or --from results to replace the "
                         "baseline with; got neither (without them, every scenario of the "
                         "baseline is run again)")  # fmt: skip
    if with_overrides and from_ is None:
        raise InputError("--with-overrides: expected --from results made with --set; got "
                         "no --from (scenarios named are run as their files say, and the "
                         "baseline's own with the overrides it records)")  # fmt: skip


def _check_recorded_source(path: str, run: Any) -> str:
    """A baseline's scenario's recorded file; refused when missing: none recorded, or
    none at that path, which is relative to the folder the baseline was made in."""
    from pathlib import Path

    from simlab.errors import InputError

    if not run.source:
        raise InputError(f"{path}: expected each scenario's source file; "
                         f"got none for {run.scenario!r}")  # fmt: skip
    if not Path(run.source).exists():
        raise InputError(f"{path}: expected the file of scenario {run.scenario!r}, "
                         f"{run.source} (as it was named where the baseline was made: run "
                         "baseline update from that folder, or name the scenarios); got no "
                         "such file here")  # fmt: skip
    return str(run.source)


# -- tuning ------------------------------------------------------------------------------------


def _tuning_options(per: str, writes: str, scenario: str = "the scenario's",
                    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:  # fmt: skip
    """-n, --seed, --threads and --out of sweep, compare and tune, whose defaults are
    those of ``scenario`` (A's in a comparison)."""
    options = [
        click.option("-n", "--encounters", type=ENCOUNTERS,
                     help=f"Encounters per {per} (default: {scenario})."),
        click.option("--seed", type=SEED,
                     help=f"Seed (default: {scenario})."),
        click.option("--threads", type=THREADS,
                     help="Threads (default: all cores)."),
        click.option("--out", type=SystemPath(), help=f"Write {writes}."),
    ]  # fmt: skip

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


@main.command(short_help="Run a scenario at each value of varied fields, on the same dice.")
@SCENARIO
@click.option(
    "--vary",
    multiple=True,
    required=True,
    type=Spelled(SWEPT_FIELD_SPELLED),
    metavar="NAME.FIELD=LO:HI[:STEP]|v1,v2",
    help="A field and its values: integers LO..HI (both included, every STEP-th with "
    ":STEP) or a list: Defender.guard=0:4, Defender.hp=20:40:5, strike.profile[9]=6,8; "
    "several --vary make a grid.",
)
@SET
@_tuning_options("point", "sweep.json, Parquet tables, sweep.html and sweep.md")
@SCHEDULER
@click.option("--no-exact", is_flag=True, help="Do not ask the exact engine at each point.")
@PRECISION
@handle_errors
def sweep(
    scenario: str,
    vary: tuple[str, ...],
    sets: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    out: str | None,
    scheduler: str | None,
    no_exact: bool,
    precision: float | None,
    precision_on: tuple[str, ...],
) -> None:
    """Run a scenario at every value of the varied fields, all on the same dice.

    Point k equals `simlab run SCENARIO --set FIELD=VALUE` for that point, bit for bit.
    """
    from simlab import api
    from simlab.report.tuning_terminal import print_sweep, sweep_simulated_line
    from simlab.tuning.sweep import parse_vary, sweep_points

    variations = [parse_vary(v) for v in vary]
    scn = _with_sets(api.load(scenario), sets, tuple(v.target for v in variations))
    points = len(sweep_points(scn, variations).points)  # every point valid before running
    _check_threads(threads)
    _prepare_out(out)
    n = encounters or scn.encounters
    client = _connect(scheduler, threads)
    done = sweep_simulated_line([n] * points)  # each point's, as the header says it
    bar = _progress(precision or scn.precision)(n * points, counted(points, "point"), done=done)
    with bar as advance:
        result = api.sweep(scn, variations, n, seed, threads=threads, exact=not no_exact,
                           progress=advance, precision=precision,
                           precision_on=_figures(precision_on), client=client)  # fmt: skip
    stops = [p.result.encounters for p in result.points if p.result is not None]
    precision_said = _sweep_precision(result)
    _say_stop(sweep_simulated_line(stops, precision_said), precision_said)
    print_sweep(result)
    if out:
        written = api.write_sweep(result, out)
        _wrote_files(written, out)


@main.command(short_help="Compare A with B (or A with --set) on the same dice.")
@click.argument("a", type=SystemPath())
@click.argument("b", type=SystemPath(), required=False)
@SET
@_tuning_options("variant", "compare.json, compare.html and compare.md", "A's")
@SCHEDULER
@PRECISION
@handle_errors
def compare(
    a: str,
    b: str | None,
    sets: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    out: str | None,
    scheduler: str | None,
    precision: float | None,
    precision_on: tuple[str, ...],
) -> None:
    """Compare A with B, or with A changed by --set, on the same dice, with paired
    intervals."""
    from simlab import api
    from simlab.errors import InputError
    from simlab.report import terminal
    from simlab.report.tuning_terminal import print_compare
    from simlab.tuning.overrides import parse_assignment

    if b is None and not sets:
        raise InputError("expected a second scenario B or --set NAME.FIELD=VALUE; got neither")
    first = api.load(a)
    second = api.load(b) if b is not None else first
    changes = [parse_assignment(s) for s in sets]
    api.override(second, changes)  # a bad --set fails before anything runs
    _check_threads(threads)
    _prepare_out(out)
    n = encounters or first.encounters
    client = _connect(scheduler, threads)
    to_precision = (precision or first.precision) is not None
    # to a precision: A, then B, each to it, the first stopped then on to the later stop;
    # no total known ahead
    within = "A, then B, to the precision" if to_precision else "A and B"
    # each variant's count, as the header's "1,250 encounters each" (2,500 "of A and B"
    # beside it read as two counts of one thing)
    done = terminal.simulated_line(n, EACH_VARIANT)
    with _progress(precision or first.precision)(None if to_precision else 2 * n,
                                                 within, done=done) as advance:  # fmt: skip
        result = api.compare_variants(a, b, changes=changes, n=n, seed=seed, threads=threads,
                             progress=advance, precision=precision,
                             precision_on=_figures(precision_on), client=client)  # fmt: skip
    precision_said = None if result.precision is None else {**result.precision, "each": True}
    _say_simulated(result.a.encounters, EACH_VARIANT, precision_said)
    print_compare(result)
    _note_unused_settings(first, second, given={"seed": seed, "encounters": encounters})
    _note_unused_precision(first, second, precision, n)
    if result.precision is not None:
        _say_for_tools(f"precision: {result.precision_note()}")
    if out:
        written = api.write_compare(result, out)
        _wrote_files(written, out)


#: What a comparison's line of encounters simulated counts them of: each variant's.
EACH_VARIANT = "A and of B"


def _note_unused_settings(first: Any, second: Any, given: dict[str, int | None]) -> None:
    """Say which of B's own run settings (``seed:``, ``encounters:``) a comparison did not
    use: both run on A's (or the command line's), so that they share their dice."""
    for key, value in given.items():
        own, used = getattr(second, key), getattr(first, key)
        if value is None and own != used:
            spell = "{:,}" if key == "encounters" else "{}"  # a seed is a name, not a size
            was = "were" if key == "encounters" else "was"  # B's own encounters were
            _say(f"note: B's own {key} ({spell.format(own)}) {was} not used; both ran on "
                 f"A's ({spell.format(used)}), on the same dice")  # fmt: skip


def _note_unused_precision(first: Any, second: Any, given: float | None, n: int) -> None:
    """Say that B's own ``precision:`` was not used: both ran to A's (or ``--precision``),
    or, A having none, ``n`` encounters (``-n`` or A's), as they ran on A's seed."""
    own = second.precision
    if given is not None or own is None or own == first.precision:
        return
    used = f"to A's ({first.precision:g})" if first.precision is not None else f"{n:,} encounters"
    _say(f"note: B's own precision ({own:g}) was not used; both ran {used}, on the same dice")


@main.command()
@SCENARIO
@click.option(
    "--vary",
    required=True,
    multiple=True,
    type=Spelled(TUNED_FIELD_SPELLED),
    metavar="NAME.FIELD=LO:HI",
    help="The field to tune and its range (integers when both ends are; no STEP: tune "
    "bisects): Defender.hp=10:60, params.strain_meter=4:12.",
)
@click.option(
    "--target",
    required=True,
    multiple=True,
    type=Spelled(TARGET_SPELLED),
    metavar="FIGURE[:ON]=VALUE",
    help="The figure and the value wanted: median_time_to_down:Defender=8, "
    "win_rate:attacker=0.5, hit_rate:strike=0.6, down_by_round:Defender@8=0.5.",
)
@SET
@_tuning_options("simulated value", "tune.json, tune.html and tune.md")
@SCHEDULER
@click.option("--no-exact", is_flag=True, help="Simulate every value (no exact engine).")
@TUNE_PRECISION
@handle_errors
def tune(
    scenario: str,
    vary: tuple[str, ...],
    target: tuple[str, ...],
    sets: tuple[str, ...],
    encounters: int | None,
    seed: int | None,
    threads: int | None,
    out: str | None,
    scheduler: str | None,
    no_exact: bool,
    precision: float | None,
    precision_on: tuple[str, ...],
) -> None:
    """Find the value of a field whose figure is closest to a target.

    --precision H runs each simulated value until the target's figure is known to ±H
    (--precision-on names other figures instead). Exit 1 when the target is outside the
    range the figure reaches (the closest value is given); 2 for a bad --vary or --target.
    """
    from simlab import api
    from simlab.report.tuning_terminal import print_tune
    from simlab.tuning.tune import parse_range, parse_target

    field = parse_range(_only_one(vary, "--vary"))
    goal = parse_target(_only_one(target, "--target"))
    scn = _with_sets(api.load(scenario), sets, (field.field,))
    _check_threads(threads)
    _prepare_out(out)
    client = _connect(scheduler, threads)
    result = api.tune(scn, field, goal, encounters, seed, threads=threads,
                      exact=not no_exact, precision=precision,
                      precision_on=_figures(precision_on), client=client)  # fmt: skip
    print_tune(result, scenario)
    if out:
        written = api.write_tune(result, out)
        _wrote_files(written, out)
    if not result.reachable:
        sys.exit(EXIT_CHECK_FAILED)
