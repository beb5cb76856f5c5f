"""The package's metadata (a wheel built from python/), its extras, the base
package importing none of them, one version, py.typed, mypy --strict, and no
module reaching into another's private attributes."""
import ast
import email
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT, run

PACKAGE = ROOT / "python" / "forcetrace"
EXTRAS = {"xarray": {"xarray", "h5netcdf"}, "notebooks": {"matplotlib", "nbclient", "ipykernel"},
          "dask": {"dask"}}
# Every module an extra brings: the base package must import none of them.
OPTIONAL = ("xarray", "h5netcdf", "matplotlib", "nbclient", "ipykernel", "dask", "distributed")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out),
                    str(source)], check=True, capture_output=True, text=True)
    [built] = out.glob("forcetrace-*.whl")
    return built


def metadata(wheel):
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        return email.message_from_bytes(archive.read(name)), archive.namelist()


def requirement_name(requirement):
    return requirement.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()


def extra_requirements(message, extra):
    """The distributions an extra asks for, following `forcetrace[other]` references."""
    found = set()
    for requirement in message.get_all("Requires-Dist") or []:
        if f'extra == "{extra}"' not in requirement:
            continue
        name = requirement_name(requirement)
        if name == "forcetrace":
            inner = requirement.split("[", 1)[1].split("]", 1)[0]
            for other in inner.split(","):
                found |= extra_requirements(message, other.strip())
        else:
            found.add(name)
    return found


def test_the_wheel_declares_each_extra(wheel):
    message, names = metadata(wheel)
    provided = set(message.get_all("Provides-Extra"))
    assert {"xarray", "notebooks", "dask", "all"} <= provided
    for extra, wanted in EXTRAS.items():
        assert extra_requirements(message, extra) == wanted, extra
    assert extra_requirements(message, "all") == set().union(*EXTRAS.values())
    base = {requirement_name(r) for r in message.get_all("Requires-Dist") if "extra ==" not in r}
    assert base == {"h5py", "numpy", "pandas"}
    assert "forcetrace/py.typed" in names


def test_one_version_everywhere(wheel, forcetrace):
    message, _ = metadata(wheel)
    sys.path.insert(0, str(ROOT / "python"))
    import forcetrace as ft

    cli = run(forcetrace, "--version").stdout.split()[-1]
    assert message["Version"] == ft.__version__ == cli
    # Written once: in _version.py, which pyproject.toml reads.
    written = [path.name for path in PACKAGE.glob("*.py") if f'"{cli}"' in path.read_text(encoding="utf-8")]
    assert written == ["_version.py"]
    assert cli not in (ROOT / "python" / "pyproject.toml").read_text(encoding="utf-8")


def test_installed_metadata_lists_the_extras(wheel, tmp_path):
    """Installed into a fresh venv (without dependencies: offline), importlib.metadata reads the extras back."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
                   check=True, capture_output=True, text=True)
    script = ("import importlib.metadata as m, json; d = m.distribution('forcetrace'); "
              "print(json.dumps({'extras': d.metadata.get_all('Provides-Extra'), 'requires': d.requires, "
              "'typed': any(str(f).endswith('py.typed') for f in d.files)}))")
    import json

    found = json.loads(subprocess.run([str(python), "-c", script], check=True, capture_output=True, text=True).stdout)
    assert {"xarray", "notebooks", "dask", "all"} <= set(found["extras"])
    assert any(r.startswith("h5netcdf") and 'extra == "xarray"' in r for r in found["requires"])
    assert found["typed"]


BLOCKER = textwrap.dedent(f"""
    import importlib.abc, sys
    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {OPTIONAL!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None
    sys.meta_path.insert(0, Missing())
""")


def without_extras(code, forcetrace_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), FORCETRACE=forcetrace_path)
    return subprocess.run([sys.executable, "-c", BLOCKER + textwrap.dedent(code)], capture_output=True, text=True,
                          env=env)


def test_the_base_package_needs_no_extra(forcetrace, tmp_path):
    trace = tmp_path / "s.h5"
    run(forcetrace, "import", *sorted((ROOT / "samples").glob("*.evemu")), "-o", trace)
    result = without_extras(f"""
        import forcetrace, forcetrace.cli, forcetrace.distributed, forcetrace.plot
        with forcetrace.open({str(trace)!r}) as t:
            print(len(t["touchscreen-mixed"].samples()), sorted(m for m in sys.modules if m.split(".")[0] in {OPTIONAL!r}))
    """, forcetrace)
    assert result.returncode == 0, result.stderr
    rows, loaded = result.stdout.split(" ", 1)
    assert int(rows) > 0 and loaded.strip() == "[]"


@pytest.mark.parametrize("call, extra", [
    ("forcetrace.open(TRACE)['touchscreen-mixed'].to_xarray()", "xarray"),
    ("forcetrace.distributed.report(TRACE)", "dask"),
    ("forcetrace.plot.paths(None, forcetrace.open(TRACE)['touchscreen-mixed'].samples())", "notebooks"),
])
def test_a_missing_extra_is_named(forcetrace, tmp_path, call, extra):
    trace, report = tmp_path / "s.h5", tmp_path / "r.h5"
    run(forcetrace, "import", *sorted((ROOT / "samples").glob("*.evemu")), "-o", trace)
    run(forcetrace, "report", trace, "--save", report, "--contacts", "0")
    result = without_extras(f"""
        import forcetrace, forcetrace.distributed, forcetrace.plot
        TRACE, REPORT = {str(trace)!r}, {str(report)!r}
        try:
            {call}
        except ImportError as error:
            print(type(error).__name__, isinstance(error, forcetrace.MissingExtra), error)
    """, forcetrace)
    assert result.returncode == 0, result.stderr
    assert "MissingExtra True" in result.stdout, result.stdout
    assert f'pip install "forcetrace[{extra}]"' in result.stdout


def test_mypy_strict_is_clean(tmp_path):
    mypy = shutil.which("mypy")
    if mypy is None:
        pytest.fail("mypy is not installed: make deps installs it (Tests/python/requirements.txt)")
    result = subprocess.run([mypy, "--strict", "--cache-dir", str(tmp_path), "forcetrace"], cwd=ROOT / "python",
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def private_reaches(path):
    """`obj._name` where obj is not self/cls and `_name` is not defined in this
    module, and `from .module import _name`: reaching into another module's privates."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            own.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            own.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            own.add(node.id)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")) and node.attr not in own:
                found.append(f"{path.name}:{node.lineno}: .{node.attr}")
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append(f"{path.name}:{node.lineno}: imports {alias.name}")
    return found


def test_no_module_reaches_into_another_s_private_attributes():
    found = [reach for path in sorted(PACKAGE.glob("*.py")) for reach in private_reaches(path)]
    assert found == []


def test_all_installs_against_the_installed_dependencies(tmp_path):
    """`pip install "./python[all]"`, offline (--no-index) into a venv that sees
    this machine's packages: every extra's requirement resolves, and the
    installed package, not the checkout's, imports with all of them."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    source = tmp_path / "source"
    shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    python = venv / "bin" / "python"
    result = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                             f"{source}[all]"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "does not provide the extra" not in result.stderr, result.stderr
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    script = ("import forcetrace, xarray, h5netcdf, matplotlib, nbclient, ipykernel, dask.distributed; "
              "print(forcetrace.__file__)")
    found = subprocess.run([str(python), "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().startswith(str(venv))
