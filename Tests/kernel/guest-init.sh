#!/bin/sh
# /init of the forcetrace test initramfs (built by mkinitramfs.sh).
#
# Kernel command line parameters (set by run-guest.sh):
#   ft.scenarios=a,b,c   scenarios to run, in order (/usr/share/ft/scenarios/NAME.sh)
#   ft.timeout=S         per-scenario timeout in seconds (default 90)
#   ft.outdev=/dev/vda   raw block device receiving the tar archive of /out
#   ft.debug=shell       drop into a shell on the console at the end (interactive use)
#
# Each scenario runs with cwd=/out/NAME and OUT=/out/NAME, SCENARIO=NAME,
# FT_LIB=/usr/share/ft/guest-lib.sh; its stdout+stderr go to /out/NAME/log and
# its exit code to /out/NAME/status.  Between scenarios every process but
# init is killed, so a leftover player cannot leak into the next scenario.
# At the end /out (tmpfs) is archived with tar, written raw to ft.outdev
# (the host extracts it from the disk image), and the guest powers off.

export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /out
[ -f /etc/ft-ld-library-path ] && export LD_LIBRARY_PATH="$(cat /etc/ft-ld-library-path)"

say() { echo "@@FT@@ $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

t_boot=$(uptime_s)
scenarios=""
timeout_s=90
outdev=/dev/vda
debug=""
for w in $(cat /proc/cmdline); do
	case "$w" in
	ft.scenarios=*) scenarios=${w#*=} ;;
	ft.timeout=*) timeout_s=${w#*=} ;;
	ft.outdev=*) outdev=${w#*=} ;;
	ft.debug=*) debug=${w#*=} ;;
	esac
done
say "init start uptime=$t_boot scenarios=$scenarios"

# ---- modules ----
: >/out/modules.log
while read -r m; do
	[ -n "$m" ] || continue
	if insmod "$m" >>/out/modules.log 2>&1; then
		echo "ok $m" >>/out/modules.log
	else
		echo "FAILED $m" >>/out/modules.log
		say "insmod failed: $m"
	fi
done </etc/ft-modules

# wait (briefly) for the output disk and the uinput node
i=0
while [ $i -lt 50 ] && { [ ! -b "$outdev" ] || [ ! -c /dev/uinput ]; }; do
	sleep 0.1
	i=$((i + 1))
done
[ -b "$outdev" ] || say "WARNING: output device $outdev missing; results cannot be returned"
[ -c /dev/uinput ] || say "WARNING: /dev/uinput missing"

{
	echo "kernel=$(uname -r)"
	echo "boot_uptime=$t_boot"
	echo "modules_loaded_uptime=$(uptime_s)"
	echo "scenarios=$scenarios"
	echo "timeout=$timeout_s"
	cat /etc/ft-build-info
} >/out/guest-info

# ---- scenarios ----
failed=0
for s in $(echo "$scenarios" | tr ',' ' '); do
	d=/out/$s
	mkdir -p "$d"
	f=/usr/share/ft/scenarios/$s.sh
	t0=$(uptime_s)
	if [ -f "$f" ]; then
		(cd "$d" && OUT=$d SCENARIO=$s FT_LIB=/usr/share/ft/guest-lib.sh \
			timeout -k 5 "$timeout_s" /bin/sh "$f") >"$d/log" 2>&1 </dev/null
		rc=$?
	else
		echo "no such scenario: $s (have: $(ls /usr/share/ft/scenarios))" >"$d/log"
		rc=127
	fi
	# reap leftovers (players, recorders) of this scenario
	kill -KILL -1 2>/dev/null
	sleep 0.2
	t1=$(uptime_s)
	echo "$rc" >"$d/status"
	echo "start=$t0 end=$t1" >"$d/timing"
	[ "$rc" = 0 ] || failed=$((failed + 1))
	sed "s/^/[$s] /" "$d/log" | tail -n 40
	say "scenario $s rc=$rc uptime=$t0..$t1"
done

t_end=$(uptime_s)
echo "done_uptime=$t_end" >>/out/guest-info
echo "failed=$failed" >>/out/guest-info
dmesg >/out/dmesg.txt 2>/dev/null
echo "complete failed=$failed" >/out/guest-done
(cd /out && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum >SHA256SUMS)

if [ -b "$outdev" ]; then
	tar -cf /tmp/out.tar -C /out .
	size=$(wc -c </tmp/out.tar)
	dd if=/tmp/out.tar of="$outdev" bs=65536 conv=fsync 2>/dev/null
	sync
	say "DONE failed=$failed tar_bytes=$size uptime=$t_end"
else
	say "DONE-NO-OUTPUT failed=$failed uptime=$t_end"
fi

if [ "$debug" = shell ]; then
	say "debug shell; 'poweroff -f' to exit"
	setsid cttyhack /bin/sh
fi
poweroff -f
