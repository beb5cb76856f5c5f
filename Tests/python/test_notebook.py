"""The notebooks in Notebooks/ run top to bottom on samples/ in a fresh kernel
(nbclient), and are committed with their outputs stripped."""
import json
import os
from pathlib import Path

import pytest

from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "Notebooks").glob("*.ipynb"))
EXPECTED = ["01-explore-a-trace", "02-peek-pop-thresholds", "03-event-rate-inflation", "04-many-files-with-dask",
            "05-pressure-levels"]
# Plots each notebook draws at least, and text its outputs must show.
PLOTS = {"01-explore-a-trace": 3, "02-peek-pop-thresholds": 5, "03-event-rate-inflation": 3,
         "04-many-files-with-dask": 1, "05-pressure-levels": 2}
TEXT = {"01-explore-a-trace": "pressure only", "02-peek-pop-thresholds": "suggested from labels",
        "03-event-rate-inflation": "pressure-only frames, as report counts them",
        "04-many-files-with-dask": "DASK_SCHEDULER_ADDRESS", "05-pressure-levels": "levels held reliably (>= 90 % of trials in the band): 4"}


def test_the_notebooks_are_there():
    assert [path.stem for path in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {index} has outputs: clear them before committing"
            assert cell.get("execution_count") is None, f"{path.name} cell {index} has an execution count"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_on_the_samples(forcetrace, path, tmp_path, monkeypatch):
    # Required, not skipped: make test-python installs them (requirements.txt).
    import nbformat
    from nbclient import NotebookClient

    # The kernel inherits these: this checkout's package and CLI, outputs in a fresh folder.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("FORCETRACE", forcetrace)
    monkeypatch.setenv("FORCETRACE_ROOT", str(ROOT))
    monkeypatch.setenv("FORCETRACE_OUT", str(tmp_path))
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()  # raises on any cell's error
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= PLOTS[path.stem], f"{path.name} drew {len(images)} plots"
    text = "".join(o.get("text", "") + json.dumps(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert TEXT[path.stem] in text
    assert Path(tmp_path / "samples.h5").exists() or path.stem.startswith(("04", "05"))
