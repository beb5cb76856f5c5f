"""make install, make uninstall and make deb, checked with the real tools.

The release build, the generated man pages and completions, and the package
come from `make deb` (out/package): FORCETRACE_RELEASE names the release
binary and FORCETRACE_PACKAGE that folder (`make test-install` sets both;
without them, the default places are used and the tests skip if nothing is
built). Every check runs the real thing: install.sh into a temporary DESTDIR,
the installed binary, mandoc, man, bash's completion machinery, dpkg-deb,
lintian.
"""
import os
import re
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RELEASE = Path(os.environ.get("FORCETRACE_RELEASE", ROOT / ".build/release/forcetrace"))
PACKAGE = Path(os.environ.get("FORCETRACE_PACKAGE", ROOT / "out/package"))
REQUIRED = "FORCETRACE_RELEASE" in os.environ
INSTALL = ROOT / "packaging/install.sh"
SAMPLE = ROOT / "samples/touchscreen-mixed.evemu"
PREFIX = "/usr/local"
# Nothing of the Swift toolchain: the binary must not need it.
CLEAN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}


def require(path):
    if not Path(path).exists():
        if REQUIRED:
            pytest.fail(f"{path} is missing: make deb makes it")
        pytest.skip(f"{path} not built (make deb)")


@pytest.fixture(scope="module")
def built():
    for path in (RELEASE, PACKAGE / "man", PACKAGE / "completions"):
        require(path)
    return PACKAGE


@pytest.fixture(autouse=True)
def working_folder(tmp_path_factory, monkeypatch):
    """Each test runs in a folder of its own: what a command writes to a
    relative path (simulate --output no-such-value) never lands in the checkout."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


def run(args, **kwargs):
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run([str(a) for a in args], **kwargs)


def commands():
    out = run([RELEASE, "--help-commands"], env=CLEAN_ENV, check=True).stdout.split()
    assert len(out) >= 9, out
    return out


def install(destdir, *extra_env):
    env = dict(os.environ, DESTDIR=str(destdir), PREFIX=PREFIX)
    result = run(["bash", INSTALL, "install", RELEASE, PACKAGE / "man", PACKAGE / "completions"], env=env)
    assert result.returncode == 0, result.stderr
    return result


def uninstall(destdir):
    return run(["bash", INSTALL, "uninstall"], env=dict(os.environ, DESTDIR=str(destdir), PREFIX=PREFIX))


def tree(root):
    """Every file and folder under root, relative, folders with a trailing /."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        for d in dirnames:
            found.add(f"{(rel / d).as_posix()}/")
        for f in filenames:
            found.add((rel / f).as_posix())
    return found


def expected_files(names):
    files = {"usr/local/bin/forcetrace",
             "usr/local/share/man/man1/forcetrace.1",
             "usr/local/share/bash-completion/completions/forcetrace",
             "usr/local/share/zsh/site-functions/_forcetrace",
             "usr/local/share/fish/vendor_completions.d/forcetrace.fish",
             "usr/local/share/forcetrace/70-forcetrace.rules",
             "usr/local/share/forcetrace/install-manifest"}
    files |= {f"usr/local/share/man/man1/forcetrace-{n}.1" for n in names}
    return files


def test_install_writes_exactly_its_files_and_uninstall_removes_them(built, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    install(dest)
    found = tree(dest)
    files = {p for p in found if not p.endswith("/")}
    assert files == expected_files(commands())
    assert stat.S_IMODE((dest / "usr/local/bin/forcetrace").stat().st_mode) == 0o755
    assert stat.S_IMODE((dest / "usr/local/share/man/man1/forcetrace.1").stat().st_mode) == 0o644
    result = uninstall(dest)
    assert result.returncode == 0, result.stderr
    assert tree(dest) == set(), "uninstall left files or folders behind"


def test_uninstall_keeps_what_was_there_before(built, tmp_path):
    dest = tmp_path / "dest"
    (dest / "usr/local/bin").mkdir(parents=True)
    (dest / "usr/local/bin/other-tool").write_text("not ours\n")
    install(dest)
    assert uninstall(dest).returncode == 0
    assert tree(dest) == {"usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/other-tool"}


def test_install_into_a_destdir_that_does_not_exist_yet(built, tmp_path):
    """DESTDIR is made; it is the staging root, so uninstall leaves it (empty)."""
    dest = tmp_path / "new" / "dest"
    env = dict(os.environ, DESTDIR=str(dest), PREFIX=PREFIX)
    result = run(["bash", INSTALL, "install", RELEASE, PACKAGE / "man", PACKAGE / "completions"], env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert (dest / "usr/local/bin/forcetrace").is_file()
    assert uninstall(dest).returncode == 0
    assert dest.is_dir() and tree(dest) == set()


def test_uninstall_without_install_is_a_clear_error(built, tmp_path):
    result = uninstall(tmp_path)
    assert result.returncode != 0
    assert "install-manifest not found" in result.stderr and str(tmp_path) in result.stderr


def test_install_replaces_a_planted_link_instead_of_writing_through_it(built, tmp_path):
    dest = tmp_path / "dest"
    (dest / "usr/local/bin").mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    (dest / "usr/local/bin/forcetrace").symlink_to(victim)
    install(dest)
    assert victim.read_text() == "keep me\n"
    assert not (dest / "usr/local/bin/forcetrace").is_symlink()


def test_installed_binary_runs_without_swift(built, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    install(dest)
    binary = dest / "usr/local/bin/forcetrace"
    libraries = run(["ldd", binary], check=True).stdout
    assert "not found" not in libraries
    assert "swift" not in libraries.lower(), libraries
    # Every library it loads belongs to a Debian package.
    for path in re.findall(r"=> (/\S+)", libraries):
        owner = run(["dpkg", "-S", os.path.realpath(path)])
        if owner.returncode != 0:
            owner = run(["dpkg", "-S", path])
        assert owner.returncode == 0, f"{path} is in no Debian package"
    version = run([binary, "--version"], env=CLEAN_ENV)
    assert version.returncode == 0 and version.stdout.startswith("forcetrace "), version.stderr
    # Real work, with the toolchain hidden where the system has it.
    out = tmp_path / "s.h5"
    script = f"mount -t tmpfs none /opt/swift && {binary} import {SAMPLE} -o {out} --quiet && {binary} info {out}"
    hidden = run(["unshare", "-m", "sh", "-c", script], env=CLEAN_ENV) if Path("/opt/swift").is_dir() else None
    if hidden is None or "unshare failed" in (hidden.stderr or "") or "mount:" in (hidden.stderr or ""):
        hidden = run(["sh", "-c", f"{binary} import {SAMPLE} -o {out} --quiet && {binary} info {out}"], env=CLEAN_ENV)
    assert hidden.returncode == 0, hidden.stderr
    assert "touchscreen-mixed" in hidden.stdout


# ---- man pages: made from --help, lint clean ----

def man_text(page):
    """The page as man renders it, plain (no overstrike), one long line a paragraph."""
    env = dict(os.environ, MANWIDTH="2000", LANG="C.UTF-8", MAN_KEEP_FORMATTING="")
    result = run(["man", "-l", page], env=env)
    assert result.returncode == 0, result.stderr
    return re.sub(r".\x08", "", result.stdout)


def normalized(text):
    for a, b in (("\u2010", "-"), ("\u2212", "-"), ("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"')):
        text = text.replace(a, b)
    return " ".join(text.split())


def sections(rendered):
    """Section name -> its text, for a rendered man page."""
    parts = {}
    name = None
    for line in rendered.splitlines():
        if re.match(r"^[A-Z][A-Z ]+$", line):
            name = line.strip()
            parts[name] = []
        elif name:
            parts[name].append(line)
    return {k: "\n".join(v) for k, v in parts.items()}


def help_parts(text):
    """OVERVIEW, the discussion, and the option names of a --help text."""
    overview = re.search(r"^OVERVIEW: (.*)$", text, re.M).group(1)
    discussion = text.split("\n", 1)[1].split("\nUSAGE:")[0]
    options_block = text.split("\nOPTIONS:\n")[1]
    options = set(re.findall(r"^  (?:-\w, )?--([a-z0-9-]+)", options_block, re.M))
    return overview, discussion, options


def option_names(section):
    return set(re.findall(r"^ {7}(?:-\w, )?--([a-z0-9-]+)", section, re.M))


def test_man_pages_say_what_help_says(built):
    names = commands()
    assert sorted(p.name for p in (built / "man").iterdir()) == sorted(["forcetrace.1"] + [f"forcetrace-{n}.1" for n in names])
    for name in names:
        help_text = run([RELEASE, name, "--help"], env=CLEAN_ENV, check=True).stdout
        overview, discussion, options = help_parts(help_text)
        page = sections(man_text(built / "man" / f"forcetrace-{name}.1"))
        assert normalized(page["NAME"]) == normalized(f"forcetrace-{name} - {overview}")
        assert normalized(page.get("DESCRIPTION", "")) == normalized(discussion), name
        assert option_names(page["OPTIONS"]) == options, name
        assert options, name
    main = run([RELEASE, "--help"], env=CLEAN_ENV, check=True).stdout
    overview, discussion, options = help_parts(main)
    page = sections(man_text(built / "man" / "forcetrace.1"))
    assert normalized(page["DESCRIPTION"]) == normalized(discussion)
    assert option_names(page["OPTIONS"]) == options == {"version", "help"}
    listed = re.findall(r"^ {7}forcetrace-([a-z-]+)\(1\)$", page["SUBCOMMANDS"], re.M)
    assert listed == names


def test_man_pages_lint_clean(built):
    pages = sorted((built / "man").glob("*.1"))
    lint = run(["mandoc", "-T", "lint", "-W", "all", *pages])
    assert lint.returncode == 0 and lint.stdout + lint.stderr == "", lint.stdout + lint.stderr
    for page in pages:
        # groff's warnings, as lintian's manpage check asks for them.
        checked = run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page],
                      env=dict(os.environ, LANG="C.UTF-8", MANWIDTH="80"))
        assert checked.returncode == 0 and checked.stderr == "", (page.name, checked.stderr)


def test_man_page_date_is_source_date_epoch_and_text_stays_text():
    """The date comes from SOURCE_DATE_EPOCH (reproducible pages); no text line reads as a request."""
    require(RELEASE)
    for name in [None] + commands():
        args = [RELEASE, "--help-man"] + ([name] if name else [])
        page = run(args, env=dict(CLEAN_ENV, SOURCE_DATE_EPOCH="86399"), check=True).stdout
        # Every hyphen of the title is escaped, a command's own too (capture-page).
        title = "FORCETRACE" + ("\\-" + name.upper().replace("-", "\\-") if name else "")
        assert page.splitlines()[1].startswith(f'.TH {title} 1 1970-01-01 "forcetrace '), page.splitlines()[1]
        for line in page.splitlines():
            assert not line.startswith("'") and not line.startswith(" "), line
            assert line.startswith(".") == bool(re.match(r"^\.(\\\"|([A-Z]{1,2}|nf|fi)( |$))", line)), line


def test_help_hooks_refuse_bad_arguments():
    require(RELEASE)
    bad = run([RELEASE, "--help-man", "nosuch"], env=CLEAN_ENV)
    assert bad.returncode == 2 and "nosuch" in bad.stderr and bad.stdout == ""
    bad = run([RELEASE, "--help-completion", "tcsh"], env=CLEAN_ENV)
    assert bad.returncode == 2 and "bash, zsh, fish" in bad.stderr


# ---- completions ----

def bash_complete(script, words, cwd):
    """What bash's completion offers for `words` (the last is the word being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (f"source '{script}'\ncomplete -p forcetrace\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
               "COMPREPLY=()\n_forcetrace forcetrace \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
               "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    result = run(["bash", "--norc", "--noprofile", "-c", program], cwd=cwd)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "complete -F _forcetrace forcetrace"
    return sorted(line for line in lines[1:] if line)


def test_bash_completion_offers_the_parsers_commands_options_and_files(built, tmp_path):
    script = built / "completions/forcetrace.bash"
    assert bash_complete(script, ["forcetrace", ""], tmp_path) == sorted(commands() + ["--version", "--help", "-h"])
    assert bash_complete(script, ["forcetrace", "rep"], tmp_path) == ["report"]
    for name in commands():
        help_text = run([RELEASE, name, "--help"], env=CLEAN_ENV, check=True).stdout
        block = help_text.split("\nOPTIONS:\n")[1]
        longs = {f"--{n}" for n in re.findall(r"^  (?:-\w, )?--([a-z0-9-]+)", block, re.M)}
        shorts = {f"-{s}" for s in re.findall(r"^  -(\w), --", block, re.M)}
        assert set(bash_complete(script, ["forcetrace", name, "-"], tmp_path)) == longs | shorts, name
    (tmp_path / "a.h5").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "sub").mkdir()
    # A trace file argument: .h5 files and folders, not other files.
    assert bash_complete(script, ["forcetrace", "info", ""], tmp_path) == ["a.h5", "sub"]
    assert bash_complete(script, ["forcetrace", "report", "--json", ""], tmp_path) == ["a.h5", "sub"]
    # A file option: any file, also as --option=VALUE.
    assert bash_complete(script, ["forcetrace", "report", "--save", ""], tmp_path) == ["a.h5", "notes.txt", "sub"]
    assert bash_complete(script, ["forcetrace", "report", "--html", "=", "no"], tmp_path) == ["notes.txt"]
    assert bash_complete(script, ["forcetrace", "import", "-o", "n"], tmp_path) == ["notes.txt"]
    # A value that is not a file: nothing offered.
    assert bash_complete(script, ["forcetrace", "report", "--peek", ""], tmp_path) == []
    # Recordings: any file.
    assert bash_complete(script, ["forcetrace", "import", ""], tmp_path) == ["a.h5", "notes.txt", "sub"]


def test_zsh_and_fish_completions_name_every_option(built):
    zsh = (built / "completions/_forcetrace").read_text()
    fish = (built / "completions/forcetrace.fish").read_text()
    assert zsh.startswith("#compdef forcetrace\n")
    for name in commands():
        help_text = run([RELEASE, name, "--help"], env=CLEAN_ENV, check=True).stdout
        longs = set(re.findall(r"^  (?:-\w, )?--([a-z0-9-]+)", help_text.split("\nOPTIONS:\n")[1], re.M))
        block = zsh.split(f"\n        '{name}')\n")[1].split(" ;;\n")[0]
        assert set(re.findall(r"--([a-z0-9-]+)[\[}]", block)) == longs, name
        assert set(re.findall(rf"__fish_seen_subcommand_from {name}' (?:-s \w )?-l ([a-z0-9-]+)", fish)) == longs, name
        assert f"-a '{name}'" in fish


@pytest.mark.parametrize("shell,name", [("zsh", "_forcetrace"), ("fish", "forcetrace.fish")])
def test_zsh_and_fish_parse_their_completion(built, shell, name):
    need_shell(shell)
    result = run([shell, "-n", built / "completions" / name])
    assert result.returncode == 0, result.stderr


def need_shell(shell):
    if shutil.which(shell) is None:
        if REQUIRED:
            pytest.fail(f"{shell} is not installed: make test-install installs it")
        pytest.skip(f"{shell} is not installed")


def zsh_complete(completions, line, cwd):
    """What zsh's completion system offers for `line`, in a real interactive
    zsh on a pseudo-terminal (zsh_complete.zsh), with compinit loading the
    generated _forcetrace from `completions`."""
    result = run(["zsh", "-f", ROOT / "Tests/install/zsh_complete.zsh", completions, line], cwd=cwd, timeout=60)
    assert result.returncode == 0, result.stderr
    return sorted({word for word in result.stdout.splitlines() if word})


def fish_complete(script, line, cwd):
    """What fish offers for `line`: its own `complete -C` with the script sourced."""
    result = run(["fish", "--no-config", "-c", f"source {script}; complete -C {shlex.quote(line)}"], cwd=cwd, timeout=60)
    assert result.returncode == 0, result.stderr
    return sorted({entry.split("\t")[0] for entry in result.stdout.splitlines() if entry})


def complete_in(shell, built, line, cwd):
    if shell == "bash":
        words = line.split(" ")
        return bash_complete(built / "completions/forcetrace.bash", ["forcetrace"] + words[1:], cwd)
    if shell == "zsh":
        return zsh_complete(built / "completions", line, cwd)
    return fish_complete(built / "completions/forcetrace.fish", line, cwd)


def choices_of(command, option, cwd):
    """The values the parser itself accepts for `option`, from its error for a
    value it cannot accept; None when any value parses. Run in `cwd`: where
    any value parses, the command may run and write it (simulate --output)."""
    result = run([RELEASE, command, f"--{option}", "no-such-value"], env=CLEAN_ENV, cwd=cwd)
    found = re.search(r"for '--%s': expected one of (.*)$" % re.escape(option), result.stderr, re.M)
    return sorted(found.group(1).split(", ")) if found else None


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_completes_commands_options_and_fixed_values(built, shell, tmp_path, tmp_path_factory):
    """Each shell runs the generated completion: the commands, every long
    option of each command's --help, and for an option with a fixed list the
    parser's own list (so completion and parser cannot drift)."""
    need_shell(shell)
    (tmp_path / "a.h5").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "sub").mkdir()
    choices_folder = tmp_path_factory.mktemp("choices")
    names = commands()
    offered = complete_in(shell, built, "forcetrace ", tmp_path)
    assert set(names) <= set(offered), (shell, offered)
    assert complete_in(shell, built, "forcetrace rep", tmp_path) == ["report"]
    with_choices = 0
    for name in names:
        help_text = run([RELEASE, name, "--help"], env=CLEAN_ENV, check=True).stdout
        block = help_text.split("\nOPTIONS:\n")[1]
        options = re.findall(r"^  (?:-\w, )?--([a-z0-9-]+)( [A-Z])?", block, re.M)
        longs = {f"--{option}" for option, _ in options}
        assert {w for w in complete_in(shell, built, f"forcetrace {name} --", tmp_path)} == longs, (shell, name)
        for option, takes_value in options:
            choices = choices_of(name, option, choices_folder) if takes_value else None
            if choices is None:
                continue
            with_choices += 1
            assert complete_in(shell, built, f"forcetrace {name} --{option} ", tmp_path) == choices, (shell, name, option)
    # suggest --format, report --sensitivity, import/export --format, calibrate and simulate --protocol, simulate --device
    assert with_choices >= 7
    # A trace file argument offers the .h5 file (fish lists the rest after it).
    assert "a.h5" in complete_in(shell, built, "forcetrace info ", tmp_path)


# ---- the Debian package ----

def package_file():
    debs = sorted(PACKAGE.glob("forcetrace_*.deb"))
    if not debs:
        require(PACKAGE / "forcetrace_VERSION_ARCH.deb")
    assert len(debs) == 1, debs
    return debs[0]


def test_deb_holds_binary_pages_completions_rule_and_docs(built):
    deb = package_file()
    listing = run(["dpkg-deb", "-c", deb], check=True).stdout
    files = {line.split()[-1].lstrip(".") for line in listing.splitlines() if not line.startswith("d")}
    expected = {"/usr/bin/forcetrace",
                "/usr/share/man/man1/forcetrace.1.gz",
                "/usr/share/bash-completion/completions/forcetrace",
                "/usr/share/zsh/vendor-completions/_forcetrace",
                "/usr/share/fish/vendor_completions.d/forcetrace.fish",
                "/lib/udev/rules.d/70-forcetrace.rules",
                "/usr/share/doc/forcetrace/copyright",
                "/usr/share/doc/forcetrace/changelog.Debian.gz",
                "/usr/share/lintian/overrides/forcetrace"}
    expected |= {f"/usr/share/man/man1/forcetrace-{n}.1.gz" for n in commands()}
    assert files == expected
    depends = run(["dpkg-deb", "-f", deb, "Depends"], check=True).stdout
    assert "swift" not in depends.lower()
    for package in ("libc6", "libhdf5-103-1", "libevdev2", "libyaml-0-2", "libdeflate0"):
        assert re.search(rf"(^|, ){re.escape(package)}( |,|$)", depends.strip()), (package, depends)
    version = run(["dpkg-deb", "-f", deb, "Version"], check=True).stdout.strip()
    assert version.split("-")[0] == run([RELEASE, "--version"], check=True, env=CLEAN_ENV).stdout.split()[1]


def test_deb_passes_lintian(built):
    deb = package_file()
    result = run(["lintian", "--tag-display-limit", "0", deb])
    tags = [line for line in result.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    assert result.returncode == 0 and tags == [], result.stdout + result.stderr


def test_deb_binary_is_the_release_build_and_runs_without_swift(built, tmp_path):
    deb = package_file()
    run(["dpkg-deb", "-x", deb, tmp_path], check=True)
    binary = tmp_path / "usr/bin/forcetrace"
    dynamic = run(["readelf", "-d", binary], check=True).stdout
    assert "swift" not in dynamic.lower(), dynamic
    assert run([binary, "--version"], env=CLEAN_ENV).stdout == run([RELEASE, "--version"], env=CLEAN_ENV).stdout
    page = run(["zcat", tmp_path / "usr/share/man/man1/forcetrace-report.1.gz"], check=True).stdout
    assert page == (built / "man/forcetrace-report.1").read_text()


def test_docs_commands_are_the_man_pages_as_they_render_now(tmp_path):
    """docs/commands/*.txt are the pages of this binary (the footer's date aside): `make docs-commands` renews them."""
    require(RELEASE)
    folder = ROOT / "docs" / "commands"
    names = ["forcetrace"] + [f"forcetrace-{name}" for name in commands()]
    assert sorted(p.stem for p in folder.glob("*.txt")) == sorted(names), "make docs-commands"
    for name in names:
        args = [RELEASE, "--help-man"] + ([name.removeprefix("forcetrace-")] if name != "forcetrace" else [])
        page = tmp_path / f"{name}.1"
        page.write_text(run(args, env=CLEAN_ENV, check=True).stdout)
        rendered = run(["sh", "-c", f"mandoc -T ascii -O width=80 {shlex.quote(str(page))} | col -bx"], check=True).stdout
        stored = (folder / f"{name}.txt").read_text()
        assert rendered.splitlines()[:-1] == stored.splitlines()[:-1], f"docs/commands/{name}.txt is not the page of this binary: make docs-commands"
