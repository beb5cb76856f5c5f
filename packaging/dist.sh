#!/bin/bash
# dist.sh - the release archive (make dist).
#
# usage: dist.sh BIN OUTDIR
# BIN is the portable binary (make portable). Writes
# OUTDIR/forcetrace-VERSION-linux-ARCH.tar.gz holding one folder:
#   bin/forcetrace, man/, completions/, 70-forcetrace.rules, install.sh,
#   README, glibc-floor, and licences/ (the Debian copyright files of every
#   library linked into the binary, and forcetrace's own).
# The archive is reproducible: sorted names, owner 0, every mtime at
# SOURCE_DATE_EPOCH (default: the last commit's time), gzip without a name or time.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "dist.sh: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: dist.sh BIN OUTDIR"
bin=$1 outdir=$2
[ -x "$bin" ] || die "no binary at $bin (make portable builds it)"
floor_file=$(dirname "$bin")/glibc-floor
[ -f "$floor_file" ] || die "no $floor_file beside $bin (make portable writes it)"
version=$("$bin" --version | awk '{print $2}')
[ -n "$version" ] || die "$bin --version printed no version"
arch=$(uname -m)
name=forcetrace-$version-linux-$arch
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$HERE" log -1 --format=%ct 2>/dev/null || date +%s)}

mkdir -p "$outdir"
scratch=$(mktemp -d "$outdir/.dist.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
top=$scratch/$name
install -d -m 0755 "$top/bin" "$top/licences"
install -m 0755 "$bin" "$top/bin/forcetrace"
SOURCE_DATE_EPOCH=$epoch "$HERE/pages.sh" "$bin" "$top" man >/dev/null
"$HERE/pages.sh" "$bin" "$top" completions >/dev/null
install -m 0755 "$HERE/install.sh" "$top/install.sh"
install -m 0644 "$HERE/70-forcetrace.rules" "$top/70-forcetrace.rules"
install -m 0644 "$floor_file" "$top/glibc-floor"
sed "s/@VERSION@/$version/g; s/@FLOOR@/$(cat "$floor_file")/g" "$HERE/README.dist" >"$top/README"
install -m 0644 "$HERE/copyright" "$top/licences/forcetrace"
# The libraries inside the binary, by the Debian package that holds each archive.
for lib in libhdf5-103-1 libaec0 libsz2 zlib1g libevdev2 libyaml-0-2 libdeflate0 libstdc++6; do
	copyright=/usr/share/doc/$lib/copyright
	[ -f "$copyright" ] || die "$copyright not found (apt-get install $lib)"
	install -m 0644 "$copyright" "$top/licences/$lib"
done
chmod 0644 "$top"/man/* "$top"/completions/*
chmod 0755 "$top/man" "$top/completions"

archive=$outdir/$name.tar.gz
tar -C "$scratch" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" |
	gzip -9n >"$archive.partial"
mv -f "$archive.partial" "$archive"
echo "$archive: $(stat -c %s "$archive") bytes, $(tar -tzf "$archive" | grep -vc '/$') files"
