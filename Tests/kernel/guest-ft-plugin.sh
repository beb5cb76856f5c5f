#!/bin/sh
# Scenario ft-plugin: the Lua plugin 'suggest --format libinput-plugin'
# writes, loaded by libinput 1.31.3 built from ../shared/libinput. A
# simulated pen session is calibrated here, its plugin installed in the
# build's compiled-in plugin folder, and the session played through uinput
# twice: once read by debug-events without plugins and with them, once
# under another device name with them (the plugin must leave that device
# alone). check_ft_plugin.py compares the logs with the played events.
. "$FT_LIB"
ft_require evemu-device evemu-play udevadm systemd-udevd awk sed ip timeout
ft_need_forcetrace
V=1.31.3
[ -x "/opt/libinput/$V/bin/libinput-debug-events" ] || ft_skip "no libinput $V in the guest (../shared/libinput absent): the plugin is not loaded"
# libinput looks for plugins only in the folders its build names (--set-plugin-path does not add one in 1.31).
[ -s "/opt/libinput/$V/prefix" ] || ft_fail "/opt/libinput/$V/prefix is missing (mkinitramfs.sh writes the build's prefix there)"
PLUGINS=$(cat "/opt/libinput/$V/prefix")/etc/libinput/plugins

ft_step plugin
mkdir -p /run/udev
systemd-udevd --daemon >"$OUT/udevd.log" 2>&1 || ft_fail "systemd-udevd --daemon failed: $(cat "$OUT/udevd.log")"

# calibrate and suggest ask a child process for the installed libinput's
# version (here busybox's rpm, which refuses the query). With the guest's
# loopback down, Foundation's Process logs "Could not create wakeup socket pair
# for CFSocket" (not with lo up), and calibrate hung after its last trial in 2
# of 2 runs. So: loopback up, and a bound on each call.
ip link set lo up || ft_fail "ip link set lo up failed"
timeout 60 forcetrace simulate --protocol pen --seed 3 --trials 5 -o /tmp/pen.evemu >/dev/null 2>&1 || ft_fail "simulate pen failed"
timeout 60 forcetrace calibrate --replay /tmp/pen.evemu --protocol pen --trials 5 -o /tmp/pen.h5 --fast --quiet >"$OUT/calibrate.out" 2>&1 ||
	ft_fail "calibrate failed or hung: $(tail -n 3 "$OUT/calibrate.out")"
timeout 60 forcetrace suggest /tmp/pen.h5 --format libinput-plugin -o "$OUT/plugin.lua" 2>"$OUT/suggest.err" || ft_fail "suggest failed: $(cat "$OUT/suggest.err")"
timeout 60 forcetrace suggest /tmp/pen.h5 --format json -o "$OUT/suggestion.json" 2>>"$OUT/suggest.err" || ft_fail "suggest --format json failed"
! grep -q 'wakeup socket' "$OUT/calibrate.out" "$OUT/suggest.err" || ft_fail "Foundation could not make its wakeup socket pair: $(cat "$OUT/suggest.err")"
echo "$PLUGINS" >"$OUT/plugin-folder"
mkdir -p "$PLUGINS"
cp "$OUT/plugin.lua" "$PLUGINS/50-forcetrace-pen.lua"

# The session 4x faster than recorded (tip decisions have no timers).
ft_evemu_faster /tmp/pen.evemu "$OUT/played.evemu"
# The same events from a device of another name: the control.
sed 's/^N: .*/N: forcetrace other pen/' "$OUT/played.evemu" >"$OUT/other.evemu"

# play STEP FILE LOG:FLAGS...: FILE through uinput, read by one debug-events per LOG:FLAGS at once.
play() {
	_step=$1 _file=$2; shift 2
	evemu-device "$_file" >"$OUT/device-$_step.out" 2>&1 &
	_devpid=$!
	ft_wait_grep "$OUT/device-$_step.out" "/dev/input/event" 15 || ft_fail "$_step: evemu-device made no device"
	_dev=$(grep -o '/dev/input/event[0-9]*' "$OUT/device-$_step.out" | head -n 1)
	udevadm settle --timeout=10 || ft_fail "$_step: udevadm settle timed out"
	_pids=""
	for _reader in "$@"; do
		_log=${_reader%%:*} _flags=${_reader#*:}
		mkdir -p "/tmp/xdg-$_log" && chmod 700 "/tmp/xdg-$_log"
		LD_LIBRARY_PATH=/opt/libinput/$V/lib LIBINPUT_QUIRKS_DIR=/opt/libinput/$V/share/libinput XDG_RUNTIME_DIR=/tmp/xdg-$_log NO_COLOR=1 \
			"/opt/libinput/$V/bin/libinput-debug-events" --verbose $_flags --device "$_dev" >"$OUT/$_log.log" 2>&1 &
		_pids="$_pids $!"
	done
	for _pid in $_pids; do ft_wait_reading "$_pid" 30 || ft_fail "$_step: debug-events $_pid is not reading: $(tail -n 5 "$OUT"/*.log)"; done
	grep '^E: ' "$_file" | evemu-play "$_dev" >"$OUT/play-$_step.out" 2>&1 || ft_fail "$_step: evemu-play failed"
	ft_stop_readers "$_step" $_pids
	kill "$_devpid" 2>/dev/null; ft_wait_pid "$_devpid" 10
	ft_log "$_step: played"
}

# --verbose with an empty flag list: the reader without plugins.
play calibrated "$OUT/played.evemu" "plain:--verbose" "plugin:--enable-plugins"
play other "$OUT/other.evemu" "other:--enable-plugins"
exit 0
