#!/bin/bash
# install.sh - installs and uninstalls forcetrace (make install / uninstall,
# the staging tree of make deb, and the release archive of make dist).
#
# usage: install.sh [OPTIONS] install [BIN MANDIR COMPLETIONDIR]
#        install.sh [OPTIONS] uninstall
#        install.sh [OPTIONS] list
# Options: --prefix DIR, --destdir DIR (the same as PREFIX and DESTDIR below),
# and --uninstall and --list for the commands. Without BIN MANDIR
# COMPLETIONDIR, the files beside this script are installed: bin/forcetrace,
# man/ and completions/, as the release archive holds them; and with no
# command at all, it installs. `list` prints every path install writes.
# Paths come from the options or from the environment, as the Makefile passes them:
#   DESTDIR (staging root, default empty), PREFIX (default /usr/local),
#   UDEVRULESDIR (where the udev rule goes; default $PREFIX/share/forcetrace,
#   where udev does not read it: copy it to /etc/udev/rules.d/ to use it),
#   ZSHDIR (default $PREFIX/share/zsh/site-functions),
#   MANIFEST=0 (no manifest: dpkg keeps its own list; make deb).
# install records every file it wrote and every folder it made in
# $PREFIX/share/forcetrace/install-manifest; uninstall removes exactly those
# (folders only when empty), and nothing without the manifest.
set -euo pipefail

die() { echo "install.sh: $*" >&2; exit 1; }
usage="usage: install.sh [--prefix DIR] [--destdir DIR] [install [BIN MANDIR COMPLETIONDIR] | uninstall | list | --uninstall | --list]"
command=
while [ $# -gt 0 ]; do
	case "$1" in
	--prefix) [ $# -ge 2 ] || die "--prefix needs a folder; $usage"; PREFIX=$2; shift 2 ;;
	--prefix=*) PREFIX=${1#--prefix=}; shift ;;
	--destdir) [ $# -ge 2 ] || die "--destdir needs a folder; $usage"; DESTDIR=$2; shift 2 ;;
	--destdir=*) DESTDIR=${1#--destdir=}; shift ;;
	--uninstall) command=uninstall; shift ;;
	--list) command=list; shift ;;
	-h | --help) echo "$usage"; exit 0 ;;
	install | uninstall | list) command=$1; shift; break ;;
	*) die "unknown argument '$1'; $usage" ;;
	esac
done

DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/usr/local}
UDEVRULESDIR=${UDEVRULESDIR:-$PREFIX/share/forcetrace}
ZSHDIR=${ZSHDIR:-$PREFIX/share/zsh/site-functions}
MANIFEST=${MANIFEST:-1}
manifest=$PREFIX/share/forcetrace/install-manifest
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case "$PREFIX" in /*) ;; *) die "PREFIX must be an absolute path, not '$PREFIX'" ;; esac

made_dirs=()
written=()
# ensure_dir DIR: makes DIR (under DESTDIR) and the folders above it that
# are missing, remembering which it made.
ensure_dir() {
	local dir=$1 missing=()
	# The staging root itself is not ours to record (nor to remove).
	[ -z "$DESTDIR" ] || [ -d "$DESTDIR" ] || install -d -m 0755 "$DESTDIR"
	while [ "$dir" != / ] && [ ! -d "$DESTDIR$dir" ]; do
		[ -e "$DESTDIR$dir" ] || [ -L "$DESTDIR$dir" ] && die "$DESTDIR$dir exists and is not a folder"
		missing=("$dir" "${missing[@]}")
		dir=$(dirname "$dir")
	done
	for dir in "${missing[@]}"; do
		install -d -m 0755 "$DESTDIR$dir"
		made_dirs+=("$dir")
	done
}
# put MODE SRC DST: install(1) unlinks DST first, so a link there is replaced, never written through.
put() {
	ensure_dir "$(dirname "$3")"
	install -m "$1" "$2" "$DESTDIR$3"
	written+=("$3")
}

# each_file BIN MANDIR COMPLETIONDIR ACTION: calls ACTION MODE SRC DST for every file install writes.
each_file() {
	local bin=$1 mandir=$2 compdir=$3 action=$4 page
	[ -x "$bin" ] || die "no binary at $bin (make release builds it)"
	ls "$mandir"/*.1 >/dev/null 2>&1 || die "no man pages in $mandir (make man makes them)"
	for f in forcetrace.bash _forcetrace forcetrace.fish; do
		[ -f "$compdir/$f" ] || die "no $compdir/$f (make completions makes it)"
	done
	"$action" 0755 "$bin" "$PREFIX/bin/forcetrace"
	for page in "$mandir"/*.1; do
		"$action" 0644 "$page" "$PREFIX/share/man/man1/$(basename "$page")"
	done
	"$action" 0644 "$compdir/forcetrace.bash" "$PREFIX/share/bash-completion/completions/forcetrace"
	"$action" 0644 "$compdir/_forcetrace" "$ZSHDIR/_forcetrace"
	"$action" 0644 "$compdir/forcetrace.fish" "$PREFIX/share/fish/vendor_completions.d/forcetrace.fish"
	"$action" 0644 "$HERE/70-forcetrace.rules" "$UDEVRULESDIR/70-forcetrace.rules"
}
show() { printf '%s\n' "$DESTDIR$3"; }

do_list() {
	each_file "$@" show
	[ "$MANIFEST" = 1 ] && printf '%s\n' "$DESTDIR$manifest"
	return 0
}

do_install() {
	each_file "$@" put
	[ "$MANIFEST" = 1 ] || return 0
	ensure_dir "$(dirname "$manifest")"
	{
		printf 'f %s\n' "${written[@]}" "$manifest"
		for ((i = ${#made_dirs[@]} - 1; i >= 0; i--)); do printf 'd %s\n' "${made_dirs[i]}"; done
	} >"$DESTDIR$manifest.new"
	mv -f "$DESTDIR$manifest.new" "$DESTDIR$manifest"
	echo "installed forcetrace in $DESTDIR$PREFIX (${#written[@]} files; list in $DESTDIR$manifest)"
	[ "$UDEVRULESDIR" != "$PREFIX/share/forcetrace" ] ||
		echo "to record without root: cp $DESTDIR$UDEVRULESDIR/70-forcetrace.rules /etc/udev/rules.d/ && udevadm control --reload && udevadm trigger"
}

do_uninstall() {
	[ -f "$DESTDIR$manifest" ] || die "$DESTDIR$manifest not found: nothing installed with this DESTDIR and PREFIX (give the same ones as to make install)"
	local kind path files=0 dirs=0
	# Files first (the manifest lists them before the folders, the deepest folder first).
	while read -r kind path; do
		case "$kind" in
		f) if [ -e "$DESTDIR$path" ] || [ -L "$DESTDIR$path" ]; then rm -f "$DESTDIR$path"; files=$((files + 1)); fi ;;
		d) if rmdir "$DESTDIR$path" 2>/dev/null; then dirs=$((dirs + 1)); fi ;;
		*) die "$DESTDIR$manifest: unexpected line '$kind $path'" ;;
		esac
	done <"$DESTDIR$manifest"
	echo "uninstalled forcetrace from $DESTDIR$PREFIX ($files files, $dirs folders)"
}

# The files to install: as given, or those beside this script (the release archive's layout).
if [ "${command:-install}" != uninstall ]; then
	case $# in
	3) files=("$@") ;;
	0) files=("$HERE/bin/forcetrace" "$HERE/man" "$HERE/completions")
		[ -x "${files[0]}" ] || die "no bin/forcetrace beside $0: run the install.sh of an unpacked release archive (make dist), or give BIN MANDIR COMPLETIONDIR" ;;
	*) die "$usage" ;;
	esac
fi
case "${command:-install}" in
install) do_install "${files[@]}" ;;
list) do_list "${files[@]}" ;;
uninstall) [ $# = 0 ] || die "$usage"; do_uninstall ;;
esac
