#!/bin/bash
# pages.sh - the man pages and shell completions, made by a forcetrace binary
# from its own argument parser (make man, make completions, make dist).
#
# usage: pages.sh BIN OUTDIR man|completions
# Writes OUTDIR/man (forcetrace.1 and one page per subcommand) or
# OUTDIR/completions (bash, zsh, fish). Each set is made in a temporary
# folder and moved into place whole, so a failed run leaves the last good set.
# Man pages carry SOURCE_DATE_EPOCH's date when it is set.
set -euo pipefail

die() { echo "pages.sh: $*" >&2; exit 1; }
[ $# = 3 ] || die "usage: pages.sh BIN OUTDIR man|completions"
bin=$1 outdir=$2 what=$3
[ -x "$bin" ] || die "no binary at $bin"
new=$outdir/$what.new
rm -rf "$new"
mkdir -p "$new"
case "$what" in
man)
	"$bin" --help-man >"$new/forcetrace.1"
	for command in $("$bin" --help-commands); do
		"$bin" --help-man "$command" >"$new/forcetrace-$command.1"
	done ;;
completions)
	"$bin" --help-completion bash >"$new/forcetrace.bash"
	"$bin" --help-completion zsh >"$new/_forcetrace"
	"$bin" --help-completion fish >"$new/forcetrace.fish" ;;
*) die "usage: pages.sh BIN OUTDIR man|completions" ;;
esac
rm -rf "${outdir:?}/$what"
mv "$new" "$outdir/$what"
echo "$outdir/$what: $(ls "$outdir/$what" | wc -l) files"
