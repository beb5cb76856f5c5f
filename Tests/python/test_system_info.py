"""What the source says about the machine (evemu `# Kernel:` / `# DMI:`,
libinput record's `system:` block) survives import as the recording
attributes `kernel` and `dmi` (docs/FORMAT.md), `info` shows it, and export
writes it back."""
import json

import sys

import h5py

from conftest import ROOT, SAMPLES, run, shared_recording

sys.path.insert(0, str(ROOT / "python"))
import forcetrace as ft  # noqa: E402  (the worktree's package; `forcetrace` is the CLI fixture)

DELL = "dell_canvas_pen.evemu"


def system_lines(path):
    return [line for line in path.read_text().splitlines() if line.startswith(("# Kernel: ", "# DMI: "))]


def recording(path):
    with h5py.File(path, "r") as f:
        (name,) = list(f["recordings"])
        return dict(f["recordings"][name].attrs)


def test_evemu_kernel_and_dmi_survive_import_and_export(forcetrace, tmp_path):
    source = shared_recording(DELL)
    lines = system_lines(source)
    assert [line.split(":")[0] for line in lines] == ["# Kernel", "# DMI"]
    trace = tmp_path / "dell.h5"
    run(forcetrace, "import", source, "-o", trace)
    attrs = recording(trace)
    assert "# Kernel: " + attrs["kernel"] == lines[0]
    assert "# DMI: " + attrs["dmi"] == lines[1]
    assert attrs["dmi"].startswith("dmi:bvnDellInc.")
    device = ft.open(trace)[ft.open(trace).recordings[0]].device
    assert (device.kernel, device.dmi) == (attrs["kernel"], attrs["dmi"])

    info = json.loads(run(forcetrace, "info", trace, "--json").stdout)
    (shown,) = info["recordings"]
    assert shown["system"] == {"kernel": attrs["kernel"], "dmi": attrs["dmi"]}
    assert f"kernel:     {attrs['kernel']}" in run(forcetrace, "info", trace).stdout

    exported = tmp_path / "dell.evemu"
    run(forcetrace, "export", trace, "--format", "evemu", "-o", exported)
    assert system_lines(exported) == lines  # byte for byte

    # Through libinput record and back: its system block carries both.
    yaml = tmp_path / "dell.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", yaml)
    text = yaml.read_text()
    assert f'system:\n  kernel: "{attrs["kernel"]}"\n  dmi: "{attrs["dmi"]}"\ndevices:\n' in text
    again = tmp_path / "again.h5"
    run(forcetrace, "import", yaml, "-o", again)
    assert {k: recording(again)[k] for k in ("kernel", "dmi")} == {"kernel": attrs["kernel"], "dmi": attrs["dmi"]}
    back = tmp_path / "again.evemu"
    run(forcetrace, "export", again, "--format", "evemu", "-o", back)
    assert system_lines(back) == lines


def test_libinput_system_block_is_read(forcetrace, tmp_path):
    """A libinput record file as libinput writes it (os, kernel, dmi)."""
    trace = tmp_path / "plain.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    yaml = tmp_path / "plain.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", yaml)
    text = yaml.read_text().replace('system:\n  kernel: "unknown"\n',
                                    'system:\n  os: "ID=debian:VERSION_ID=12"\n  kernel: "6.1.0-18-amd64"\n'
                                    '  dmi: "dmi:bvnLENOVO:bvrN2HET:svnLENOVO:pn20QD:"\n')
    assert "6.1.0-18-amd64" in text
    yaml.write_text(text)
    imported = tmp_path / "imported.h5"
    run(forcetrace, "import", yaml, "-o", imported)
    attrs = recording(imported)
    assert (attrs["kernel"], attrs["dmi"]) == ("6.1.0-18-amd64", "dmi:bvnLENOVO:bvrN2HET:svnLENOVO:pn20QD:")
    evemu = tmp_path / "imported.evemu"
    run(forcetrace, "export", imported, "--format", "evemu", "-o", evemu)
    assert system_lines(evemu) == ["# Kernel: 6.1.0-18-amd64", "# DMI: dmi:bvnLENOVO:bvrN2HET:svnLENOVO:pn20QD:"]


def test_a_recording_without_them_exports_as_before(forcetrace, tmp_path):
    trace = tmp_path / "plain.h5"
    run(forcetrace, "import", SAMPLES / "touchscreen-mixed.evemu", "-o", trace)
    attrs = recording(trace)
    assert "kernel" not in attrs and "dmi" not in attrs
    device = ft.open(trace)["touchscreen-mixed"].device
    assert (device.kernel, device.dmi) == (None, None)
    evemu = tmp_path / "plain.evemu"
    run(forcetrace, "export", trace, "--format", "evemu", "-o", evemu)
    assert system_lines(evemu) == []
    assert evemu.read_text().startswith('# EVEMU 1.3\n# Input device name: "')
    yaml = tmp_path / "plain.yml"
    run(forcetrace, "export", trace, "--format", "libinput", "-o", yaml)
    assert 'system:\n  kernel: "unknown"\ndevices:\n' in yaml.read_text()
    again = tmp_path / "again.h5"
    run(forcetrace, "import", yaml, "-o", again)
    assert "kernel" not in recording(again)
    info = json.loads(run(forcetrace, "info", trace, "--json").stdout)
    assert info["recordings"][0]["system"] == {"kernel": None, "dmi": None}
