#!/usr/bin/env bash
# build-oracles.sh - build each libinput release tarball of ../shared/libinput
# (beside the checkout) once per machine, as oracles for `forcetrace whatif
# --libinput` (Tests/libinput/README.md). Debian's own libinput 1.22.1 is the
# 1.22 oracle and is never built here.
#
# usage: build-oracles.sh [--list]
#   --list   print the prefix of every complete build (one a line), build nothing
#
# Each tarball, checked against ../shared/libinput/SHA256SUMS, is installed
# into ${XDG_CACHE_HOME:-~/.cache}/forcetrace/libinput/libinput-X.Y.Z/. A
# build counts as done when its BUILD-INFO (written last) names the
# tarball's checksum and the tools, library and quirks are there; anything
# else is rebuilt from scratch. meson and ninja come from PyPI into a venv in
# the cache, the C dependencies from Debian (only the missing ones).
# Without ../shared/libinput: one line "SKIP: ..." and exit 0.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CHECKOUT=$(cd "$HERE/../.." && pwd)
SHARED=${FT_SHARED_LIBINPUT:-$CHECKOUT/../shared/libinput}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/forcetrace/libinput
list_only=0
[ "${1:-}" = --list ] && list_only=1

say() { echo "libinput-oracles: $*"; }
die() { echo "libinput-oracles: FAIL: $*" >&2; exit 1; }

if [ ! -d "$SHARED" ]; then
	[ "$list_only" = 1 ] && exit 0
	echo "SKIP: no ../shared/libinput beside the checkout: no libinput oracles built (Debian's 1.22.1 only)"
	exit 0
fi
shopt -s nullglob
tarballs=("$SHARED"/libinput-*.tar.xz)
[ ${#tarballs[@]} -gt 0 ] || die "$SHARED holds no libinput-*.tar.xz"
[ -f "$SHARED/SHA256SUMS" ] || die "$SHARED has no SHA256SUMS"

version_of() { local b; b=$(basename "$1"); b=${b#libinput-}; echo "${b%.tar.xz}"; }
sum_of() { awk -v f="$(basename "$1")" '$2 == f || $2 == "*" f { print $1 }' "$SHARED/SHA256SUMS"; }

# complete PREFIX SUM: the build is there and is of this tarball
complete() {
	local p=$1 sum=$2
	[ -f "$p/BUILD-INFO" ] && grep -qx "sha256: $sum" "$p/BUILD-INFO" &&
		[ -x "$p/libexec/libinput/libinput-debug-events" ] && [ -x "$p/libexec/libinput/libinput-quirks" ] &&
		[ -e "$p/lib/x86_64-linux-gnu/libinput.so.10" ] && compgen -G "$p/share/libinput/*.quirks" >/dev/null
}

if [ "$list_only" = 1 ]; then
	for t in "${tarballs[@]}"; do
		p="$CACHE/libinput-$(version_of "$t")"
		complete "$p" "$(sum_of "$t")" && echo "$p"
	done
	exit 0
fi

mkdir -p "$CACHE"
# One build at a time per machine (make test and a lone test-kernel may meet).
exec 9>"$CACHE/.lock"
flock 9

todo=()
for t in "${tarballs[@]}"; do
	v=$(version_of "$t")
	sum=$(sum_of "$t")
	[ -n "$sum" ] || die "SHA256SUMS has no line for $(basename "$t")"
	if complete "$CACHE/libinput-$v" "$sum"; then
		say "$v: built ($(sed -n 's/^wall_seconds: //p' "$CACHE/libinput-$v/BUILD-INFO") s, $(sed -n 's/^built: //p' "$CACHE/libinput-$v/BUILD-INFO"))"
	else
		todo+=("$t")
	fi
done
[ ${#todo[@]} -gt 0 ] || exit 0

# ---- tools: meson and ninja from PyPI, in a venv of our own ----
venv=$CACHE/venv
if [ ! -x "$venv/bin/meson" ] || [ ! -x "$venv/bin/ninja" ]; then
	say "pip install meson ninja into $venv"
	python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
	"$venv/bin/pip" install --quiet meson ninja || die "pip install meson ninja failed"
fi
export PATH="$venv/bin:$PATH"

# ---- C dependencies from Debian ----
deps=(gcc libc6-dev pkg-config libevdev-dev libudev-dev libmtdev-dev liblua5.4-dev)
missing=()
for p in "${deps[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing build dependencies: ${missing[*]} (run as root or apt-get install them)"
	say "apt-get install ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=900 update -qq || die "apt-get update failed"
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
fi

# ---- builds ----
for t in "${todo[@]}"; do
	v=$(version_of "$t")
	sum=$(sum_of "$t")
	prefix=$CACHE/libinput-$v
	got=$(sha256sum "$t" | cut -d' ' -f1)
	[ "$got" = "$sum" ] || die "$(basename "$t"): sha256 $got, SHA256SUMS says $sum"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/libinput-oracle-$v.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	tar -xf "$t" -C "$tmp"
	src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
	[ -f "$src/meson.build" ] || die "$(basename "$t") has no meson.build"
	srcv=$(sed -n "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'\([^']*\)'.*/\1/p" "$src/meson.build" | head -n1)
	[ "$srcv" = "$v" ] || die "$(basename "$t") says version $srcv"
	opts=(-Ddebug-gui=false -Ddocumentation=false -Dtests=false -Dlibwacom=false)
	# 1.30+: Lua plugins, enabled (not auto), so that a missing Lua fails here.
	grep -q "option('lua-plugins'" "$src/meson_options.txt" && opts+=(-Dlua-plugins=enabled)
	# The prefix is compiled in (quirks and plugin folders): install in place,
	# stamp last, so a failed build leaves no BUILD-INFO.
	rm -rf "$prefix"
	say "$v: building (${opts[*]})"
	start=$(date +%s.%N)
	if ! (cd "$src" && nice -n 10 meson setup build "${opts[@]}" --prefix="$prefix" --libdir=lib/x86_64-linux-gnu >"$tmp/setup.log" 2>&1); then
		tail -n 30 "$tmp/setup.log" >&2; rm -rf "$prefix"; die "$v: meson setup failed"
	fi
	if ! (cd "$src" && nice -n 10 ninja -C build install >"$tmp/ninja.log" 2>&1); then
		tail -n 30 "$tmp/ninja.log" >&2; rm -rf "$prefix"; die "$v: build failed"
	fi
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	cp "$tmp/setup.log" "$prefix/meson-setup.log"
	rm -rf "$prefix/include" "$prefix/lib/x86_64-linux-gnu/pkgconfig" "$prefix/share/man" "$prefix/share/zsh"
	complete_files=1
	[ -x "$prefix/libexec/libinput/libinput-debug-events" ] && [ -e "$prefix/lib/x86_64-linux-gnu/libinput.so.10" ] || complete_files=0
	[ "$complete_files" = 1 ] || { rm -rf "$prefix"; die "$v: installed tree lacks debug-events or libinput.so.10"; }
	{
		echo "version: $v"
		echo "tarball: $(basename "$t")"
		echo "sha256: $sum"
		echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores, nice 10"
		echo "meson: $(meson --version), ninja: $(ninja --version)"
		echo "options: ${opts[*]}"
		echo "wall_seconds: $secs"
	} >"$prefix/BUILD-INFO.tmp"
	mv "$prefix/BUILD-INFO.tmp" "$prefix/BUILD-INFO"
	rm -rf "$tmp"
	trap - EXIT
	say "$v: built in $secs s (first build) into $prefix"
done
