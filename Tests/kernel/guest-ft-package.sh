#!/bin/sh
# Scenario ft-package: the Debian package in a guest with no
# Swift. The shipped forcetrace must be the package's binary (its md5sums
# line), no Swift library may be in the guest or in what the loader maps,
# and the package's udev rule, run by udevd, must tag a touchscreen and a
# touchpad 'uaccess' (the seat's user may read them) and not a touchpad
# whose node also has letter keys. The other ft-* scenarios record with the
# same binary (the Makefile ships it through KERNEL_BINS).
. "$FT_LIB"
ft_require player udevadm systemd-udevd md5sum find
ft_need_forcetrace
PKG=/usr/share/ft/package
[ -f "$PKG/md5sums" ] || ft_skip "no package shipped (make deb; test-kernel.sh reads KERNEL_PACKAGE=out/package/root)"
bin=$(readlink -f "$(command -v forcetrace)")
want=$(awk '$2 == "usr/bin/forcetrace" { print $1 }' "$PKG/md5sums")
got=$(md5sum "$bin" | cut -d' ' -f1)
echo "$bin $got (package: $want)" >"$OUT/binary.txt"
[ -n "$want" ] && [ "$want" = "$got" ] || ft_skip "the shipped forcetrace ($bin) is not the package's binary (KERNEL_BINS=out/package/root/usr/bin/forcetrace)"

# No Swift on this machine: neither the toolchain nor its libraries, and the
# loader maps none.
[ ! -e /opt/swift ] || ft_fail "/opt/swift exists in the guest"
find / -xdev -name 'libswift*' >"$OUT/swift-files.txt" 2>&1
[ ! -s "$OUT/swift-files.txt" ] || ft_fail "Swift libraries in the guest: $(head -n 3 "$OUT/swift-files.txt")"
LD_TRACE_LOADED_OBJECTS=1 forcetrace >"$OUT/loaded.txt" 2>&1 || ft_fail "the loader cannot list forcetrace's libraries: $(head -n 3 "$OUT/loaded.txt")"
grep -q 'not found' "$OUT/loaded.txt" && ft_fail "unresolved libraries: $(grep 'not found' "$OUT/loaded.txt")"
grep -qi swift "$OUT/loaded.txt" && ft_fail "forcetrace maps a Swift library: $(grep -i swift "$OUT/loaded.txt")"
forcetrace --version >"$OUT/version.txt" 2>&1 || ft_fail "forcetrace --version: $(cat "$OUT/version.txt")"
ft_log "$(cat "$OUT/version.txt") runs; $(grep -c '=>' "$OUT/loaded.txt") libraries, none of Swift"

# The udev rule.
[ -f /usr/lib/udev/rules.d/70-forcetrace.rules ] || ft_fail "the package's udev rule is not installed in the guest"
# An empty database: an earlier scenario's udevd may have ended before the
# removes of its devices, whose records (same major:minor) would be read
# back for this scenario's new nodes.
rm -rf /run/udev/data /run/udev/tags
mkdir -p /run/udev
systemd-udevd --daemon >"$OUT/udevd.log" 2>&1 || ft_fail "systemd-udevd --daemon failed: $(cat "$OUT/udevd.log")"
: >"$OUT/player.pids"
# start_device NAME ARGS...: an idle uinput device; its node goes to $OUT/devnode-NAME.
start_device() {
	_name=$1
	shift
	player script "$@" --name "ft-package-$_name" --wait-signal --start-delay-ms 60000 \
		--devnode-file "$OUT/devnode-$_name" >>"$OUT/player.out" 2>>"$OUT/player.err" &
	echo $! >>"$OUT/player.pids"
}
start_device touchscreen
start_device touchpad --touchpad
start_device keys --touchpad --keys
for _which in touchscreen touchpad keys; do
	ft_wait_file "$OUT/devnode-$_which" 15 || ft_fail "no device for $_which: $(cat "$OUT/player.err")"
done
udevadm settle --timeout=10 || ft_fail "udevadm settle timed out"
for _which in touchscreen touchpad keys; do
	udevadm info --query=property --name="$(cat "$OUT/devnode-$_which")" >"$OUT/udev-$_which.txt" 2>&1 ||
		ft_fail "udevadm info $_which: $(cat "$OUT/udev-$_which.txt")"
done
for _pid in $(cat "$OUT/player.pids"); do kill "$_pid" 2>/dev/null; ft_wait_pid "$_pid" 10; done
grep -q '^ID_INPUT_TOUCHSCREEN=1$' "$OUT/udev-touchscreen.txt" || ft_fail "udev did not type the touchscreen: $(cat "$OUT/udev-touchscreen.txt")"
grep -q '^ID_INPUT_TOUCHPAD=1$' "$OUT/udev-touchpad.txt" || ft_fail "udev did not type the touchpad"
grep -q '^ID_INPUT_KEY=1$' "$OUT/udev-keys.txt" || ft_fail "udev did not see the keys: $(cat "$OUT/udev-keys.txt")"
# tags FILE: the tags the rules gave the device this time. From systemd 247
# on, TAGS is sticky (every tag a node of that major:minor had while its
# record lived) and CURRENT_TAGS is this run's, absent when empty.
if [ "$(systemd-udevd --version | awk '{ print int($1) }')" -ge 247 ]; then tagline=CURRENT_TAGS; else tagline=TAGS; fi
tags() { grep "^$tagline=" "$1" || echo "no $tagline"; }
tags "$OUT/udev-touchscreen.txt" | grep -q ':uaccess:' || ft_fail "the touchscreen is not tagged uaccess: $(tags "$OUT/udev-touchscreen.txt")"
tags "$OUT/udev-touchpad.txt" | grep -q ':uaccess:' || ft_fail "the touchpad is not tagged uaccess: $(tags "$OUT/udev-touchpad.txt")"
tags "$OUT/udev-keys.txt" | grep -q ':uaccess:' && ft_fail "the touchpad with letter keys is tagged uaccess: $(tags "$OUT/udev-keys.txt")"
ft_log "rule: touchscreen and touchpad tagged uaccess, the node with keys not"
exit 0
