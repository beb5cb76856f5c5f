"""Runs every read command of the CLI and the Python package on one trace
file, each in a child process under CPU-time and address-space limits, and
says how each ended. Tests/python/test_hostile_matrix.py drives it over the
files Tests/hostile/generate.py writes; run alone it prints a table:

    python3 Tests/hostile/matrix.py FORCETRACE FOLDER"""
import json
import os
import queue
import resource
import signal
import subprocess
import sys
import traceback
from pathlib import Path

CPU_SECONDS = 30
ADDRESS_SPACE = 2 << 30
WALL_SECONDS = 60

# name: arguments after the binary, given the file and a scratch folder.
CLI_COMMANDS = {
    "info": lambda f, o: ["info", f],
    "info --json": lambda f, o: ["info", f, "--json"],
    "report": lambda f, o: ["report", f, "-q"],
    "report --json": lambda f, o: ["report", f, "--json", "-q"],
    "report --save": lambda f, o: ["report", f, "-q", "--save", o / "saved.h5"],
    "report --html": lambda f, o: ["report", f, "-q", "--html", o / "page.html"],
    "export": lambda f, o: ["export", f, "--format", "evemu", "-o", o / "out.evemu", "--force"],
    "import": lambda f, o: ["import", f, "-o", o / "copy.h5", "--force"],
    "suggest": lambda f, o: ["suggest", f],
    "levels --show": lambda f, o: ["levels", "--show", f],
    "whatif": lambda f, o: ["whatif", f, "--no-shipped", "-q"],
}

# What the Python package does: each step in the child, in this order.
PYTHON_STEPS = ("open", "samples", "contacts", "events", "markers", "labels", "load")

def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# The package of this checkout, as the other tests import it (make python-package).
PACKAGE = Path(__file__).resolve().parents[2] / "python"


def bounded(arguments, cwd, env=None):
    """(status, stdout, stderr); a status below 0 is the signal that ended it,
    None a run past WALL_SECONDS."""
    try:
        done = subprocess.run([str(a) for a in arguments], capture_output=True, text=True, errors="replace",
                              preexec_fn=limits, cwd=cwd, timeout=WALL_SECONDS, stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired as expired:
        return None, "", str(expired)
    return done.returncode, done.stdout, done.stderr


def python_steps(path):
    """PYTHON_STEPS on `path`, each step's value or the error it raised."""
    import forcetrace
    results = {}

    def step(name, body):
        try:
            results[name] = {"ok": True, "value": body()}
        except Exception as error:
            results[name] = {"ok": False, "type": type(error).__name__, "message": str(error),
                             "mro": [c.__name__ for c in type(error).__mro__]}
    trace = None

    def opened():
        nonlocal trace
        trace = forcetrace.open(path)
        return {name: trace[name].device.name for name in trace.recordings}
    step("open", opened)
    for table in PYTHON_STEPS[1:-1]:
        step(table, lambda: {r.name: len(r.frame(table)) for r in trace} if trace is not None else None)
    step("load", lambda: len(forcetrace.load(path)))
    return results


def serve():
    """A PythonRunner's process: imports the package once (numpy, pandas and
    h5py took 1.2 s of a fresh child's 1.3 s on each of the hundred or so
    files), then, for each request on stdin, forks a child that sets
    `bounded`'s limits (an alarm for the wall time) and runs `python_steps`,
    and answers with the child's exit status."""
    import warnings
    warnings.simplefilter("ignore")
    import forcetrace  # noqa: F401
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        child = os.fork()
        if child == 0:
            try:
                os.chdir(request["scratch"])
                for fd, name in ((1, "python.stdout"), (2, "python.stderr")):
                    os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
                limits()
                signal.alarm(WALL_SECONDS)
                print(json.dumps(python_steps(request["path"])), flush=True)
                os._exit(0)
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
                os._exit(1)
        _, status = os.waitpid(child, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)


def error_line(stderr):
    """The first line of a CLI error, without "Error: "."""
    for line in stderr.splitlines():
        if line.startswith("Error: "):
            return line[len("Error: "):]
    return None


def run_cli(forcetrace, path, scratch):
    results = {}
    for name, arguments in CLI_COMMANDS.items():
        out = Path(scratch) / name.replace(" ", "").replace("-", "")
        out.mkdir(parents=True, exist_ok=True)
        status, stdout, stderr = bounded([forcetrace, *arguments(str(path), out)], out)
        results[name] = {"status": status, "error": error_line(stderr), "stderr": stderr[-3000:],
                         "stdout": stdout[-20000:] if name == "info --json" else ""}
    return results


class PythonRunner:
    """A process that has imported the Python package (`serve`) and runs
    PYTHON_STEPS on one file at a time, each in a child of its own."""

    def __init__(self):
        here = str(Path(__file__).resolve().parent)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PACKAGE), here, os.environ.get("PYTHONPATH")])),
               # No BLAS threads to fork from.
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        self.server = subprocess.Popen([sys.executable, "-c", "import matrix; matrix.serve()"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def run(self, path, scratch):
        """As `bounded` says a run ended: status 0 with the steps' results, else the status and stderr."""
        self.server.stdin.write(json.dumps({"path": str(path), "scratch": str(scratch)}) + "\n")
        self.server.stdin.flush()
        line = self.server.stdout.readline()
        if not line:
            raise RuntimeError(f"the Python runner ended (status {self.server.wait()}) on {path}")
        status = json.loads(line)["status"]
        if status == -signal.SIGALRM:
            status = None  # past WALL_SECONDS, as `bounded` says it
        if status != 0:
            return {"status": status, "stderr": (Path(scratch) / "python.stderr").read_text(errors="replace")[-3000:]}
        return {"status": 0, "steps": json.loads((Path(scratch) / "python.stdout").read_text())}

    def close(self):
        self.server.stdin.close()
        self.server.wait(timeout=WALL_SECONDS)


class PythonRunners:
    """One PythonRunner per thread of a pool, lent for one file at a time."""

    def __init__(self, count):
        self.idle = queue.SimpleQueue()
        self.all = [PythonRunner() for _ in range(count)]
        for runner in self.all:
            self.idle.put(runner)

    def run(self, path, scratch):
        runner = self.idle.get()
        try:
            return runner.run(path, scratch)
        finally:
            self.idle.put(runner)

    def close(self):
        for runner in self.all:
            runner.close()


if __name__ == "__main__":
    import tempfile
    from concurrent.futures import ThreadPoolExecutor
    forcetrace, folder = sys.argv[1], Path(sys.argv[2]).resolve()
    manifest = json.loads((folder / "manifest.json").read_text())

    runners = PythonRunners(os.cpu_count() or 2)

    def one(name):
        with tempfile.TemporaryDirectory() as scratch:
            return name, run_cli(forcetrace, folder / f"{name}.h5", scratch), runners.run(folder / f"{name}.h5", scratch)
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:  # each run is a child process
        rows = list(pool.map(one, sorted(manifest)))
    runners.close()
    json.dump({n: {"cli": c, "python": p, "valid": manifest[n]["valid"]} for n, c, p in rows}, sys.stdout, indent=1)
