#!/bin/bash
# run-guest.sh - boot the test initramfs under qemu (TCG), run guest
# scenarios, and bring their /out/<scenario>/ directories back to the host.
#
# usage: run-guest.sh --initrd FILE --out DIR --scenarios a[,b...] [options]
#   --initrd FILE          initramfs from mkinitramfs.sh
#   --out DIR              host directory for results; must be absent, empty, or
#                          an earlier run-guest output (it is then wiped)
#   --scenarios LIST       comma-separated scenario names (guest-NAME.sh)
#   --timeout S            hard limit for the whole qemu run (default 150)
#   --scenario-timeout S   per-scenario limit inside the guest (default 90)
#   --kernel FILE          default: newest /boot/vmlinuz-*
#   --mem MB               default 1024
#   --smp N                default 2
#   --disk-mb N            size of the result disk (default 256)
#   --accel A              qemu accelerator (default tcg; kvm is never required)
#   --append ARGS          extra kernel command line
#
# Result transport: the guest writes a tar archive of its /out tmpfs raw onto
# a virtio disk (/dev/vda, a fresh sparse image per run); after qemu exits the
# host extracts it with tar and verifies the guest-made SHA256SUMS.  Nothing
# is parsed from the serial console except for diagnostics, so kernel log
# noise can never be mistaken for data.  The console is saved as
# DIR/console.log.
#
# Scenario exit codes: 0 pass, 77 skipped (ft_skip: e.g. forcetrace not
# shipped; reported, not counted as failure), anything else fails.
# Exit status: 0 guest completed and every scenario exited 0 (or 77);
#              1 guest completed but some scenario failed;
#              2 guest did not complete (timeout, crash, no/corrupt results);
#              3 usage or setup error.
set -uo pipefail

initrd="" out="" scenarios="" total_timeout=150 scen_timeout=90 kernel=""
mem=1024 smp=2 disk_mb=256 accel=tcg extra_append=""
die() { echo "run-guest: $*" >&2; exit 3; }
while [ $# -gt 0 ]; do
	case "$1" in
	--initrd) initrd=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--scenarios|--scenario) scenarios=$2; shift 2 ;;
	--timeout) total_timeout=$2; shift 2 ;;
	--scenario-timeout) scen_timeout=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--disk-mb) disk_mb=$2; shift 2 ;;
	--accel) accel=$2; shift 2 ;;
	--append) extra_append=$2; shift 2 ;;
	-h|--help) sed -n '2,30p' "$0"; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -n "$initrd" ] && [ -f "$initrd" ] || die "--initrd FILE required (got '$initrd')"
[ -n "$out" ] || die "--out DIR required"
[ -n "$scenarios" ] || die "--scenarios required"
case "$scenarios" in *[!a-zA-Z0-9_,-]*) die "bad scenario list: $scenarios" ;; esac
if [ -z "$kernel" ]; then
	kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n1)
	[ -n "$kernel" ] || die "no /boot/vmlinuz-* (apt-get install linux-image-amd64)"
fi
[ -r "$kernel" ] || die "kernel $kernel not readable (Debian installs it 0600: run as root)"
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"

# output dir: only ever wipe something that we created before
if [ -e "$out" ]; then
	[ -d "$out" ] || die "$out exists and is not a directory"
	if [ -n "$(ls -A "$out")" ]; then
		[ -f "$out/.ft-guest-out" ] || die "$out is not empty and not a run-guest output dir; refusing to wipe it"
		rm -rf "$out"
	fi
fi
mkdir -p "$out" && touch "$out/.ft-guest-out"
out=$(cd "$out" && pwd)

img=$(mktemp /tmp/ft-guest-disk.XXXXXX.img)
trap 'rm -f "$img"' EXIT
truncate -s "${disk_mb}M" "$img"

# cryptomgr.notests: the boot-time crypto self-tests test nothing of ours, and on a loaded
# host one soft-locked a TCG vCPU until the 1080 s limit (CI run of 2026-12-03).
append="console=ttyS0 quiet panic=-1 cryptomgr.notests ft.scenarios=$scenarios ft.timeout=$scen_timeout ft.outdev=/dev/vda $extra_append"
cmd=("$qemu" -machine "accel=$accel" -m "$mem" -smp "$smp" -nographic -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$append"
	-drive "file=$img,format=raw,if=virtio,cache=unsafe"
	-nic none)
printf '%q ' timeout -k 10 "$total_timeout" "${cmd[@]}" >"$out/qemu-cmd.txt"
echo >>"$out/qemu-cmd.txt"

echo "run-guest: booting $(basename "$kernel") scenarios=$scenarios (timeout ${total_timeout}s)" >&2
t0=$(date +%s.%N)
timeout -k 10 "$total_timeout" "${cmd[@]}" </dev/null >"$out/console.log" 2>&1
qrc=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')

incomplete() {
	echo "run-guest: FAIL: guest did not complete: $*" >&2
	echo "run-guest: last console lines:" >&2
	tail -n 30 "$out/console.log" | sed 's/^/  | /' >&2
	exit 2
}
[ "$qrc" = 124 ] || [ "$qrc" = 137 ] && incomplete "qemu killed after ${total_timeout}s (wall ${wall}s)"
[ "$qrc" = 0 ] || incomplete "qemu exited with status $qrc"

# extract the archive the guest wrote at offset 0 of the disk
if ! tar -xf "$img" -C "$out" 2>"$out/extract.err"; then
	incomplete "no tar archive on the result disk ($(head -c 300 "$out/extract.err"))"
fi
[ -f "$out/guest-done" ] || incomplete "no guest-done marker in results"
if ! (cd "$out" && sha256sum -c --quiet SHA256SUMS >"$out/checksum.log" 2>&1); then
	incomplete "result checksum mismatch: $(head -c 300 "$out/checksum.log")"
fi

guest_val() { sed -n "s/^$1=//p" "$out/guest-info" | head -n1; }
boot=$(guest_val boot_uptime) done_t=$(guest_val done_uptime)
echo "run-guest: guest complete in ${wall}s wall (kernel boot->init ${boot}s, init->done $(awk -v a="$boot" -v b="$done_t" 'BEGIN{printf "%.1f", b-a}')s guest uptime)" >&2
rc=0
for s in $(echo "$scenarios" | tr ',' ' '); do
	st=$(cat "$out/$s/status" 2>/dev/null || echo missing)
	if [ "$st" = 77 ]; then
		echo "run-guest: scenario $s: SKIP: $(cat "$out/$s/skipped" 2>/dev/null)" >&2
		continue
	fi
	echo "run-guest: scenario $s: status $st ($(cat "$out/$s/timing" 2>/dev/null))" >&2
	if [ "$st" != 0 ]; then
		rc=1
		sed 's/^/  | /' "$out/$s/log" 2>/dev/null | tail -n 20 >&2
	fi
done
exit $rc
