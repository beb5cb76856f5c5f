"""Issue 20, items 4, 6 and 7: what import accepts from its inputs, what it
refuses (naming the input and its line), and what inputs cost.

Each test imports a crafted input; the old code accepted it silently, named
the output instead of the input, or needed --format."""
import shutil

import h5py
import pytest

from conftest import SAMPLES, run

SAMPLE = SAMPLES / "touchscreen-mixed.evemu"
BOM = b"\xef\xbb\xbf"


@pytest.fixture(scope="module")
def plain_yaml(forcetrace, tmp_path_factory):
    """The sample as libinput record YAML, one device."""
    directory = tmp_path_factory.mktemp("yaml")
    trace = directory / "sample.h5"
    run(forcetrace, "import", SAMPLE, "-o", trace)
    path = directory / "sample.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", path)
    return path


def events_of(path):
    with h5py.File(path, "r") as f:
        return {name: f["recordings"][name]["events"]["t_ns"].shape[0] for name in f["recordings"]}


def import_fails(forcetrace, tmp_path, source, *options):
    output = tmp_path / "out.h5"
    result = run(forcetrace, "import", source, "-o", output, *options, check=False, timeout=120)
    assert result.returncode == 1, f"exit {result.returncode}: {result.stderr}"
    assert not output.exists()
    return result.stderr


# Item 6: a byte-order mark is no content.

def test_evemu_with_a_byte_order_mark_imports_as_without(forcetrace, tmp_path):
    """Old code: 'cannot tell the format' without --format, and 'bom.evemu:1:
    expected an evemu line ... found '\ufeff# EVEMU 1.3'' with it."""
    marked = tmp_path / "bom.evemu"
    marked.write_bytes(BOM + SAMPLE.read_bytes())
    reference = tmp_path / "reference.h5"
    run(forcetrace, "import", SAMPLE, "-o", reference)
    for options in ([], ["--format", "evemu"]):
        output = tmp_path / f"bom{len(options)}.h5"
        result = run(forcetrace, "import", marked, "-o", output, *options, check=False)
        assert result.returncode == 0, f"{options}: {result.stderr}"
        assert list(events_of(output).values()) == list(events_of(reference).values())


def test_yaml_with_a_byte_order_mark_is_detected(forcetrace, tmp_path, plain_yaml):
    """Old code: 'cannot tell the format' unless --format libinput."""
    marked = tmp_path / "bom.yml"
    marked.write_bytes(BOM + plain_yaml.read_bytes())
    output = tmp_path / "bom.h5"
    result = run(forcetrace, "import", marked, "-o", output, check=False)
    assert result.returncode == 0, result.stderr
    assert list(events_of(output).values())[0] > 0


# Item 6: YAML that libyaml accepts but whose meaning is unclear.

def test_a_duplicate_key_names_both_lines(forcetrace, tmp_path, plain_yaml):
    """Old code: the last value won, exit 0."""
    lines = plain_yaml.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith("      name: "))
    lines.insert(index + 1, '      name: "another name"\n')
    path = tmp_path / "duplicate.yml"
    path.write_text("".join(lines))
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{index + 2}: duplicate key 'name'" in stderr, stderr
    assert f"already has it at line {index + 1}" in stderr, stderr


def test_a_duplicate_key_in_an_ignored_mapping_is_refused_too(forcetrace, tmp_path, plain_yaml):
    text = plain_yaml.read_text().replace('libinput:\n  version: "unknown"\n', 'libinput:\n  version: "1"\n  version: "2"\n')
    assert 'version: "2"' in text
    path = tmp_path / "duplicate.yml"
    path.write_text(text)
    line = text.splitlines().index('  version: "2"') + 1
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{line}: duplicate key 'version'" in stderr, stderr


def test_a_second_document_is_refused_at_its_line(forcetrace, tmp_path, plain_yaml):
    """Old code: the second document was never read, exit 0."""
    text = plain_yaml.read_text()
    path = tmp_path / "two.yml"
    path.write_text(text + "---\n" + text)
    line = len(text.splitlines()) + 1
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{line}: a second YAML document starts here" in stderr, stderr


def test_an_explicit_document_end_is_still_accepted(forcetrace, tmp_path, plain_yaml):
    path = tmp_path / "ended.yml"
    path.write_text("---\n" + plain_yaml.read_text() + "...\n# trailing comment\n")
    run(forcetrace, "import", path, "-o", tmp_path / "out.h5")


# Item 6: trace inputs.

@pytest.fixture(scope="module")
def trace(forcetrace, tmp_path_factory):
    path = tmp_path_factory.mktemp("trace") / "good.h5"
    run(forcetrace, "import", SAMPLE, "-o", path)
    return path


@pytest.mark.parametrize("version", [-1, 0])
def test_an_unknown_format_version_is_refused(forcetrace, tmp_path, trace, version):
    """Old code: format_version -1 was accepted and copied, exit 0."""
    path = tmp_path / f"v{version}.h5"
    shutil.copy(trace, path)
    with h5py.File(path, "a") as f:
        f.attrs["format_version"] = version
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}: format_version {version} is not a forcetrace format version" in stderr, stderr
    result = run(forcetrace, "info", path, check=False)
    assert result.returncode == 1 and f"format_version {version}" in result.stderr, result.stderr


def test_a_trace_without_recordings_is_refused(forcetrace, tmp_path, trace):
    """Old code: an empty output file, exit 0."""
    path = tmp_path / "empty.h5"
    shutil.copy(trace, path)
    with h5py.File(path, "a") as f:
        for name in list(f["recordings"]):
            del f["recordings"][name]
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}: holds no recordings" in stderr, stderr
    # With another input beside it: still refused, naming the empty one.
    stderr = import_fails(forcetrace, tmp_path, SAMPLE, path)
    assert f"{path}: holds no recordings" in stderr, stderr
