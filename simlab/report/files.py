"""Writing results to disk: one command's output folder is one unit.

A reader of an output folder must see the files of one run, never a mix of two: not
after an interrupted rewrite, a full disk, a killed process or two commands writing the
same folder at once. :func:`output_unit` gives that guarantee to any command:

.. code-block:: python

    from simlab.report.files import output_unit, run_identity, write_json

    identity = run_identity([result])            # scenario hash, seed, encounters, version
    with output_unit("out/my-run", identity) as folder:
        write_json(folder / "summary.json", document)
        frame.to_parquet(folder / "table.parquet")
    # here "out/my-run" holds exactly these files, each stamped with ``identity``

Inside the ``with`` block the command writes its whole output into ``folder``, a fresh
staging folder beside the target (``.my-run.simlab-tmp-<pid>-<random>``). When the
block ends without an exception, every file is stamped with the run identity (JSON: a
``"run"`` field; Parquet: the ``simlab.run`` schema metadata; HTML: a ``<meta
name="simlab-run">``; Markdown: a closing ``<!-- simlab-run … -->`` comment; PNG: a
``simlab-run`` text chunk), a manifest ``.simlab-run.json`` records the identity and the
SHA-256 of every file, and the staging folder is swapped with the target in one
``renameat2(RENAME_EXCHANGE)`` (two renames where the system has no exchange), under a
lock on the parent folder so that concurrent writers take turns: the last one wins
whole. On an exception nothing changes and the staging folder is removed; a process
killed outright leaves its staging folder behind, and the next unit written beside it
removes it (its process is gone). :func:`check_unit` reads a folder back and refuses one
whose files disagree.

A target that exists must be empty, or a folder simlab wrote holding nothing but what
its manifest lists (those files, the folders they are in, and the manifest): an output
unit never replaces a folder holding other files, nor one without a manifest, so that it
never deletes a file simlab did not write. :func:`prepare_output` checks all this, and
that the folder can be written, before a command spends time simulating; the check is
made again under the lock, just before the swap.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import struct
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from simlab.arguments import names_an_entry
from simlab.errors import InputError
from simlab.limits import MAX_RESULTS_BYTES, read_bounded

if TYPE_CHECKING:  # imported where a table is written: a scenario's reader uses this module
    import pandas as pd

MANIFEST = ".simlab-run.json"
IDENTITY_KEY = "simlab-run"
_PARQUET_KEY = b"simlab.run"
_STAGING = ".simlab-tmp-"
_RETIRED = ".simlab-old-"
_MD_STAMP = re.compile(r"<!-- simlab-run (\{.*\}) -->\s*\Z")
_HTML_STAMP = re.compile(r'<meta name="simlab-run" content="([^"]*)">')


class OutputError(InputError):
    """An output folder that cannot be written (read-only, full disk, not a folder…).

    The machine's refusal, not a bug: exit code 2, and nothing was changed.
    """


# -- single files ----------------------------------------------------------------------------


def atomic_write(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``.

    Parameters
    ----------
    path : Path
        Final file name.
    write : callable
        Writes the complete content to the path it is given.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; give it a file's usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    """The process's file-creation mask (reading it means setting it, so set it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _json_text(document: Any) -> str:
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def write_json(path: Path, document: dict[str, Any]) -> Path:
    """Write ``document`` as indented JSON, atomically."""
    text = _json_text(document)

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return atomic_write(path, write)


def write_parquet(path: Path, frame: pd.DataFrame) -> Path:
    """Write ``frame`` as Parquet (zstd), atomically."""
    return atomic_write(path, lambda tmp: frame.to_parquet(tmp, compression="zstd", index=False))


# -- run identity ----------------------------------------------------------------------------


def scenario_hash(scenario: Any) -> str:
    """The first 64 bits, as 16 hex digits, of the SHA-256 of a loaded scenario's content
    (every field, defaults filled in). Stored baselines hold it: not to be lengthened.

    Two files that differ only in comments or layout have the same hash.
    """
    text = json.dumps(scenario.model_dump(mode="json"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


#: A scenario's fields that no figure of a run depends on: words for people (its id
#: names its runs, and a comparison's B set to another id plays A's fight).
WORDS_ONLY = ("scenario", "description")


def results_hash(scenario: Any) -> str:
    """:func:`scenario_hash` of the fields a run's figures depend on (every field but
    :data:`WORDS_ONLY`): two scenarios with the same one give the same figures on the same
    dice. Compared only (B identical to A), never stored."""
    content = {k: v for k, v in scenario.model_dump(mode="json").items() if k not in WORDS_ONLY}
    text = json.dumps(content, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_identity(results: list[Any], method: str = "simulation") -> dict[str, Any]:
    """The identity every file of an output unit carries.

    Parameters
    ----------
    results : list
        :class:`~simlab.analysis.result.Result` objects (or anything with ``scenario``,
        ``rules``, ``seed``, ``encounters`` and ``meta["scenario_hash"]``).
    method : str
        ``"simulation"`` or ``"exact"`` (exact answers have no seed or sample size).

    Returns
    -------
    dict
        ``{"simlab_version", "method", "scenarios": [{"scenario", "rules",
        "scenario_hash", "seed", "encounters"}]}``.
    """
    from simlab import __version__

    scenarios = []
    for res in results:
        entry = {"scenario": res.scenario, "rules": res.rules,
                 "scenario_hash": getattr(res, "meta", {}).get("scenario_hash")}  # fmt: skip
        if method != "exact":
            entry |= {"seed": int(res.seed), "encounters": int(res.encounters)}
        scenarios.append(entry)
    return {"simlab_version": __version__, "method": method, "scenarios": scenarios}


def _identity_text(identity: dict[str, Any]) -> str:
    return json.dumps(identity, sort_keys=True, separators=(",", ":"))


def _stamp(path: Path, identity: dict[str, Any]) -> None:
    """Put ``identity`` into one file, in the form its format allows (see the module doc)."""
    text = _identity_text(identity)
    kind = path.suffix.lower()
    if kind == ".json":
        doc = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("run") != identity:
            rest = {k: v for k, v in doc.items() if k != "run"}
            path.write_text(_json_text({"run": identity, **rest}), encoding="utf-8")
    elif kind == ".parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        meta = {**(table.schema.metadata or {}), _PARQUET_KEY: text.encode()}
        pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")
    elif kind == ".html":
        import html

        page = path.read_text(encoding="utf-8")
        tag = f'<meta name="simlab-run" content="{html.escape(text)}">'
        at = page.find("<head>")
        page = page[: at + 6] + tag + page[at + 6 :] if at >= 0 else tag + "\n" + page
        path.write_text(page, encoding="utf-8")
    elif kind == ".md":
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"\n<!-- simlab-run {text} -->\n")
    elif kind == ".png":
        path.write_bytes(_png_with_text(path.read_bytes(), IDENTITY_KEY, text))


def read_identity(path: Path) -> dict[str, Any] | None:
    """The run identity stamped in a file, or None when it carries none (or is unreadable)."""
    kind = path.suffix.lower()
    try:
        if kind == ".json":
            doc = json.loads(_read_text(path))
            return doc.get("run") if isinstance(doc, dict) else None
        if kind == ".parquet":
            import pyarrow.parquet as pq

            raw = (pq.read_schema(path).metadata or {}).get(_PARQUET_KEY)
            return None if raw is None else json.loads(raw)
        if kind == ".html":
            import html

            found = _HTML_STAMP.search(_read_text(path))
            return None if found is None else json.loads(html.unescape(found.group(1)))
        if kind == ".md":
            found = _MD_STAMP.search(_read_text(path))
            return None if found is None else json.loads(found.group(1))
        if kind == ".png":
            raw_text = _png_text(_read_small(path)).get(IDENTITY_KEY)
            return None if raw_text is None else json.loads(raw_text)
    except (OSError, ValueError):
        return None
    return None


def _read_small(path: Path) -> bytes:
    """A regular file's bytes, up to :data:`~simlab.limits.MAX_RESULTS_BYTES` (ValueError
    for anything else: :func:`simlab.limits.read_bounded`)."""
    return read_bounded(os.fspath(path), MAX_RESULTS_BYTES, ValueError)


def _read_text(path: Path) -> str:
    return _read_small(path).decode("utf-8")


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _png_with_text(png: bytes, key: str, text: str) -> bytes:
    """``png`` with a ``tEXt`` chunk ``key: text`` after its header chunk."""
    header_end = 8 + 8 + struct.unpack(">I", png[8:12])[0] + 4
    chunk = _png_chunk(b"tEXt", key.encode("latin-1") + b"\0" + text.encode("latin-1"))
    return png[:header_end] + chunk + png[header_end:]


def _png_text(png: bytes) -> dict[str, str]:
    """The ``tEXt`` chunks of a PNG."""
    out, at = {}, 8
    while at + 8 <= len(png):
        size, kind = struct.unpack(">I4s", png[at : at + 8])
        if kind == b"tEXt":
            key, _, value = png[at + 8 : at + 8 + size].partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        at += 12 + size
    return out


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


# -- the unit --------------------------------------------------------------------------------


def prepare_output(out_dir: str | os.PathLike[str], what: str = "--out") -> Path:
    """Check, before any work, that ``out_dir`` can become an output unit; tidy beside it.

    Removes the staging folders that killed processes left beside the target.

    Parameters
    ----------
    out_dir : path-like
        The output folder (it need not exist).
    what : str
        How the folder is named in messages (the CLI option).

    Raises
    ------
    OutputError
        When ``out_dir`` is empty or a file, lies under a file, is a mount point, holds
        files simlab did not write, or its nearest existing folder cannot be written, or
        its name holds a NUL byte, or it is a link to nothing. A link to a folder names
        that folder: the returned path is the folder's, which an output unit replaces,
        leaving the link as it was.
    """
    _refuse_empty(out_dir, what, "a folder path")
    out = Path(out_dir)
    _refuse_nul(out, what, "a folder path")
    if out.is_symlink():  # the folder it names is replaced, not the link by a folder
        if not out.exists():
            raise OutputError(f"{what} {out}: expected a folder, a link to one or a new "
                              "path; got a link to nothing")  # fmt: skip
        out = Path(os.path.realpath(out))
    if out.exists() and not out.is_dir():
        raise OutputError(f"{what} {out}: expected a folder; got a file")
    if out.is_dir():
        _require_replaceable(out, what)
    ancestor = _nearest_existing(out.parent)
    if not ancestor.is_dir():
        raise OutputError(f"{what} {out}: expected a folder path; got the file {ancestor} on it")
    try:
        Path(tempfile.mkdtemp(prefix=f".{out.name}{_STAGING}{os.getpid()}-", dir=ancestor)).rmdir()
    except OSError as err:
        raise OutputError(f"{what} {out}: expected a folder we can write; got "
                          f"{_describe(err)} in {ancestor}") from None  # fmt: skip
    if ancestor == out.parent:
        _remove_stale(out)
    return out


def prepare_file(path: str | os.PathLike[str], what: str) -> Path:
    """Check, before any work, that the single file ``path`` can be written atomically.

    Raises
    ------
    OutputError
        When ``path`` is empty or a folder, is a mount point, lies under a file, or its
        folder cannot be written, or its name holds a NUL byte.
    """
    _refuse_empty(path, what, "a file path")
    target = Path(path)
    _refuse_nul(target, what, "a file path")
    if target.is_dir():
        raise OutputError(f"{what} {target}: expected a file; got a folder")
    if target.exists() and is_mount_point(target):
        raise OutputError(f"{what} {target}: expected a file simlab can replace; got a mount "
                          "point (the file is written beside it and renamed over it, which a "
                          "mount point refuses); name a file in a mounted folder instead; "
                          "nothing was written")  # fmt: skip
    ancestor = _nearest_existing(target.parent)
    if not ancestor.is_dir():
        raise OutputError(f"{what} {target}: expected a file path; got the file {ancestor} on it")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=ancestor)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        raise OutputError(f"{what} {target}: expected a folder we can write; got "
                          f"{_describe(err)} in {ancestor}") from None  # fmt: skip
    return target


def _refuse_empty(path: str | os.PathLike[str], what: str, expected: str) -> None:
    """Refuse an empty path: ``Path("")`` is the current folder, which was not asked for."""
    if os.fspath(path) == "":
        raise OutputError(f"{what}: expected {expected}; got an empty one")


def _refuse_nul(path: Path, what: str, expected: str) -> None:
    """Refuse a path holding a NUL byte, which no file can have (the system would raise
    ValueError, not OSError)."""
    if "\0" in os.fspath(path):
        raise OutputError(f"{what} {os.fspath(path)!r}: expected {expected}; "
                          "got a path with a NUL byte")  # fmt: skip


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def is_mount_point(path: Path) -> bool:
    """Whether ``path`` is a mount point, which no rename can replace: a file system's
    root (``os.path.ismount``), or a folder or file bind-mounted from the same file
    system (a Docker volume or single-file mount), which only the system's mount table
    lists (Linux: ``/proc/self/mountinfo``, its fifth field, spaces written ``\\040``)."""
    if os.path.ismount(path):
        return True
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as table:
            points = {_unescape_mount(line.split()[4]) for line in table if line.strip()}
    except (OSError, IndexError):
        return False
    return os.path.realpath(path) in points


def _unescape_mount(field: str) -> str:
    """A mount table's path field as the path: ``\\040`` a space, ``\\011`` a tab, …"""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _require_replaceable(out: Path, what: str) -> None:
    """Refuse to replace ``out`` when it is a mount point, which no rename can replace
    (the swap would fail after the whole run), or when it holds anything simlab did not
    write there."""
    if is_mount_point(out):
        raise OutputError(f"{what} {out}: expected a folder simlab can replace; got a mount "
                          "point (the output is written beside the folder and swapped in "
                          "whole, which a mount point refuses); name a folder inside it, "
                          f"such as {out / 'report'}; nothing was written")  # fmt: skip
    foreign = _foreign_entries(out)
    if not foreign:
        return
    shown = ", ".join(str(out / name) for name in foreign[:5])
    more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
    raise OutputError(f"{what} {out}: expected a new or empty folder, or one simlab wrote "
                      f"holding only its own files; got {shown}{more}, which simlab did not "
                      "write there; nothing was written")  # fmt: skip


def _foreign_entries(out: Path) -> list[str]:
    """The entries of ``out`` its manifest does not list, as paths relative to ``out``.

    A folder neither listed nor holding a listed file counts once, not its content.
    Without a readable manifest every entry is foreign (simlab wrote none, or we cannot
    tell which).
    """
    try:
        manifest = _read_manifest(out)
    except InputError:
        manifest = None
    if manifest is None:
        return sorted(entry.name for entry in out.iterdir())
    listed = {MANIFEST, *manifest["files"]}
    folders = {parent.as_posix() for name in listed for parent in PurePosixPath(name).parents}
    foreign: list[str] = []

    def unreadable(err: OSError) -> None:  # a folder we cannot look into is not known
        foreign.append(Path(err.filename).relative_to(out).as_posix())

    for top, dirs, files in os.walk(out, onerror=unreadable):
        here = Path(top).relative_to(out)
        foreign.extend((here / d).as_posix() for d in dirs if (here / d).as_posix() not in folders)
        dirs[:] = [d for d in dirs if (here / d).as_posix() in folders]
        foreign.extend((here / f).as_posix() for f in files if (here / f).as_posix() not in listed)
    return sorted(foreign)


def _describe(err: OSError) -> str:
    return (err.strerror or str(err) or type(err).__name__).lower()


def _remove_stale(out: Path) -> None:
    """Remove staging and retired folders beside ``out`` whose process has ended."""
    for path in out.parent.glob(f".{out.name}.simlab-*"):
        found = re.match(rf"\.{re.escape(out.name)}\.simlab-(?:tmp|old)-(\d+)-", path.name)
        if found and not _alive(int(found.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextlib.contextmanager
def output_unit(out_dir: str | os.PathLike[str], identity: dict[str, Any]) -> Iterator[Path]:
    """Write a command's output folder as one unit (see the module docstring).

    Parameters
    ----------
    out_dir : path-like
        The output folder; replaced whole when the block succeeds.
    identity : dict
        The run identity (:func:`run_identity`) stamped into every file.

    Yields
    ------
    Path
        The staging folder to write every file into.

    Raises
    ------
    OutputError
        When the folder cannot be written (checked first, see :func:`prepare_output`)
        or the disk refuses a write (full, read-only…); nothing is changed then.
    """
    out = prepare_output(out_dir, "output folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}{_STAGING}{os.getpid()}-",
                                        dir=out.parent))  # fmt: skip
    except OSError as err:
        raise OutputError(f"{out}: expected a folder we can write; got {_describe(err)}") from None
    try:
        yield staging
        for path in _files(staging):
            _stamp(path, identity)
        manifest = {"run": identity, "files": {p.relative_to(staging).as_posix(): _sha256(p)
                                               for p in _files(staging)}}  # fmt: skip
        (staging / MANIFEST).write_text(_json_text(manifest), encoding="utf-8")
        _set_modes(staging)
        with _signals_held(), _parent_lock(out.parent):
            _require_replaceable(out, "output folder") if out.is_dir() else None
            _swap_in(staging, out)
    except OSError as err:
        raise OutputError(f"{out}: could not write the output ({_describe(err)}); "
                          "nothing was changed") from None  # fmt: skip
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _set_modes(staging: Path) -> None:
    """Give the staging folder the modes a folder made by ``mkdir`` would have."""
    mask = _umask()
    for path in [staging, *staging.rglob("*")]:
        os.chmod(path, (0o777 if path.is_dir() else 0o666) & ~mask)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM while the swap happens, so it is never cut in half."""
    held = {signal.SIGINT, signal.SIGTERM}
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


@contextlib.contextmanager
def _parent_lock(parent: Path) -> Iterator[None]:
    """An exclusive ``flock`` on the folder that holds the target: writers take turns."""
    fd = os.open(parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); False when the system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _swap_in(staging: Path, out: Path) -> None:
    """Put ``staging`` at ``out``; the previous ``out`` ends up at ``staging`` (removed)."""
    if not out.exists():
        os.rename(staging, out)
        staging.mkdir()  # so that the caller's clean-up finds what it expects
        return
    if _exchange(staging, out):
        return
    retired = out.parent / f".{out.name}{_RETIRED}{os.getpid()}-{os.urandom(4).hex()}"
    os.rename(out, retired)
    os.rename(staging, out)
    os.rename(retired, staging)


@contextlib.contextmanager
def reading_unit(folder: str | os.PathLike[str]) -> Iterator[Path]:
    """Hold a shared lock on the folder that holds ``folder`` while reading it, so that
    no writer swaps a new unit in half-way through the reading."""
    root = Path(folder)
    parent = root.resolve().parent
    try:
        fd = os.open(parent, os.O_RDONLY)
    except OSError:
        yield root
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        yield root
    finally:
        os.close(fd)


def check_unit(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The run identity of an output folder, after checking that all its files agree.

    Parameters
    ----------
    folder : path-like
        An output folder.

    Returns
    -------
    dict or None
        The identity; None for a folder written before identities existed (no manifest
        and no stamped file).

    Raises
    ------
    InputError
        Naming the files that disagree, are missing or were changed since written.
    """
    with reading_unit(folder) as root:
        return _check_unit(root)


def _read_manifest(root: Path) -> dict[str, Any] | None:
    """The manifest of the output folder ``root`` (``{"run", "files"}``); None without one.

    Raises
    ------
    InputError
        When ``.simlab-run.json`` is not a regular file (of at most
        :data:`~simlab.limits.MAX_RESULTS_BYTES`) in the manifest's form.
    """
    path = root / MANIFEST
    if not os.path.lexists(path):
        return None

    def refuse(got: str) -> InputError:
        return InputError(f"{path}: expected simlab's manifest; got {got}")

    try:
        manifest = json.loads(read_bounded(os.fspath(path), MAX_RESULTS_BYTES, refuse).decode())
        return {"run": manifest["run"], "files": dict(manifest["files"])}
    except (ValueError, KeyError, TypeError) as err:
        raise refuse(f"{type(err).__name__}: {err}") from None


def _check_unit(root: Path) -> dict[str, Any] | None:
    manifest = _read_manifest(root)
    expected = None if manifest is None else manifest["run"]
    listed: dict[str, str] = {} if manifest is None else manifest["files"]
    problems, strays = [], []
    for name, digest in listed.items():
        path = root / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif _sha256(path) != digest:
            problems.append(f"{name} is not the file this run wrote")
    changed = bool(problems)
    # Without a manifest the folder may be any folder: look at its own files only.
    for path in _files(root) if listed else sorted(p for p in root.iterdir() if p.is_file()):
        found = read_identity(path)
        if found is None:
            continue
        expected = expected if expected is not None else found
        name = path.relative_to(root).as_posix()
        if found != expected:
            problems.append(f"{name} is from another run ({_short(found)}, not "
                            f"{_short(expected)})")  # fmt: skip
            strays += [name] if listed and name not in listed else []
    if problems:
        raise InputError(
            f"{root}: expected the files of one run; got "
            + "; ".join(problems[:10])
            + (f" (and {len(problems) - 10} more)" if len(problems) > 10 else "")
            + _mending(root, strays, changed)
        )
    return expected


def _mending(root: Path, strays: list[str], changed: bool) -> str:
    """``: take stray.json out of the folder and write it again with simlab report
    --out``: what mends an output folder whose files disagree; "" where that is not
    known (a folder without a manifest: which file is the odd one?)."""
    unit = _unit_of(root)
    steps = [f"take {', '.join(strays)} out of the folder"] if strays else []
    if changed and unit is not None:
        steps.append(f"write {'it' if steps else 'the folder'} again with {unit.writer}")
    return f": {' and '.join(steps)}" if steps else ""


def _short(identity: dict[str, Any]) -> str:
    parts = [f"{s.get('scenario')} seed {s.get('seed')} n {s.get('encounters')}"
             for s in identity.get("scenarios", [])]  # fmt: skip
    return ", ".join(parts) or "no scenario"


# -- what an output is -----------------------------------------------------------------------

#: Where a scenario file or a results file is expected, as readers say it.
A_SCENARIO = "a scenario file (YAML)"
A_RESULTS_FILE = "a results.json (simlab report --out, baseline update)"
#: The JSON file that names an output folder's kind, in the order a folder is asked.
_MAIN_FILES = ("results.json", "summary.json", "sweep.json", "compare.json", "tune.json")
#: The pages of an output folder, by their name's stem, and the kind of folder they are in.
_PAGES = {"report": "results", "sweep": "sweep", "compare": "compare", "tune": "tune"}
#: What a file of an output folder that is not JSON is, by its suffix (each one stamped
#: with the run identity: a designer's own notes.md is not one).
_ROLES = {".html": ("page", "its page, to open in a browser"),
          ".md": ("page", "its page in Markdown, to read"),
          ".parquet": ("table", "one of its tables (Parquet)"),
          ".png": ("plot", "a plot drawn on its page")}  # fmt: skip
#: How every JSON file simlab writes opens: its run identity first (:func:`_stamp`).
_JSON_OPENING = '{\n  "run": {\n    "simlab_version"'
#: A top-level field of JSON written as simlab writes it (indented by 2): what a file cut
#: short still shows of its kind.
_TOP_LEVEL = re.compile(r'^  "([^"\n]+)": (.*?),?$', re.MULTILINE)
_COUNTS = ("a report and the drift gate need the counts behind the figures: simlab report "
           "SCENARIO --out DIR or simlab baseline update SCENARIO writes them "
           "(simlab.save_results in Python)")  # fmt: skip
_TABLES = ("its tables are the output folder's Parquet files, to read with pandas "
           "(pandas.read_parquet); simlab run takes the scenario's YAML file")  # fmt: skip
_SWEEP = ("its tables are the output folder's Parquet files, to read with pandas "
          "(pandas.read_parquet), or run simlab.sweep again: simlab.plot_sweep draws a "
          "sweep made in the session")  # fmt: skip
_PANDAS = "read it with pandas (pandas.read_parquet)"
_RUN_AND_VALIDATE = "simlab run and validate"
_A_SCENARIO_IS_YAML = f"{_RUN_AND_VALIDATE} take the scenario's YAML file"


def _json_as_is(command: str) -> str:
    return (
        f"read {command}.json as JSON (json.load), or run simlab.{command} again for a "
        "result in the session"
    )


#: kind → (its file, the command that writes it, what it holds, what to do instead of
#: reading it as a scenario, what to do instead of reading it as results).
_KINDS: dict[str, tuple[str, str, str, str, str]] = {
    "results": ("results.json", "simlab report --out or baseline update",
                "a run's counts and figures",
                "give it to simlab report --from or simlab check --from (simlab.load_results "
                f"in Python), or the scenario's YAML file to {_RUN_AND_VALIDATE}", ""),
    "run": ("summary.json", "simlab run", "figures, without the counts they come from",
            _TABLES, _COUNTS),
    "exact": ("summary.json", "simlab exact",
              "exact answers, without the counts a run is tested against", _TABLES, _COUNTS),
    "sweep": ("sweep.json", "simlab sweep", "a sweep's figures at each point", _SWEEP, _SWEEP),
    "compare": ("compare.json", "simlab compare", "A's and B's figures and their differences",
                _json_as_is("compare"), _json_as_is("compare")),
    "tune": ("tune.json", "simlab tune", "the value found and the values tried",
             _json_as_is("tune"), _json_as_is("tune")),
    "drift": ("drift.json", "simlab report --baseline", "the drift gate's verdict",
              "read it as JSON (json.load); simlab report --from reads the run's results "
              "in its folder,", "the run's results are the results.json beside it: give its "
              "folder,"),
}  # fmt: skip


#: What to do with a drift.json that has no results.json beside it (copied or moved away
#: from the report that wrote it), in place of :data:`_KINDS`' words that name its folder.
_DRIFT_ALONE = (
    "read it as JSON (json.load); simlab report --from reads the run's results in the "
    "folder of the report that wrote it (no results.json is beside this one)",
    "the run's results are the results.json the report wrote beside it, and none is "
    "beside this one (copied or moved away): give the folder of that report",
)


@dataclass(frozen=True)
class SimlabOutput:
    """A file or folder simlab wrote, given to a reader that expects another thing.

    Attributes
    ----------
    kind : str
        ``"results"`` (a results file: what ``--from`` and ``--baseline`` read), ``"run"``,
        ``"exact"``, ``"sweep"``, ``"compare"``, ``"tune"``, ``"drift"``, ``"manifest"``
        (an output folder's list of files), or, for the files of an output folder that
        are not JSON, ``"page"`` (HTML, Markdown), ``"table"`` (Parquet) or ``"plot"``
        (PNG).
    what : str
        What it is, in words: ``the sweep.json of simlab sweep (training-duel)``.
    holds : str
        What it holds: ``a sweep's figures at each point``; "" for a damaged one.
    instead_of_scenario, instead_of_results : str
        What to do with it instead, where a scenario or a results file was expected.
    damage : str
        How a JSON file simlab wrote can no longer be read (``empty``, ``cut short at
        line 398 …``), or an output folder its main file is missing from; "" for a
        whole one.
    """

    kind: str
    what: str
    holds: str
    instead_of_scenario: str
    instead_of_results: str
    damage: str = ""

    def said(self) -> str:
        """``WHAT, HOLDS``: what it is and what it holds, as a refusal's ``got``."""
        return f"{self.what}, {self.holds}" if self.holds else self.what

    def refusal(self, expected: str) -> str:
        """``expected A; got WHAT, HOLDS: WHAT TO DO`` where ``expected`` is
        :data:`A_SCENARIO` or :data:`A_RESULTS_FILE`."""
        instead = self.instead_of_scenario if expected == A_SCENARIO else self.instead_of_results
        return f"expected {expected}; got {self.said()}: {instead}"


def simlab_output(path: str | os.PathLike[str], document: Any = None) -> SimlabOutput | None:
    """What simlab output ``path`` is (a file, or an output folder), or None for
    anything else: the one place that tells a simlab output by its contents (its fields,
    the ``run`` identity's ``method``, the identity stamped in a page, table or plot, the
    folder's list of files), for every reader to name what it was given.

    Parameters
    ----------
    path : path-like
        The file or folder given.
    document : optional
        The file's JSON document, where the reader has read it already.

    Returns
    -------
    SimlabOutput or None
        None for a file that is not one of simlab's outputs (a scenario, a file of
        another program, a designer's own notes, one that cannot be read) and a folder
        holding none. A JSON file simlab wrote that can no longer be read (emptied or
        changed since, as its folder's ``.simlab-run.json`` shows, or cut short) is one,
        with its :attr:`~SimlabOutput.damage`; so is an output folder without its main
        file.
    """
    p = Path(path)
    if document is None and names_an_entry(p, "folder"):
        return _folder_output(p, "an output folder of")
    if document is None:
        document = _json_document(p)
    if document is None:
        return _written_file(p)
    if p.name == MANIFEST and isinstance(document, dict) and "files" in document:
        folder = _folder_output(p.parent, f"the {MANIFEST} (the list of files) of")
        return None if folder is None else replace(folder, kind="manifest")
    kind = _output_kind(document)
    if kind is None:
        return None
    return _output_file(p, kind, _scenarios_of(document.get("run")))


def _json_document(p: Path) -> Any:
    """The JSON document at ``p``; None for anything else, or a file that cannot be read
    (a scenario's YAML, a FIFO, a file too large)."""
    try:
        return json.loads(read_bounded(os.fspath(p), MAX_RESULTS_BYTES, OSError))
    except (OSError, ValueError):
        return None


def _output_kind(doc: Any) -> str | None:
    """Which of :data:`_KINDS` a JSON document is, by the fields only it has."""
    if not isinstance(doc, dict):
        return None
    fields = {
        "results": ("format", "scenarios"), "drift": ("verdict", "figures"),
        "sweep": ("vary", "points"), "compare": ("scenario_a", "figures"),
        "tune": ("target", "evaluations"),
    }  # fmt: skip
    for kind, keys in fields.items():
        if all(k in doc for k in keys):
            return kind
    if not isinstance(doc.get("attacks"), list):
        return None
    if doc.get("method") == "exact":
        return "exact"
    return "run" if "encounters" in doc else None


def _output_file(p: Path, kind: str, scenarios: str, writer: str = "") -> SimlabOutput:
    """One of simlab's JSON outputs, of ``kind``, at ``p``."""
    file, by, holds, as_scenario, as_results = _KINDS[kind]
    if kind == "drift" and (p.parent / "results.json").is_file():
        as_scenario, as_results = f"{as_scenario} {p.parent}", f"{as_results} {p.parent}"
    elif kind == "drift":  # moved or copied away from its report: no folder to name
        as_scenario, as_results = _DRIFT_ALONE
    return SimlabOutput(kind, f"the {file} of {writer or by}{scenarios}", holds, as_scenario,
                        as_results)  # fmt: skip


def _scenarios_of(identity: Any) -> str:
    """`` (training-duel)``: the scenarios a run identity names, each once."""
    entries = identity.get("scenarios") if isinstance(identity, dict) else None
    if not isinstance(entries, list):
        return ""
    names = [e.get("scenario") for e in entries if isinstance(e, dict)]
    shown = list(dict.fromkeys(n for n in names if isinstance(n, str)))
    if not shown:
        return ""
    return f" ({', '.join(shown[:3])}{', …' if len(shown) > 3 else ''})"


# -- output folders --


@dataclass(frozen=True)
class _Unit:
    """What an output folder is: its kind (of :data:`_KINDS`), the command that wrote
    it and the scenarios its run identity names (`` (training-duel)``)."""

    kind: str
    writer: str
    scenarios: str


def _unit_of(folder: Path) -> _Unit | None:
    """What output folder ``folder`` is, or None for another folder: told by its
    manifest's list of files, which outlives a main file lost or cut short; without one
    (an older simlab's), by its main JSON file, else by its stamped pages."""
    try:
        manifest = _read_manifest(folder)
    except (InputError, OSError):
        manifest = None
    if manifest is not None:
        listed = set(manifest["files"])
        kind = _kind_listed(listed, manifest["run"])
        if kind is not None:
            return _Unit(kind, _folder_writer(kind, "drift.json" in listed),
                         _scenarios_of(manifest["run"]))  # fmt: skip
    for name in _MAIN_FILES:
        doc = _json_document(folder / name)
        kind = _output_kind(doc)
        if kind is not None:
            drift = (folder / "drift.json").is_file()
            return _Unit(kind, _folder_writer(kind, drift), _scenarios_of(doc.get("run")))
    for stem, kind in _PAGES.items():
        identity = read_identity(folder / f"{stem}.html") or read_identity(folder / f"{stem}.md")
        if identity is not None:
            drift = (folder / "drift.json").is_file()
            return _Unit(kind, _folder_writer(kind, drift), _scenarios_of(identity))
    return None


def _kind_listed(listed: set[str], identity: Any) -> str | None:
    """The kind of the output folder whose manifest lists ``listed``, by its main file."""
    for name in _MAIN_FILES:
        if name in listed and name == "summary.json":
            exact = isinstance(identity, dict) and identity.get("method") == "exact"
            return "exact" if exact else "run"
        if name in listed:
            return next(kind for kind, entry in _KINDS.items() if entry[0] == name)
    return None


def _folder_writer(kind: str, drift: bool) -> str:
    """The command that writes an output folder of ``kind``: a folder of results is a
    report's, the drift gate's where it holds a ``drift.json``."""
    if kind == "results":
        return "simlab report --baseline" if drift else "simlab report --out"
    return _KINDS[kind][1]


def _folder_output(folder: Path, what: str) -> SimlabOutput | None:
    """An output folder (``what`` ``an output folder of``), or its manifest, said as
    what it is; one without its main file, or with that file damaged, said so."""
    unit = _unit_of(folder)
    if unit is None:
        return None
    main = folder / _KINDS[unit.kind][0]
    found = simlab_output(main) if main.is_file() else None
    if found is None or found.damage:
        return _incomplete_folder(folder, unit, what, found)
    kind = found.kind if found.kind in _KINDS else unit.kind
    writer = unit.writer if kind == unit.kind else _KINDS[kind][1]
    as_results = f"give the folder {folder}" if kind == "results" else found.instead_of_results
    return SimlabOutput(kind, f"{what} {writer}{unit.scenarios}", found.holds,
                        found.instead_of_scenario, as_results)  # fmt: skip


def _incomplete_folder(
    folder: Path, unit: _Unit, what: str, found: SimlabOutput | None
) -> SimlabOutput:
    """An output folder whose main file is missing, damaged or not simlab's."""
    main = _KINDS[unit.kind][0]
    if found is not None:
        lacks = f"whose {main} is {found.damage}"
    elif (folder / main).exists():
        lacks = f"whose {main} is not the one simlab wrote"
    else:
        lacks = f"without its {main}"
    again = f"write the folder again with {unit.writer}"
    return SimlabOutput(unit.kind, f"{what} {unit.writer}{unit.scenarios} {lacks}", "",
                        f"{_A_SCENARIO_IS_YAML}; {again}", again, damage=lacks)  # fmt: skip


# -- the other files of an output folder, and JSON files damaged --


def _written_file(p: Path) -> SimlabOutput | None:
    """A page, table or plot of an output folder (told by the run identity stamped in
    it, not by its suffix alone), or a JSON file simlab wrote that can no longer be read;
    None for anything else."""
    role = _ROLES.get(p.suffix.lower())
    identity = read_identity(p) if role is not None and p.is_file() else None
    if role is not None and identity is not None:
        return _folder_file(p, role, identity)
    return _damaged_json(p)


def _folder_file(p: Path, role: tuple[str, str], identity: Any) -> SimlabOutput:
    """A file of an output folder that is not JSON, said with the folder it is in."""
    kind, holds = role
    folder, unit = next(((f, u) for f in (p.parent, p.parent.parent)
                         if (u := _unit_of(f)) is not None),
                        (p.parent, None))  # fmt: skip
    if unit is None:  # taken out of its folder: a page's name still says whose it is
        page = _PAGES.get(p.stem)
        unit = _Unit(page or "results", _folder_writer(page, False) if page else "simlab",
                     _scenarios_of(identity))  # fmt: skip
    what = f"the {p.relative_to(folder).as_posix()} of {unit.writer}{unit.scenarios}"
    if kind == "table":  # a run's, an exact answer's or a sweep's: none holds counts
        return SimlabOutput(kind, what, holds, f"{_PANDAS}; simlab run takes the scenario's "
                            "YAML file", f"{_PANDAS}; {_COUNTS}")  # fmt: skip
    if unit.kind != "results":
        _, _, _, as_scenario, as_results = _KINDS[unit.kind]
        return SimlabOutput(kind, what, holds, as_scenario, as_results)
    if not (folder / "results.json").is_file():
        return SimlabOutput(kind, what, holds, _A_SCENARIO_IS_YAML, _COUNTS)
    return SimlabOutput(kind, what, holds,
                        f"give its folder, {folder}, to simlab report --from or simlab check "
                        "--from (simlab.load_results in Python), or the scenario's YAML file "
                        f"to {_RUN_AND_VALIDATE}", f"give its folder, {folder}")  # fmt: skip


def _damaged_json(p: Path) -> SimlabOutput | None:
    """A JSON file simlab wrote that can no longer be read: one its folder's manifest
    lists with another SHA-256 (emptied, garbled), or one that opens with simlab's run
    identity and ends before its document does (cut short). None for anything else: an
    empty file of no output folder says nothing of who wrote it."""
    try:
        data = _read_small(p)
    except (OSError, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    unit, listed = _listing_unit(p, data)
    cut = cut_short_at(text)
    if unit is None and not (cut is not None and text.startswith(_JSON_OPENING)):
        return None
    if not text.strip():
        damage = "empty"
    elif cut is not None:
        damage = f"cut short at line {cut} (the file ends before its JSON does)"
    else:
        damage = "no longer JSON (changed since it was written)"
    kind = _damaged_kind(p, text, unit if listed else None)
    if kind is None:
        return None
    scenarios = unit.scenarios if unit is not None else _scenarios_of(_identity_in(text))
    writer = unit.writer if unit is not None and kind == unit.kind else ""
    whole = _output_file(p, kind, scenarios, writer)
    again = f"write it again with {writer or _KINDS[kind][1]}"
    if kind == "results" and unit is None:  # a baseline, perhaps in version control
        again = (f"write it again from its scenarios (simlab baseline update SCENARIO|DIR... "
                 f"--baseline {p}), or restore a committed one from version control")  # fmt: skip
    return SimlabOutput(kind, f"{whole.what}, {damage}", "", f"{_A_SCENARIO_IS_YAML}; {again}",
                        again, damage=damage)  # fmt: skip


def _listing_unit(p: Path, data: bytes) -> tuple[_Unit | None, bool]:
    """The output folder that lists ``p`` in its manifest with another SHA-256 than
    ``data``'s (so simlab wrote it, and it was changed since), and whether it does."""
    try:
        manifest = _read_manifest(p.parent)
    except (InputError, OSError):
        return None, False
    digest = None if manifest is None else manifest["files"].get(p.name)
    if digest is None or digest == hashlib.sha256(data).hexdigest():
        return None, False
    return _unit_of(p.parent), True


def _damaged_kind(p: Path, text: str, unit: _Unit | None) -> str | None:
    """The kind of a damaged JSON file: its folder's, where it is that folder's main
    file; else told by the top-level fields it still has, else by its name."""
    if unit is not None and p.name == _KINDS[unit.kind][0]:
        return unit.kind
    fields = {}
    for key, value in _TOP_LEVEL.findall(text):
        try:
            fields[key] = json.loads(value)
        except ValueError:  # a list or mapping that goes on below: its kind is enough
            fields[key] = [] if value.startswith("[") else {}
    by_name = {entry[0]: kind for kind, entry in _KINDS.items() if entry[0] != "summary.json"}
    return _output_kind(fields) or by_name.get(p.name)


def _identity_in(text: str) -> Any:
    """The run identity at the start of a JSON text simlab wrote, where it is whole."""
    at = text.find('"run": ')
    try:
        return json.JSONDecoder().raw_decode(text, at + len('"run": '))[0] if at >= 0 else None
    except ValueError:
        return None


def cut_short_at(text: str) -> int | None:
    """Where a JSON text was cut short (it ends before its document does: a copy
    interrupted, a full disk).

    Everything before the end of a cut text is JSON, so the parser stops at its end,
    wanting more (``{"a": [1,``: a value; ``{"a": 1``: a ',' or a '}'). One that stops
    before the end found something that is not JSON.

    Parameters
    ----------
    text : str
        A file's text.

    Returns
    -------
    int or None
        Its last line; None for whole JSON, an empty text, or any other text.
    """
    stripped = text.rstrip()
    if not stripped.lstrip().startswith(("{", "[")):
        return None
    try:
        json.loads(stripped)
    except json.JSONDecodeError as err:
        return stripped.count("\n") + 1 if err.pos >= len(stripped) else None
    return None
