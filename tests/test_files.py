"""Output files are written atomically, output folders as one unit stamped with the run
identity, and readable like any other file."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pandas as pd
import pytest

from simlab.errors import InputError
from simlab.report.files import (
    MANIFEST,
    OutputError,
    check_unit,
    output_unit,
    prepare_output,
    read_identity,
    write_json,
    write_parquet,
)


def test_written_files_get_the_usual_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_json(tmp_path / "summary.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]  # no temporary left


# -- output units ------------------------------------------------------------------------------

IDENTITY = {"simlab_version": "test", "method": "simulation",
            "scenarios": [{"scenario": "s", "rules": "r", "scenario_hash": "h", "seed": 1,
                           "encounters": 10}]}  # fmt: skip


def write_every_kind(folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    write_json(folder / "summary.json", {"a": 1})
    write_parquet(folder / "t.parquet", pd.DataFrame({"x": [1, 2]}))
    (folder / "report.html").write_text("<html><head><title>t</title></head><body></body></html>")
    (folder / "report.md").write_text("# t\n")
    (folder / "png").mkdir()
    fig = plt.figure()
    fig.savefig(folder / "png" / "p.png")
    plt.close(fig)


def test_every_file_of_a_unit_carries_the_run_identity(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with output_unit(out, IDENTITY) as folder:
        write_every_kind(folder)
        assert not out.exists()  # nothing is visible before the unit is complete
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert files == [MANIFEST, "png/p.png", "report.html", "report.md", "summary.json",
                     "t.parquet"]  # fmt: skip
    for name in files[1:]:
        assert read_identity(out / name) == IDENTITY, name
    assert check_unit(out) == IDENTITY
    assert pd.read_parquet(out / "t.parquet").x.tolist() == [1, 2]
    assert json.loads((out / "summary.json").read_text())["a"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_failed_unit_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with output_unit(out, IDENTITY) as folder:
        write_json(folder / "summary.json", {"a": 1})
    other = {**IDENTITY, "scenarios": [{**IDENTITY["scenarios"][0], "seed": 2}]}
    with pytest.raises(KeyboardInterrupt), output_unit(out, other) as folder:
        write_json(folder / "summary.json", {"a": 2})
        raise KeyboardInterrupt
    assert check_unit(out) == IDENTITY
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_check_unit_names_files_from_another_run_or_changed(tmp_path: Path) -> None:
    out, other = tmp_path / "out", tmp_path / "other"
    second = {**IDENTITY, "scenarios": [{**IDENTITY["scenarios"][0], "seed": 2}]}
    for folder, identity in ((out, IDENTITY), (other, second)):
        with output_unit(folder, identity) as staging:
            write_every_kind(staging)
    (out / "png" / "p.png").write_bytes((other / "png" / "p.png").read_bytes())
    with pytest.raises(InputError, match=r"png/p.png is not the file this run wrote; "
                       r"png/p.png is from another run \(s seed 2"):  # fmt: skip
        check_unit(out)
    (out / "report.md").unlink()
    with pytest.raises(InputError, match=r"report\.md is missing"):
        check_unit(out)


def test_a_unit_never_replaces_a_folder_of_other_files(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    refused = pytest.raises(OutputError, match="expected a new or empty folder")
    with refused, output_unit(tmp_path, IDENTITY) as folder:
        write_json(folder / "summary.json", {})
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_a_unit_never_replaces_a_unit_holding_other_files(tmp_path: Path) -> None:
    """Only what the manifest lists may be replaced: an entry added to a folder simlab
    wrote, at any depth, is named and the folder left as it was; a listed file that is
    gone does not matter."""
    out = tmp_path / "out"
    with output_unit(out, IDENTITY) as folder:
        write_every_kind(folder)
    (out / "png" / "mine.txt").write_text("keep")
    (out / "extra" / "deep").mkdir(parents=True)
    (out / "report.md").unlink()
    with pytest.raises(OutputError) as refused, output_unit(out, IDENTITY) as folder:
        write_json(folder / "summary.json", {})
    assert str(refused.value) == (
        f"output folder {out}: expected a new or empty folder, or one simlab wrote holding "
        f"only its own files; got {out / 'extra'}, {out / 'png/mine.txt'}, which simlab did "
        "not write there; nothing was written"
    )
    assert (out / "png" / "mine.txt").read_text() == "keep" and (out / "extra/deep").is_dir()
    (out / "png" / "mine.txt").unlink()
    shutil.rmtree(out / "extra")
    with output_unit(out, IDENTITY) as folder:
        write_json(folder / "summary.json", {"a": 2})
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "summary.json"]


def test_a_folder_without_a_manifest_is_not_taken_for_simlabs(tmp_path: Path) -> None:
    """A summary.json alone does not say that simlab wrote the folder (nor what else)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    (out / "notes.txt").write_text("keep")
    with pytest.raises(OutputError, match="expected a new or empty folder, or one simlab wrote"):
        prepare_output(out)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "summary.json"]


def test_staging_left_by_a_dead_process_is_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    stale = tmp_path / f".out.simlab-tmp-{dead}-abcd"
    stale.mkdir()
    live = tmp_path / f".out.simlab-tmp-{os.getpid()}-live"  # a writer still running
    live.mkdir()
    with output_unit(tmp_path / "out", IDENTITY) as folder:
        write_json(folder / "summary.json", {})
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "out"]


def test_simulated_tallies_do_not_depend_on_how_the_run_loop_splits_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run loop cuts a run into short kernel calls (to notice Ctrl-C): any cut gives
    the same integers."""
    import numpy as np

    from simlab.api import compile_job, load
    from simlab.engine import pieces, runner

    job = compile_job(load("scenarios/shattered-spirits/quickstart.yaml"), n=5000, seed=3)
    whole = runner.run_local(job, block_size=5000)
    monkeypatch.setattr(pieces, "PIECE_SECONDS", 1e-6)  # calls of MIN_PIECE encounters
    sizes: list[int] = []
    cut = runner.run_local(job, threads=1, block_size=777, progress=sizes.append)
    assert sum(sizes) == 5000 and len(sizes) > 15
    for name, a, b in zip(whole._fields, whole, cut, strict=True):
        assert np.array_equal(a, b), name


def test_a_mount_point_is_refused_before_any_work() -> None:
    """A mount point cannot be swapped with a staging folder (the exchange fails with
    "device or resource busy"): the walkthrough's report ran whole, then lost it. It is
    refused up front, naming a folder inside it to use instead. ``/`` is a mount point
    on every machine; without the check it was refused for holding other files."""
    with pytest.raises(OutputError, match=r"got a mount point .*such as /report"):
        prepare_output("/")


def test_an_empty_mount_point_is_refused_too(tmp_path: Path) -> None:
    """The case the walkthrough met: an empty, writable mount (a Docker volume)."""
    import subprocess

    mnt = tmp_path / "mnt"
    mnt.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "none", str(mnt)],
                             capture_output=True).returncode == 0  # fmt: skip
    if not mounted:
        pytest.skip("mounting a tmpfs needs privileges this machine does not give")
    try:
        assert os.path.ismount(mnt) and not any(mnt.iterdir())
        with pytest.raises(OutputError, match="got a mount point"):
            prepare_output(mnt)
        prepare_output(mnt / "report")  # a folder inside it is fine
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def _bind(source: Path, target: Path) -> None:
    """Bind-mount ``source`` on ``target``, or skip where the machine does not allow it."""
    import subprocess

    done = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True)
    if done.returncode != 0:
        pytest.skip("bind mounts need privileges this machine does not give")


def test_a_bind_mount_is_refused_as_a_folder_and_as_a_file(tmp_path: Path) -> None:
    """A bind mount from the same file system (a Docker volume, a single-file mount) is
    no mount point to ``os.path.ismount``: the report ran whole, then failed with
    "device or resource busy", and so did ``baseline update`` onto a mounted file. The
    mount table tells them."""
    import subprocess

    from simlab.report.files import prepare_file

    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text("{}")
    _bind(tmp_path / "src", tmp_path / "out")
    try:
        assert not os.path.ismount(tmp_path / "out")
        with pytest.raises(OutputError, match="got a mount point"):
            prepare_output(tmp_path / "out")
        prepare_output(tmp_path / "src")  # the folder mounted elsewhere is no mount point
    finally:
        subprocess.run(["umount", str(tmp_path / "out")], check=True)
    _bind(tmp_path / "a.json", tmp_path / "b.json")
    try:
        with pytest.raises(OutputError, match="expected a file simlab can replace; got a mount"):
            prepare_file(tmp_path / "b.json", "--baseline")
    finally:
        subprocess.run(["umount", str(tmp_path / "b.json")], check=True)


def test_a_link_given_as_the_output_folder_names_the_folder(tmp_path: Path) -> None:
    """``--out`` a link to a folder replaced the link with a new folder beside it and
    left the swapped link behind as a hidden staging entry. The folder it names is
    replaced, and the link stays; a link to nothing is refused."""
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with output_unit(link, IDENTITY) as folder:
        write_json(folder / "summary.json", {"a": 1})
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert sorted(p.name for p in real.iterdir()) == [MANIFEST, "summary.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.raises(OutputError, match="got a link to nothing"):
        prepare_output(tmp_path / "dangling")
