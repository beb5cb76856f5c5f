#!/bin/bash
# deb.sh - builds forcetrace's Debian package with dpkg-deb (make deb).
#
# usage: deb.sh BIN MANDIR COMPLETIONDIR OUTDIR
# Writes OUTDIR/forcetrace_VERSION_ARCH.deb, and leaves the package's tree in
# OUTDIR/root (the kernel tests ship its binary and udev rule to a guest
# without Swift). The version is packaging/changelog's; its upstream part
# must be what BIN --version says. Depends comes from dpkg-shlibdeps on the
# binary: the Debian libraries it links, nothing of Swift. DEB_COMPRESSION=gzip
# builds it faster than the default xz (about 1 min for the 60 MB binary).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "deb.sh: $*" >&2; exit 1; }
[ $# = 4 ] || die "usage: deb.sh BIN MANDIR COMPLETIONDIR OUTDIR"
bin=$1 mandir=$2 compdir=$3 outdir=$4
for tool in dpkg-deb dpkg-shlibdeps dpkg-parsechangelog strip gzip; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install dpkg-dev binutils)"
done

version=$(dpkg-parsechangelog -l "$HERE/changelog" -S Version)
maintainer=$(dpkg-parsechangelog -l "$HERE/changelog" -S Maintainer)
built=$("$bin" --version | awk '{print $2}')
[ "${version%-*}" = "$built" ] ||
	die "packaging/changelog is at $version but $bin --version says $built: add a changelog entry for $built-1 (dch -v $built-1)"
arch=$(dpkg --print-architecture)

root=$outdir/root
rm -rf "$root"
mkdir -p "$root"
root=$(cd "$root" && pwd)
# Debian bookworm keeps packages' udev rules in /lib (the /usr move is for after it).
DESTDIR=$root PREFIX=/usr UDEVRULESDIR=/lib/udev/rules.d ZSHDIR=/usr/share/zsh/vendor-completions MANIFEST=0 \
	"$HERE/install.sh" install "$bin" "$mandir" "$compdir" >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/forcetrace"
gzip -9n "$root"/usr/share/man/man1/*.1
doc=$root/usr/share/doc/forcetrace
install -d -m 0755 "$doc"
install -m 0644 "$HERE/copyright" "$doc/copyright"
gzip -9nc "$HERE/changelog" >"$doc/changelog.Debian.gz"
install -d -m 0755 "$root/usr/share/lintian/overrides"
install -m 0644 "$HERE/lintian-overrides" "$root/usr/share/lintian/overrides/forcetrace"
chmod 0644 "$doc/changelog.Debian.gz"

# Depends: the shared libraries' packages, as dpkg-shlibdeps finds them.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/debian"
printf 'Source: forcetrace\n\nPackage: forcetrace\nArchitecture: any\n' >"$scratch/debian/control"
depends=$(cd "$scratch" && dpkg-shlibdeps -O -e"$root/usr/bin/forcetrace" 2>"$scratch/shlibdeps.err") ||
	die "dpkg-shlibdeps failed: $(cat "$scratch/shlibdeps.err")"
depends=${depends#shlibs:Depends=}
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies for $bin"

install -d -m 0755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: forcetrace
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Suggests: libinput-tools
Section: utils
Priority: optional
Description: record and analyse touch, touchpad and pen pressure traces
 forcetrace records evdev touchscreens, touchpads and pens into compressed,
 crash-safe HDF5 trace files, imports and exports evemu, libinput record and
 raw input_event recordings, and reports pressure curves, peek/pop
 thresholds and event-rate inflation. Its calibrate and suggest commands
 derive libinput quirks (AttrPressureRange and the palm and thumb
 thresholds) and pen tip thresholds from labelled trials.
 .
 The package holds the command (the Swift runtime linked in), a man page
 for it and for each subcommand, bash, zsh and fish completions, and a udev
 rule that lets the user at the seat record touchpads, touchscreens and
 tablets without root (keyboards stay closed).
CONTROL
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' md5sum) >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

deb=$outdir/forcetrace_${version}_${arch}.deb
dpkg-deb --root-owner-group "-Z${DEB_COMPRESSION:-xz}" --build "$root" "$deb.new" >/dev/null
mv -f "$deb.new" "$deb"
echo "$deb"
