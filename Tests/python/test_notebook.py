"""Notebooks/pressure-curves.ipynb runs headless on a fresh trace and report.

With nbclient and ipykernel (Tests/python/requirements.txt) it runs in a real
kernel; without them it runs the code cells in order in this interpreter.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "Notebooks" / "pressure-curves.ipynb"
FORCETRACE = os.environ.get("FORCETRACE", str(ROOT / ".build" / "debug" / "forcetrace"))


@pytest.fixture()
def files(tmp_path, monkeypatch):
    trace, report = tmp_path / "trace.h5", tmp_path / "report.h5"
    samples = sorted(str(p) for p in (ROOT / "samples").glob("*.evemu"))
    subprocess.run([FORCETRACE, "import", *samples, "-o", str(trace)], check=True, capture_output=True)
    subprocess.run([FORCETRACE, "report", str(trace), "--save", str(report)], check=True, capture_output=True)
    for name, value in {"FORCETRACE_TRACE": trace, "FORCETRACE_REPORT": report, "FORCETRACE_ROOT": ROOT,
                        "FORCETRACE": FORCETRACE}.items():
        monkeypatch.setenv(name, str(value))
    return trace, report


def test_notebook_executes(files):
    pytest.importorskip("matplotlib")
    try:
        import nbformat
        from nbclient import NotebookClient
        import ipykernel  # noqa: F401
    except ImportError:
        nbformat = None
    if nbformat is not None:
        notebook = nbformat.read(NOTEBOOK, as_version=4)
        NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
        outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
        assert not [o for o in outputs if o.get("output_type") == "error"]
        images = [o for o in outputs if "image/png" in o.get("data", {})]
        assert len(images) >= 3, "raw samples, curves, sweep and inflation plots"
        text = json.dumps([o.get("data", {}).get("text/plain", "") for o in outputs])
        assert "pop-press" in text
    else:
        cells = json.loads(NOTEBOOK.read_text())["cells"]
        namespace = {}
        for cell in cells:
            if cell["cell_type"] == "code":
                exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)
        assert len(namespace["contacts"]) > 0
        assert set(namespace["contacts"]["class"]) >= {"tap", "peek-press", "pop-press"}
