#!/bin/bash
# mkinitramfs.sh - build the gzip'd cpio initramfs for forcetrace's
# live-kernel tests (see README.md in this directory).
#
# usage: mkinitramfs.sh -o OUT.cpio.gz [options] [BINARY...]
#   -o, --output FILE   initramfs to write (required)
#   --kver VER          kernel version whose modules to use
#                       (default: newest /boot/vmlinuz-*, same rule as run-guest.sh)
#   --bin PATH          dynamically linked (or static) executable to ship; may repeat.
#                       Positional arguments are treated the same way.  The file is
#                       copied to its absolute host path (so $ORIGIN rpaths keep
#                       working; paths under /tmp /out /dev /proc /sys /run,
#                       which guest mounts hide, go to /opt/ft-shipped/<path>)
#                       and linked as /usr/local/bin/<basename>.
#                       All its `ldd` libraries are copied to the paths ldd prints,
#                       plus the ELF interpreter (/lib64/ld-linux-x86-64.so.2).
#   --lib PATH          extra shared library (e.g. one that is dlopen()ed), with
#                       its own ldd dependencies; may repeat
#   --file SRC[:DST]    extra file or directory (copied recursively) to DST
#                       (default: same path as SRC); may repeat
#   --libinput VER=PREFIX  a libinput build (Tests/libinput/build-oracles.sh) to
#                       /opt/libinput/VER/: bin/ (debug-events, quirks), lib/
#                       (libinput.so.10, kept out of ld.so.cache: run with
#                       LD_LIBRARY_PATH=/opt/libinput/VER/lib), share/libinput/
#                       (its own quirks); the libraries it needs go in as --lib; may repeat
#   --module NAME       extra kernel module (dependencies resolved with
#                       modprobe --show-depends); may repeat.  Always included:
#                       evdev uinput virtio_pci virtio_blk
#
# Guest layout:
#   /init                          <- guest-init.sh
#   /usr/share/ft/guest-lib.sh     <- guest-lib.sh
#   /usr/share/ft/scenarios/NAME.sh<- guest-NAME.sh (every other guest-*.sh here)
#   /etc/ft-modules                module files to insmod, in order
#   /etc/ld.so.cache               built with ldconfig -r over all shipped lib dirs
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=""
kver=""
bins=()
libs=()
files=()
builds=()
modules=(evdev uinput virtio_pci virtio_blk)

die() { echo "mkinitramfs: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	-o|--output) out=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--bin) bins+=("$2"); shift 2 ;;
	--lib) libs+=("$2"); shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--module) modules+=("$2"); shift 2 ;;
	--libinput) builds+=("$2"); shift 2 ;;
	-h|--help) sed -n '2,30p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) bins+=("$1"); shift ;;
	esac
done
[ -n "$out" ] || die "-o OUT.cpio.gz is required"
out=$(realpath -m "$out")

if [ -z "$kver" ]; then
	vmlinuz=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n1)
	[ -n "$vmlinuz" ] || die "no /boot/vmlinuz-* (apt-get install linux-image-amd64)"
	kver=${vmlinuz#/boot/vmlinuz-}
fi
moddir=/lib/modules/$kver
[ -d "$moddir" ] || die "$moddir missing"
busybox=$(command -v busybox || true)
for b in /bin/busybox /usr/bin/busybox "$busybox"; do
	if [ -n "$b" ] && [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then  # static
		busybox=$b
		break
	fi
done
[ -x "$busybox" ] || die "busybox not found (apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio not found (apt-get install cpio)"

root=$(mktemp -d /tmp/ft-initramfs.XXXXXX)
trap 'rm -rf "$root"' EXIT

# Mirror the host's merged-/usr symlinks so ldd paths resolve identically.
mkdir -p "$root"/usr/bin "$root"/usr/sbin "$root"/usr/lib "$root"/usr/local/bin
for d in bin sbin lib lib64; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$root/$d"
		mkdir -p "$root/$(readlink -f "/$d")"
	else
		mkdir -p "$root/$d"
	fi
done
mkdir -p "$root"/{dev,proc,sys,tmp,run,out,etc,root,mnt} "$root"/usr/share/ft/scenarios

# busybox + applet links (never overwriting anything)
cp "$busybox" "$root/usr/bin/busybox"
[ -e "$root/bin/busybox" ] || cp "$busybox" "$root/bin/busybox"
"$busybox" --list-full | while read -r app; do
	dst="$root/$app"
	[ -e "$dst" ] || [ -L "$dst" ] && continue
	mkdir -p "$(dirname "$dst")"
	ln -s /bin/busybox "$dst"
done
[ -e "$root/bin/sh" ] || ln -s busybox "$root/bin/sh"

# The guest mounts tmpfs/devtmpfs/proc/sysfs over these, hiding anything
# shipped below them; such files go to /opt/ft-shipped/<host path> instead
# (libraries are then found through the ld.so.cache built below).
guest_path() {
	case "$1" in
	/tmp/*|/out/*|/dev/*|/proc/*|/sys/*|/run/*) echo "/opt/ft-shipped$1" ;;
	*) echo "$1" ;;
	esac
}

copy_one() { # SRC DST(absolute, inside guest)
	local src=$1 dst=$2
	mkdir -p "$root$(dirname "$dst")"
	rm -f "$root$dst"
	cp -L --preserve=mode "$src" "$root$dst"
}

declare -A seen_lib=()
libdirs=()
copy_deps() { # ELF [OWN_LIBDIR]: copy everything ldd reports (but what OWN_LIBDIR, searched first, holds)
	local elf=$1 own=${2:-} line path
	local lddout
	if ! lddout=$(if [ -n "$own" ]; then LD_LIBRARY_PATH="$own" ldd "$elf"; else ldd "$elf"; fi 2>&1); then
		case "$lddout" in
		*"not a dynamic executable"*|*"statically linked"*) return 0 ;;
		*) die "ldd $elf failed: $lddout" ;;
		esac
	fi
	if grep -q 'not found' <<<"$lddout"; then
		die "ldd $elf: unresolved libraries:"$'\n'"$(grep 'not found' <<<"$lddout")"
	fi
	while read -r line; do
		path=""
		case "$line" in
		*"=> /"*) path=${line#*=> }; path=${path%% (*} ;;
		/*) path=${line%% (*} ;;
		esac
		[ -n "$path" ] || continue
		[ -n "$own" ] && [ "${path#"$own"/}" != "$path" ] && continue
		[ -n "${seen_lib[$path]:-}" ] && continue
		seen_lib[$path]=1
		gpath=$(guest_path "$path")
		copy_one "$path" "$gpath"
		libdirs+=("$(dirname "$gpath")")
	done <<<"$lddout"
}

# ---- kernel modules ----
: >"$root/etc/ft-modules"
declare -A seen_mod=()
for m in "${modules[@]}"; do
	deps=$(modprobe -S "$kver" --show-depends "$m" 2>&1) || die "modprobe --show-depends $m: $deps"
	while read -r kind path _; do
		case "$kind" in
		builtin) echo "mkinitramfs: $m is built in ($path)" >&2 ;;
		insmod)
			[ -n "${seen_mod[$path]:-}" ] && continue
			seen_mod[$path]=1
			case "$path" in
			*.ko) copy_one "$path" "$path"; echo "$path" >>"$root/etc/ft-modules" ;;
			*.ko.xz) mkdir -p "$root$(dirname "$path")"; xz -dc "$path" >"$root${path%.xz}"
				echo "${path%.xz}" >>"$root/etc/ft-modules" ;;
			*.ko.zst) mkdir -p "$root$(dirname "$path")"; zstd -qdc "$path" >"$root${path%.zst}"
				echo "${path%.zst}" >>"$root/etc/ft-modules" ;;
			*.ko.gz) mkdir -p "$root$(dirname "$path")"; gzip -dc "$path" >"$root${path%.gz}"
				echo "${path%.gz}" >>"$root/etc/ft-modules" ;;
			*) die "unexpected module file $path" ;;
			esac ;;
		esac
	done <<<"$deps"
done

# ---- binaries, libraries, files ----
shipped=()
for b in "${bins[@]}"; do
	[ -f "$b" ] || die "binary $b not found"
	abs=$(readlink -f "$b")
	gabs=$(guest_path "$abs")
	copy_one "$abs" "$gabs"
	copy_deps "$abs"
	name=$(basename "$b")
	if [ "$gabs" != "/usr/local/bin/$name" ]; then
		rm -f "$root/usr/local/bin/$name"
		ln -s "$gabs" "$root/usr/local/bin/$name"
	fi
	shipped+=("$name=$gabs")
done
for l in "${libs[@]}"; do
	[ -f "$l" ] || die "library $l not found"
	gl=$(guest_path "$l")
	copy_one "$l" "$gl"
	libdirs+=("$(dirname "$gl")")
	copy_deps "$l"
done
# A libinput build: only what debug-events and quirks need, no headers or docs.
for b in "${builds[@]}"; do
	ver=${b%%=*}
	prefix=${b#*=}
	case "$ver" in ''|*[!0-9.]*) die "--libinput $b: VER must be a version number" ;; esac
	own=$prefix/lib/x86_64-linux-gnu
	g=/opt/libinput/$ver
	mkdir -p "$root$g/bin" "$root$g/lib" "$root$g/share/libinput"
	for t in libinput-debug-events libinput-quirks; do
		[ -x "$prefix/libexec/libinput/$t" ] || die "--libinput $b: no libexec/libinput/$t"
		copy_one "$prefix/libexec/libinput/$t" "$g/bin/$t"
		copy_deps "$prefix/libexec/libinput/$t" "$own"
	done
	[ -e "$own/libinput.so.10" ] || die "--libinput $b: no $own/libinput.so.10"
	copy_one "$own/libinput.so.10" "$g/lib/libinput.so.10"
	copy_deps "$own/libinput.so.10" "$own"
	cp "$prefix"/share/libinput/*.quirks "$root$g/share/libinput/" || die "--libinput $b: no share/libinput/*.quirks"
	# The build's own prefix: its plugin folders are compiled in under it.
	echo "$prefix" >"$root$g/prefix"
done
for f in "${files[@]}"; do
	src=${f%%:*}
	dst=$src
	[ "$src" != "$f" ] && dst=${f#*:}
	[ -e "$src" ] || die "file $src not found"
	mkdir -p "$root$(dirname "$dst")"
	cp -a -L "$src" "$root$dst"
done

# ld.so.cache for every shipped library dir (binaries in the guest live
# at their host paths, but e.g. /etc/ld.so.conf.d dirs would otherwise be
# missed since the guest has no cache of its own)
printf '%s\n' "${libdirs[@]:-}" | sort -u | grep . >"$root/etc/ld.so.conf" || true
if [ -s "$root/etc/ld.so.conf" ]; then
	if ! ldconfig -r "$root" 2>"$root/etc/ldconfig.log"; then
		echo "mkinitramfs: ldconfig -r failed; guest will use LD_LIBRARY_PATH" >&2
		cat "$root/etc/ldconfig.log" >&2
		paste -sd: "$root/etc/ld.so.conf" >"$root/etc/ft-ld-library-path"
	fi
fi

# ---- guest scripts ----
install -m 0755 "$HERE/guest-init.sh" "$root/init"
install -m 0644 "$HERE/guest-lib.sh" "$root/usr/share/ft/guest-lib.sh"
for s in "$HERE"/guest-*.sh; do
	n=$(basename "$s" .sh)
	n=${n#guest-}
	case "$n" in init|lib) continue ;; esac
	install -m 0755 "$s" "$root/usr/share/ft/scenarios/$n.sh"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\ninput:x:101:\n' >"$root/etc/group"
{
	echo "kver=$kver"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	for s in "${shipped[@]:-}"; do echo "bin $s"; done
} >"$root/etc/ft-build-info"

# ---- archive ----
mkdir -p "$(dirname "$out")"
tmpout="$out.tmp.$$"
(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0 | gzip -1 >"$tmpout")
mv "$tmpout" "$out"
echo "mkinitramfs: wrote $out ($(du -h "$out" | cut -f1)) kver=$kver modules=$(wc -l <"$root/etc/ft-modules") bins=${#bins[@]}" >&2
