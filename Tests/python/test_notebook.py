"""The notebooks in Notebooks/ run top to bottom in a fresh kernel (nbclient)
from a copy in an empty folder, with only the package importable and the
`forcetrace` command on PATH: no checkout, no FORCETRACE* variables. They
write to a temporary folder, never into the checkout; every panel of every
figure has a legend that gives n. They are committed with outputs stripped."""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

GIT = shutil.which("git") or "git"  # found before the tests narrow PATH
NOTEBOOKS = sorted((ROOT / "Notebooks").glob("*.ipynb"))
EXPECTED = ["01-explore-a-trace", "02-peek-pop-thresholds", "03-event-rate-inflation", "04-many-files-with-dask",
            "05-pressure-levels", "06-browser-capture"]
# Plots each notebook draws at least, and text its outputs must show.
PLOTS = {"01-explore-a-trace": 3, "02-peek-pop-thresholds": 6, "03-event-rate-inflation": 3,
         "04-many-files-with-dask": 1, "05-pressure-levels": 2, "06-browser-capture": 1}
TEXT = {"01-explore-a-trace": "pressure only", "02-peek-pop-thresholds": "suggested from labels",
        "03-event-rate-inflation": "pressure-only frames, as report counts them",
        "04-many-files-with-dask": "DASK_SCHEDULER_ADDRESS", "05-pressure-levels": "levels held reliably (>= 90 % of trials in the band): 4",
        "06-browser-capture": "trials: 5 tap, 5 peek-press, 5 pop-press"}

# Run first in the kernel: every figure shown is checked for a legend with n on each panel.
FIGURE_HOOK = r'''
import re as _re
import matplotlib.pyplot as _plt
_FIGURE_CHECK = {"figures": 0, "without_n": []}
_plain_show = _plt.show
def _checked_show(*args, **kwargs):
    for number in _plt.get_fignums():
        figure = _plt.figure(number)
        _FIGURE_CHECK["figures"] += 1
        for ax in figure.axes:
            if ax.get_label() == "<colorbar>":
                continue
            legend = ax.get_legend()
            texts = [] if legend is None else [legend.get_title().get_text()] + [t.get_text() for t in legend.get_texts()]
            if not any(_re.search(r"\bn=\d", text) for text in texts):
                _FIGURE_CHECK["without_n"].append(f"figure {_FIGURE_CHECK['figures']}: {ax.get_title() or ax.get_xlabel()!r}")
    return _plain_show(*args, **kwargs)
_plt.show = _checked_show
'''
FIGURE_REPORT = 'import json as _json; print("FIGURE-CHECK " + _json.dumps(_FIGURE_CHECK))'


def test_the_notebooks_are_there():
    assert [path.stem for path in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {index} has outputs: clear them before committing"
            assert cell.get("execution_count") is None, f"{path.name} cell {index} has an execution count"


def checkout_state():
    """What git sees in the checkout, ignored files too (out/ is ignored), but what
    others write while the notebooks run: the build, Python's bytecode caches (other
    tests, run alongside, import modules), and make test's kernel scenarios (their work
    folder and their log and status in out/)."""
    result = subprocess.run([GIT, "status", "--porcelain", "--ignored", "--untracked-files=all"], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    def ours(path):
        return not ("/.build/" in f"/{path}" or "/__pycache__/" in f"/{path}" or path.startswith("Tests/kernel/work/")
                    or path.startswith("out/test-kernel."))
    return sorted(line for line in result.stdout.splitlines() if ours(line[3:]))


def isolated(monkeypatch, tmp_path, forcetrace, package=ROOT / "python"):
    """An empty folder holding a copy of nothing yet, PATH with `forcetrace` only
    (the kernel runs by its absolute path), no FORCETRACE* variables, the
    package imported from `package`, and temporary files under tmp_path/tmp."""
    bin_dir, temp, folder = tmp_path / "bin", tmp_path / "tmp", tmp_path / "anywhere"
    for made in (bin_dir, temp, folder):
        made.mkdir()
    if forcetrace is not None:
        (bin_dir / "forcetrace").symlink_to(forcetrace)
    for name in [name for name in os.environ if name.startswith("FORCETRACE")] + ["DASK_SCHEDULER_ADDRESS"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("TMPDIR", str(temp))
    # The package as `pip install` would make it importable; nothing else of the checkout.
    monkeypatch.setenv("PYTHONPATH", str(package))
    return folder, temp


def execute(path, folder, timeout=300):
    import nbformat
    from nbclient import NotebookClient

    copy = folder / path.name
    shutil.copy(path, copy)
    notebook = nbformat.read(copy, as_version=4)
    notebook.cells.insert(0, nbformat.v4.new_code_cell(FIGURE_HOOK))
    notebook.cells.append(nbformat.v4.new_code_cell(FIGURE_REPORT))
    client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(folder)}})
    return notebook, client


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_from_a_copy_in_an_empty_folder(forcetrace, path, tmp_path, monkeypatch):
    runs_and_draws(path, *isolated(monkeypatch, tmp_path, forcetrace))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_the_platform_wheel_alone(installed_wheels, path, tmp_path, monkeypatch):
    """The package from the platform wheel and nothing on PATH: it runs the binary the wheel carries."""
    runs_and_draws(path, *isolated(monkeypatch, tmp_path, None, package=installed_wheels["platform"]))


def runs_and_draws(path, folder, temp):
    before = checkout_state()
    notebook, client = execute(path, folder)
    client.execute()  # raises on any cell's error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= PLOTS[path.stem], f"{path.name} drew {len(images)} plots"
    text = "".join(o.get("text", "") + json.dumps(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert TEXT[path.stem] in text
    check = json.loads(text.split("FIGURE-CHECK ", 1)[1].splitlines()[0])
    assert check["figures"] >= PLOTS[path.stem]
    assert check["without_n"] == [], f"{path.name}: panels without a legend giving n: {check['without_n']}"
    # Outputs went to a temporary folder; the copy's folder and the checkout are as they were.
    written = [p.name for p in temp.rglob("*") if p.is_file()]
    assert any(name.endswith(".h5") for name in written), written
    assert sorted(p.name for p in folder.iterdir()) == [path.name]
    assert checkout_state() == before


def test_without_the_command_a_notebook_says_how_to_install_it(tmp_path, monkeypatch):
    from nbclient.exceptions import CellExecutionError

    folder, _ = isolated(monkeypatch, tmp_path, None)
    _, client = execute(NOTEBOOKS[0], folder, timeout=120)
    with pytest.raises(CellExecutionError) as failure:
        client.execute()
    message = str(failure.value)
    assert "CommandNotFound" in message
    assert "the forcetrace command is not on PATH" in message and "platform wheel" in message and "FORCETRACE=" in message


# A recording name from a file is text matplotlib must show, not parse: between
# two `$` an unknown command fails the whole figure.
HOSTILE = "rig $\\nosuch{x}$ 1"


@pytest.mark.parametrize("path", NOTEBOOKS[:3], ids=lambda p: p.stem)
def test_a_recording_name_with_dollars_is_drawn_as_text(forcetrace, path, tmp_path, monkeypatch):
    source = tmp_path / f"{HOSTILE}.evemu"
    subprocess.run([forcetrace, "simulate", "--seed", "1", "--presses", "8", "-o", str(source)], check=True,
                   capture_output=True)
    trace = tmp_path / "hostile.h5"
    subprocess.run([forcetrace, "import", str(source), "-o", str(trace)], check=True, capture_output=True)
    folder, _ = isolated(monkeypatch, tmp_path, forcetrace)
    monkeypatch.setenv("FORCETRACE_TRACE", str(trace))
    notebook, client = execute(path, folder)
    client.execute()  # raises where a figure is drawn in a cell
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    # Where the kernel draws it on display, the figure's error is a traceback in place of its image.
    shown = "".join(o.get("text", "") + json.dumps(o.get("data", {})) for o in outputs)
    assert "Error" not in shown.replace("FIGURE-CHECK", ""), shown[:2000]
    assert len([o for o in outputs if "image/png" in o.get("data", {})]) >= PLOTS[path.stem]
