#!/bin/bash
# portable.sh - builds a forcetrace that needs nothing but the C library (make portable).
#
# usage: portable.sh OUTDIR
# Writes OUTDIR/forcetrace (stripped, as the .deb ships it) and
# OUTDIR/glibc-floor (the newest GLIBC_ symbol version it needs, e.g. 2.36),
# and prints both with what ldd says.
#
# The binary links the Swift runtime and Foundation (--static-swift-stdlib),
# libstdc++ and libgcc, and Debian's static archives of HDF5 1.10.8 (with its
# high-level library), libaec (szip), zlib, libevdev, libyaml and libdeflate.
# These are the very libraries the Debian build links as shared objects, so
# both builds write the same bytes. HDF5's network side (the ROS3 driver and
# its S3 code, which need libcurl and OpenSSL) sits in objects nothing
# references, so the linker leaves them out; the check below proves it.
#
# SwiftPM finds the system libraries through pkg-config: the .pc files written
# here point it at a folder that holds only the static archives, so every -l
# resolves to an archive. Their compile flags are the Debian build's, and no
# flag here reaches a compile, so swift build finds the release build's
# objects up to date and only links them again: one compile for both
# builds (a second scratch path compiled everything again, 3 to 5 minutes).
# The Debian link is put back before this script ends, whatever happens.
set -euo pipefail

die() { echo "portable.sh: $*" >&2; exit 1; }
[ $# = 1 ] || die "usage: portable.sh OUTDIR"
outdir=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
SWIFT=${SWIFT:-swift}
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
syslib=/usr/lib/$multiarch
scratch=$ROOT/.build/portable-link
libdir=$scratch/static-libs
pcdir=$scratch/pkgconfig

# archive SOURCE: links one of Debian's static archives into the folder.
archive() {
	[ -f "$1" ] || die "$1 not found: apt-get install libhdf5-dev libaec-dev zlib1g-dev libevdev-dev libyaml-dev libdeflate-dev"
	ln -sf "$1" "$libdir/"
}
rm -rf "$libdir" "$pcdir"
mkdir -p "$libdir" "$pcdir" "$outdir"
archive "$syslib/hdf5/serial/libhdf5.a"
archive "$syslib/hdf5/serial/libhdf5_hl.a"
archive "$syslib/libsz.a"
archive "$syslib/libaec.a"
archive "$syslib/libz.a"
archive "$syslib/libevdev.a"
archive "$syslib/libyaml.a"
archive "$syslib/libdeflate.a"
archive "$(gcc -print-file-name=libstdc++.a)"
# The compiler driver links libgcc_s (the unwinder) by name; the same
# unwinder's archive answers that name here. -static-libgcc would do it
# too, but only as a compile flag (-Xswiftc), which would compile all again.
ln -sf "$(gcc -print-file-name=libgcc_eh.a)" "$libdir/libgcc_s.a"

# pc NAME VERSION CFLAGS LIBS: a pkg-config file for one of the modules Package.swift names.
pc() {
	printf 'Name: %s\nDescription: %s, static (packaging/portable.sh)\nVersion: %s\nCflags: %s\nLibs: -L%s %s\n' \
		"$1" "$1" "$2" "$3" "$libdir" "$4" >"$pcdir/$1.pc"
}
pc hdf5 "$(pkg-config --modversion hdf5)" "$(pkg-config --cflags hdf5)" "-lhdf5_hl -lhdf5 -lsz -laec -lz -ldl -lm"
pc libevdev "$(pkg-config --modversion libevdev)" "$(pkg-config --cflags libevdev)" "-levdev"
pc yaml-0.1 "$(pkg-config --modversion yaml-0.1)" "" "-lyaml"
pc libdeflate "$(pkg-config --modversion libdeflate)" "" "-ldeflate"

# The Debian build, as `make release` makes it: run again at the end, it only links.
debian_build() { (cd "$ROOT" && "$SWIFT" build -c release --static-swift-stdlib --product forcetrace); }
trap 'debian_build >/dev/null || echo "portable.sh: relinking the Debian build failed; run make release" >&2' EXIT

# The objects first (nothing to do after make release), then their portable link.
debian_build
# -static-libstdc++ alone does not do: the Swift runtime's link arguments name
# -lstdc++, which the archive folder (first on the search path) answers.
log=$scratch/link.log
(cd "$ROOT" && PKG_CONFIG_PATH=$pcdir "$SWIFT" build -c release --static-swift-stdlib --product forcetrace \
	-Xlinker -L"$libdir" -Xlinker --as-needed) 2>&1 | tee "$log"
if grep -q 'Compiling' "$log"; then
	echo "portable.sh: the portable link compiled sources again: its compile flags differ from the Debian build's" >&2
fi
built=$ROOT/.build/release/forcetrace

# Nothing of HDF5's network side, and nothing but the C library at run time.
if nm "$built" | grep -E ' (T|t) (H5FD_ros3_init|H5FD_s3comms_s3r_open)$|curl_easy_init' >/dev/null; then
	die "$built links HDF5's ROS3/S3 code"
fi
needed=$(objdump -p "$built" | awk '$1 == "NEEDED" {print $2}' | sort | tr '\n' ' ')
for lib in $needed; do
	case "$lib" in
	libc.so.6 | libm.so.6 | ld-linux-x86-64.so.2) ;;
	*) die "$built needs $lib; only the C library is allowed (NEEDED: $needed)" ;;
	esac
done

tmp=$outdir/forcetrace.partial
strip --strip-unneeded --remove-section=.comment --remove-section=.note -o "$tmp" "$built"
chmod 0755 "$tmp"
floor=$(objdump -T "$tmp" | grep -oE 'GLIBC_[0-9]+\.[0-9]+(\.[0-9]+)?' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
[ -n "$floor" ] || die "found no GLIBC_ symbol versions in $tmp"
mv -f "$tmp" "$outdir/forcetrace"
printf '%s\n' "$floor" >"$outdir/glibc-floor"

echo "$outdir/forcetrace: $(stat -c %s "$outdir/forcetrace") bytes, $("$outdir/forcetrace" --version)"
echo "needs: $needed(ldd:)"
ldd "$outdir/forcetrace" | sed 's/ (0x[0-9a-f]*)//; s/^/  /'
echo "glibc floor: $floor (the newest GLIBC_ version among its symbols; docs/INSTALL.md lists the distributions)"
