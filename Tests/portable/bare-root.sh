#!/bin/bash
# bare-root.sh - a minimal Debian root for the portable checks (make bare-root).
#
# usage: bare-root.sh DIR
# Makes DIR once, with debootstrap --variant=minbase and the host's own Debian
# suite and mirror (as apt knows them), plus python3 and python3-venv: none of
# forcetrace's libraries (HDF5, libevdev, libyaml, libdeflate) and no Swift.
# Then downloads wheels of the Python package's dependencies for that root's
# Python into DIR/var/cache/forcetrace-wheels, so the wheel's test installs
# them offline. DIR/.complete marks a finished root; a later call does nothing.
# Where the root cannot be made (not root, no debootstrap, no network), it
# writes the reason to DIR.skip, prints one SKIP line and exits 0: the tests
# then skip with that reason.
set -uo pipefail

[ $# = 1 ] || { echo "usage: bare-root.sh DIR" >&2; exit 2; }
dir=$1
[ -f "$dir/.complete" ] && exit 0
skip() {
	mkdir -p "$(dirname "$dir")"
	printf '%s\n' "$*" >"$dir.skip"
	echo "SKIP: bare-root: $*"
	exit 0
}
rm -f "$dir.skip"
[ "$(id -u)" = 0 ] || skip "making a Debian root with debootstrap needs root"
. /etc/os-release
[ "${ID:-}" = debian ] && [ -n "${VERSION_CODENAME:-}" ] || skip "the host is not Debian (/etc/os-release: ${PRETTY_NAME:-?})"
if ! command -v debootstrap >/dev/null; then
	echo "installing debootstrap"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; } ||
		skip "debootstrap could not be installed"
fi
# The mirror apt uses for the host's own suite.
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(IDENTIFIER)' 2>/dev/null |
	awk -v suite="$VERSION_CODENAME" '$2 == suite && $3 == "Packages" {print $1; exit}')
[ -n "$mirror" ] || skip "apt knows no mirror for $VERSION_CODENAME (run apt-get update)"

partial=$dir.partial
rm -rf "$partial" "$dir"
mkdir -p "$(dirname "$dir")"
started=$(date +%s)
echo "bare-root: debootstrap --variant=minbase $VERSION_CODENAME into $dir (once; cached)"
if ! debootstrap --variant=minbase --include=python3,python3-venv "$VERSION_CODENAME" "$partial" "$mirror" \
	>"$dir.log" 2>&1; then
	tail -n 5 "$dir.log" >&2
	rm -rf "$partial"
	skip "debootstrap failed (log: $dir.log)"
fi
# The root's Python, as pip names its platform, for the dependencies' wheels.
read -r pyver abi < <(chroot "$partial" python3 -c \
	'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}", f"cp{sys.version_info[0]}{sys.version_info[1]}")')
wheels=$partial/var/cache/forcetrace-wheels
mkdir -p "$wheels"
requirements=$(python3 -c 'import tomllib,sys; print("\n".join(tomllib.load(open(sys.argv[1],"rb"))["project"]["dependencies"]))' \
	"$(dirname "$0")/../../python/pyproject.toml")
# shellcheck disable=SC2086
if ! python3 -m pip download -q --only-binary=:all: --python-version "$pyver" --implementation cp --abi "$abi" \
	--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
	-d "$wheels" $requirements >>"$dir.log" 2>&1; then
	tail -n 5 "$dir.log" >&2
	rm -rf "$partial"
	skip "pip could not download the package's dependencies for Python $pyver (log: $dir.log)"
fi
touch "$partial/.complete"
mv "$partial" "$dir"
echo "bare-root: $dir made in $(($(date +%s) - started)) s ($(du -sh "$dir" | cut -f1))"
