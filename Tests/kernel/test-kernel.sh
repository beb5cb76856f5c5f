#!/bin/bash
# test-kernel.sh - the whole live-kernel test: install packages if missing,
# build the helpers, build the initramfs, boot the guest once running all
# scenarios, then run each scenario's host-side checker.
# Called by `make test-kernel` (kernel.mk); usable on its own.
#
# usage: test-kernel.sh [--scenarios LIST] [--bin PATH]... [--no-install]
#                       [--timeout S]   (default 60 s a scenario, at least 300; env KERNEL_TIMEOUT)
#   --scenarios LIST  default: evemu-smoke,player-selftest,bin-smoke,fs-probe
#                     (env KERNEL_SCENARIOS)
#   --bin PATH        extra binary to ship (e.g. .build/debug/forcetrace);
#                     env KERNEL_BINS (space separated) adds more
#   --no-install      never call apt-get (fail if something is missing)
#
# Exit: 0 all passed, or SKIP (qemu cannot run a TCG guest here at all,
# printed as "SKIP: ..."); 1 any failure (including missing packages that
# could not be installed).
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${KERNEL_WORK:-$HERE/work}
scenarios=${KERNEL_SCENARIOS:-evemu-smoke,player-selftest,bin-smoke,fs-probe}
timeout_s=${KERNEL_TIMEOUT:-}
install=1
bins=()
for b in ${KERNEL_BINS:-}; do bins+=("$b"); done
while [ $# -gt 0 ]; do
	case "$1" in
	--scenarios) scenarios=$2; shift 2 ;;
	--bin) bins+=("$2"); shift 2 ;;
	--no-install) install=0; shift ;;
	--timeout) timeout_s=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "test-kernel: unknown argument $1" >&2; exit 1 ;;
	esac
done

# KERNEL_PACKAGE: make deb's tree (out/package/root). Its udev rule goes where
# the package puts it and its DEBIAN folder to /usr/share/ft/package, for the
# ft-package scenario; its binary comes in through KERNEL_BINS like any other.
pkg_files=()
if [ -n "${KERNEL_PACKAGE:-}" ]; then
	for f in lib/udev/rules.d/70-forcetrace.rules DEBIAN/md5sums; do
		[ -f "$KERNEL_PACKAGE/$f" ] || { echo "test-kernel: KERNEL_PACKAGE=$KERNEL_PACKAGE has no $f (make deb makes it)"; exit 1; }
	done
	pkg_files=(--file "$KERNEL_PACKAGE/lib/udev/rules.d/70-forcetrace.rules:/usr/lib/udev/rules.d/70-forcetrace.rules"
		--file "$KERNEL_PACKAGE/DEBIAN:/usr/share/ft/package")
fi

# A bound, not a budget: about 11 s a scenario on a quiet machine, up to 40 s
# with the host's cores taken by other work (the soak: two busy loops beside
# the other suites); 60 s each leaves room for that.
n_scenarios=$(echo "$scenarios" | tr ',' '\n' | grep -c .)
[ -n "$timeout_s" ] || timeout_s=$((n_scenarios * 60 > 300 ? n_scenarios * 60 : 300))

say() { echo "test-kernel: $*"; }
fail() { say "FAIL: $*"; echo "test-kernel: 0 passed, 1 failed"; exit 1; }

# ---- 1. packages (idempotent) ----
# libinput-tools and udev: ft-quirks runs `libinput quirks list` with udevd in the guest.
PKGS=(qemu-system-x86 linux-image-amd64 busybox-static cpio libevdev-dev evemu-tools pkg-config gcc libinput-tools udev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$install" = 1 ] || fail "missing packages: ${missing[*]} (and --no-install given)"
	[ "$(id -u)" = 0 ] || fail "missing packages: ${missing[*]}; run as root or: apt-get install -y ${missing[*]}"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=900 update -qq || fail "apt-get update failed"
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq "${missing[@]}" >"$HERE/work-apt.log" 2>&1 ||
		{ tail -n 20 "$HERE/work-apt.log"; rm -f "$HERE/work-apt.log"; fail "apt-get install ${missing[*]} failed"; }
	rm -f "$HERE/work-apt.log"
fi

mkdir -p "$WORK"
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n1)
[ -n "$kernel" ] || fail "no /boot/vmlinuz-* even though linux-image-amd64 is installed"
[ -r "$kernel" ] || fail "$kernel is not readable (Debian installs it 0600; run as root)"

# ---- 2. helpers ----
cflags=$(pkg-config --cflags libevdev) && libs=$(pkg-config --libs libevdev) || fail "pkg-config libevdev failed"
cc -O2 -Wall -Wextra -o "$WORK/player" "$HERE/player.c" $cflags $libs || fail "building player failed"
cc -O2 -Wall -Wextra -o "$WORK/fsprobe" "$HERE/fsprobe.c" || fail "building fsprobe failed"
cc -O2 -Wall -Wextra -o "$WORK/evreader" "$HERE/evreader.c" || fail "building evreader failed"
cc -O2 -Wall -Wextra -o "$WORK/forceplayer" "$HERE/forceplayer.c" $cflags $libs -lm || fail "building forceplayer failed"

# ---- 3. can qemu run a TCG guest here at all? ----
# Boot the bare kernel with no root: it must print its banner and panic
# (panic=-1 + -no-reboot make qemu exit).  Only a qemu that cannot start
# TCG, or a kernel that never gets going, means SKIP.
command -v qemu-system-x86_64 >/dev/null || fail "qemu-system-x86_64 not found although qemu-system-x86 is installed"
probe_log="$WORK/qemu-probe.log"
rm -f "$probe_log" "$probe_log.serial"
timeout -k 5 60 qemu-system-x86_64 -machine accel=tcg -m 256 -nodefaults -nographic -no-reboot \
	-serial "file:$probe_log.serial" -kernel "$kernel" \
	-append "console=ttyS0 panic=-1 root=/dev/nonexistent" </dev/null >"$probe_log" 2>&1
prc=$?
if ! grep -q 'Linux version' "$probe_log.serial" 2>/dev/null; then
	say "qemu probe exited $prc; qemu said: $(head -c 400 "$probe_log")"
	echo "SKIP: qemu-system-x86_64 cannot boot a TCG guest on this machine (see $probe_log); live-kernel tests not run"
	exit 0
fi

# ---- 4. initramfs ----
# ft-whatif: libinput itself (debug-events, with libwacom's data for tablets), evemu's player, the fixtures and ../shared.
whatif=(/usr/libexec/libinput/libinput-debug-events /usr/bin/evemu-device /usr/bin/evemu-play --file /usr/share/libwacom)
for f in whatif-touchpad-boundaries.evemu whatif-pen-boundaries.evemu whatif-thumb.quirks; do
	whatif+=(--file "$HERE/../fixtures/$f:/usr/share/ft/$f")
done
whatif+=(--file "$HERE/../fixtures/libinput-versions:/usr/share/ft/libinput-versions")
[ -d "$HERE/../../../shared/recordings" ] && whatif+=(--file "$HERE/../../../shared/recordings:/usr/share/ft/shared")
# The libinput releases of ../shared/libinput, built once per machine, each to
# /opt/libinput/X.Y.Z in the guest, beside Debian's 1.22.1 (Tests/libinput/README.md).
bash "$HERE/../libinput/build-oracles.sh" || fail "building the libinput oracles failed"
oracles=$(bash "$HERE/../libinput/build-oracles.sh" --list) || fail "listing the libinput oracles failed"
versions="1.22.1 (Debian)"
while IFS= read -r p; do
	[ -n "$p" ] || continue
	whatif+=(--libinput "${p##*/libinput-}=$p")
	versions="$versions ${p##*/libinput-}"
done <<<"$oracles"
say "libinput oracles: $versions"
t0=$(date +%s)
# ft-force: uhid makes the HID scale, hid-generic binds it and gives it a hidraw node.
"$HERE/mkinitramfs.sh" -o "$WORK/initramfs.cpio.gz" "$WORK/player" "$WORK/fsprobe" "$WORK/evreader" "$WORK/forceplayer" \
	--module uhid --module hid-generic \
	/usr/bin/evemu-record /usr/libexec/libinput/libinput-quirks /usr/bin/udevadm /lib/systemd/systemd-udevd \
	--file /usr/share/libinput --file /usr/lib/udev/rules.d/60-input-id.rules \
	--file "$HERE/../../samples/calibration/touchpad.evemu:/usr/share/ft/touchpad.evemu" \
	"${whatif[@]}" \
	"${pkg_files[@]}" "${bins[@]}" || fail "mkinitramfs failed"

# ---- 5. guest run ----
"$HERE/run-guest.sh" --initrd "$WORK/initramfs.cpio.gz" --out "$WORK/out" \
	--scenarios "$scenarios" --timeout "$timeout_s" --scenario-timeout 240
grc=$?
[ "$grc" -le 1 ] || fail "guest run did not complete (run-guest exit $grc; console: $WORK/out/console.log)"

# ---- 6. per-scenario verdicts: guest status + host checker if any ----
passed=0 failed=0 skipped=0
for s in $(echo "$scenarios" | tr ',' ' '); do
	st=$(cat "$WORK/out/$s/status" 2>/dev/null || echo missing)
	if [ "$st" = 77 ]; then
		skipped=$((skipped + 1))
		say "scenario $s: SKIP: $(cat "$WORK/out/$s/skipped" 2>/dev/null)"
		continue
	fi
	checker="$HERE/check_$(echo "$s" | tr '-' '_').py"
	ok=1
	[ "$st" = 0 ] || { ok=0; say "scenario $s: guest status $st"; }
	if [ -f "$checker" ]; then
		python3 "$checker" "$WORK/out" || ok=0
	fi
	if [ "$ok" = 1 ]; then
		passed=$((passed + 1)); say "scenario $s: PASS"
	else
		failed=$((failed + 1)); say "scenario $s: FAIL (outputs in $WORK/out/$s)"
	fi
done
say "total $(( $(date +%s) - t0 ))s for initramfs + guest + checks"
echo "test-kernel: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
