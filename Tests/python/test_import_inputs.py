"""What import accepts from its inputs, what it
refuses (naming the input and its line), and what inputs cost.

Each test imports a crafted input; the old code accepted it silently, named
the output instead of the input, or needed --format."""
import shutil
import subprocess
import sys
import time

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


# Item 4: lists the trace keeps as attributes, too long for one.

def evemu_with(header_lines, at="P:", replace=True):
    """The sample with `header_lines` in place of (or before) its first line
    starting with `at`, and the line number of the first of them."""
    lines = SAMPLE.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(at))
    return "\n".join(lines[:index] + header_lines + lines[index + int(replace):]) + "\n", index + 1


@pytest.mark.parametrize("bits", [4096, 65536])
def test_evemu_properties_beyond_the_limit_name_the_input_line(forcetrace, tmp_path, bits):
    """Old code: 'OUT.h5: the file is damaged and HDF5 cannot read it (object
    header message is too large)', naming the output for 65536 properties."""
    full_lines, partial = divmod(bits // 8, 8)
    lines = ["P: " + " ".join(["ff"] * 8)] * full_lines + (["P: " + " ".join(["ff"] * partial)] if partial else [])
    text, first = evemu_with(lines)
    path = tmp_path / "properties.evemu"
    path.write_text(text)
    if bits <= 4096:
        output = tmp_path / "at-limit.h5"
        run(forcetrace, "import", path, "-o", output)
        with h5py.File(output, "r") as f:
            (name,) = f["recordings"]
            assert list(f["recordings"][name].attrs["properties"]) == list(range(bits))
        return
    stderr = import_fails(forcetrace, tmp_path, path)
    # 4096 bits fill 64 lines of 8 bytes: the 65th goes beyond.
    assert f"{path}:{first + 64}: 'P:' lines set more than 4096 property bits" in stderr, stderr
    assert "out.h5" not in stderr, stderr


def test_evemu_led_lines_beyond_the_limit_name_the_input_line(forcetrace, tmp_path):
    """Old code: 5000 LED states made the same HDF5 error, naming the output."""
    text, first = evemu_with(["L: 00 1"] * 5000, at="E:", replace=False)
    path = tmp_path / "leds.evemu"
    path.write_text(text)
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{first + 1024}: more than 1024 'L:' lines" in stderr, stderr


def test_libinput_properties_beyond_the_limit_name_the_input_line(forcetrace, tmp_path, plain_yaml):
    """Old code: 'OUT.h5: the file is damaged ... object header message is too large'."""
    lines = plain_yaml.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("      properties: "))
    lines[index:index + 1] = ["      properties:"] + [f"        - {code}" for code in range(65536)]
    path = tmp_path / "properties.yml"
    path.write_text("\n".join(lines) + "\n")
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{index + 2 + 4096}: properties holds more than 4096 values" in stderr, stderr


def test_libinput_led_states_beyond_the_limit_name_the_input_line(forcetrace, tmp_path, plain_yaml):
    text = plain_yaml.read_text()
    marker = "    forcetrace:\n"
    assert marker in text
    pairs = "".join("        - [0, 1]\n" for _ in range(5000))
    path = tmp_path / "leds.yml"
    path.write_text(text.replace(marker, marker + "      led_state:\n" + pairs, 1))
    line = text[:text.index(marker) + len(marker)].count("\n") + 2 + 1024
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}:{line}: led_state holds more than 1024 pairs" in stderr, stderr


@pytest.mark.parametrize("form", ["evemu", "libinput"])
def test_a_long_label_list_imports_whole(forcetrace, tmp_path, form):
    """Labels are a table (datasets), not an attribute: 50 000 of them import."""
    count = 50_000
    lines = SAMPLE.read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("# forcetrace-label: thresholds"))
    extra = [f"# forcetrace-label: press slot=0 tracking_id={1000 + i} t=1764400000.{i:06d} class=tap kind=tap peak=0.5"
             for i in range(count)]
    path = tmp_path / "labels.evemu"
    path.write_text("\n".join(lines[:index + 1] + extra + lines[index + 1:]) + "\n")
    if form == "libinput":
        trace = tmp_path / "labels.h5"
        run(forcetrace, "import", path, "-o", trace)
        path = tmp_path / "labels.yml"
        run(forcetrace, "export", trace, "--format", "libinput", "-o", path)
    output = tmp_path / "out.h5"
    run(forcetrace, "import", path, "-o", output, timeout=300)
    with h5py.File(output, "r") as f:
        (name,) = f["recordings"]
        original = sum(1 for line in lines if line.startswith("# forcetrace-label: press"))
        assert f["recordings"][name]["labels"]["class"].shape[0] == original + count


# Item 7: a YAML scalar costs bounded memory.

def peak_rss_mib_of(arguments):
    """Runs `arguments` in a child; returns (exit status, its peak RSS in MiB, stderr)."""
    script = ("import resource, subprocess, sys\n"
              "r = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=300)\n"
              "sys.stderr.write(r.stderr)\n"
              "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n")
    result = subprocess.run([sys.executable, "-c", script, *map(str, arguments)], capture_output=True, text=True, timeout=400)
    status, rss = result.stdout.split()
    return int(status), int(rss), result.stderr


def with_device_name(plain_yaml, path, length):
    text = plain_yaml.read_text()
    start = text.index("      name: ")
    end = text.index("\n", start)
    with open(path, "w") as out:
        out.write(text[:start] + '      name: "')
        for _ in range(length // (1 << 20)):
            out.write("x" * (1 << 20))
        out.write("x" * (length % (1 << 20)) + '"' + text[end:])
    return text[:start].count("\n") + 1


def test_a_150_mb_scalar_is_refused_in_bounded_memory(forcetrace, tmp_path, plain_yaml):
    """Old code: accepted as the device name, peak RSS 897 MB (release build)."""
    path = tmp_path / "huge.yml"
    line = with_device_name(plain_yaml, path, 150 << 20)
    output = tmp_path / "out.h5"
    status, rss, stderr = peak_rss_mib_of([forcetrace, "import", path, "-o", output])
    assert status == 1, stderr
    assert f"{path}:{line}: a YAML value (or the comments and blanks before one) runs over 1 MiB" in stderr, stderr
    # Bounded well below the scalar's 150 MiB (measured: 41 MiB, the debug build's baseline).
    assert rss < 100, f"peak RSS {rss} MiB"
    assert not output.exists()


def test_a_scalar_just_under_the_limit_is_kept(forcetrace, tmp_path, plain_yaml):
    path = tmp_path / "long-name.yml"
    with_device_name(plain_yaml, path, 1_000_000)
    output = tmp_path / "out.h5"
    run(forcetrace, "import", path, "-o", output)
    with h5py.File(output, "r") as f:
        (name,) = f["recordings"]
        assert len(f["recordings"][name].attrs["device_name"]) == 1_000_000


def test_a_newest_format_trace_with_65536_properties_names_the_input(forcetrace, tmp_path, trace):
    """A newest-format file (the recorder's) may hold a large attribute in
    dense storage; the copy into import's output could not. Old code:
    'OUT.h5: the file is damaged ... object header message is too large'."""
    path = tmp_path / "latest.h5"
    with h5py.File(trace, "r") as source, h5py.File(path, "w", libver="latest") as f:
        for key, value in source.attrs.items():
            f.attrs[key] = value
        (name,) = source["recordings"]
        original = source["recordings"][name]
        group = f.create_group("recordings").create_group(name)
        for key, value in original.attrs.items():
            group.attrs[key] = value
        group.attrs["properties"] = list(range(65536))
        for table in original:
            source.copy(original[table], group, table)
    stderr = import_fails(forcetrace, tmp_path, path)
    assert f"{path}: recording '{name}'" in stderr and "65536 properties; at most 4096" in stderr, stderr


# Item 7: many devices in one libinput file.

def many_devices_yaml(path, count):
    """`count` small touch devices (10 frames, 44 events each) in one libinput record file."""
    with open(path, "w") as out:
        out.write(f'version: 1\nndevices: {count}\nlibinput:\n  version: "1.23.0"\nsystem:\n  kernel: "6.1.0"\ndevices:\n')
        for device in range(count):
            out.write(f'  - node: /dev/input/event{device}\n    evdev:\n      name: "device {device}"\n'
                      "      id: [24, 7331, 3952, 1]\n      codes:\n        0: [0, 1, 3]\n        1: [330]\n"
                      "        3: [47, 53, 54, 57, 58]\n      absinfo:\n        47: [0, 9, 0, 0, 0]\n"
                      "        53: [0, 4095, 0, 0, 20]\n        54: [0, 2559, 0, 0, 20]\n"
                      "        57: [0, 65535, 0, 0, 0]\n        58: [0, 255, 0, 0, 0]\n      properties: [1]\n    events:\n")
            for frame in range(10):
                seconds, micros = divmod(frame * 10000, 1_000_000)
                out.write("      - evdev:\n")
                if frame == 0:
                    out.write(f"        - [{seconds}, {micros}, 3, 57, {device}]\n        - [{seconds}, {micros}, 1, 330, 1]\n")
                for code, value in ((53, 100 + frame), (54, 200 + frame), (58, 50 + frame)):
                    out.write(f"        - [{seconds}, {micros}, 3, {code}, {value}]\n")
                if frame == 9:
                    out.write(f"        - [{seconds}, {micros}, 3, 57, -1]\n        - [{seconds}, {micros}, 1, 330, 0]\n")
                out.write(f"        - [{seconds}, {micros}, 0, 0, 0]\n")


def test_many_small_devices_cost_little_each(forcetrace, tmp_path):
    """Old code: each short table took a whole 65536-row chunk (4096 for
    contacts and markers), about 100 KB a device (measured: 1000 devices in
    100.5 MB, 27 s). Time is printed, not asserted."""
    count = 300
    source = tmp_path / "many.yml"
    many_devices_yaml(source, count)
    output = tmp_path / "many.h5"
    started = time.monotonic()
    run(forcetrace, "import", source, "-o", output, timeout=600)
    elapsed = time.monotonic() - started
    size = output.stat().st_size
    print(f"\n{count} devices: {elapsed:.1f} s, {size / count / 1024:.1f} KiB a device")
    with h5py.File(output, "r") as f:
        recordings = f["recordings"]
        assert len(recordings) == count
        for name in recordings:
            events = recordings[name]["events"]["t_ns"]
            assert events.shape == (44,) and events.chunks == (44,), (name, events.shape, events.chunks)
            assert recordings[name]["contacts"]["id"].chunks == (1,), name
            assert recordings[name]["samples"]["t_ns"].shape == (9,), name
    # 51 KiB a device here; the old whole chunks took about 100 KiB.
    assert size / count < 70 * 1024, f"{size / count / 1024:.1f} KiB a device"


def test_a_fake_mt_device_is_read_without_slots_as_libevdev_reads_it(forcetrace, tmp_path):
    # ABS_MT_SLOT - 1 present: ABS_MT_SLOT is a HID usage's axis (-127..127), not a slot number.
    fixture = SAMPLES.parent / "Tests" / "fixtures" / "fake-mt.evemu"
    output = tmp_path / "fake.h5"
    run(forcetrace, "import", fixture, "-o", output)
    info = run(forcetrace, "info", output).stdout
    assert "no slots" in info, info
    with h5py.File(output, "r") as f:
        [recording] = f["recordings"].values()
        contacts, samples = recording["contacts"], recording["samples"]
        assert list(contacts["slot"][:]) == [-1, -1]
        pressures = {c: [] for c in contacts["id"][:]}
        for contact, pressure in zip(samples["contact"][:], samples["pressure"][:]):
            pressures[contact].append(int(pressure))
        assert [max(p) for p in pressures.values()] == [90, 200]
        assert recording["events"]["t_ns"].shape[0] == 30
