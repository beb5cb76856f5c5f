#!/bin/sh
# Scenario ft-quirks: for each hostile device name, a
# calibration of a touchpad with that name (the touchpad sample replayed with
# its N: line changed), `forcetrace suggest --format quirks`, the file put in
# a quirks folder with libinput's own quirks, and `libinput quirks list` on two
# uinput touchpads with the calibration's ids: the one with that name, and one
# with another name. udevd runs, so libinput sees ID_INPUT_TOUCHPAD and the
# section's MatchUdevType=touchpad can match. Checked by check_ft_quirks.py.
. "$FT_LIB"
ft_require player libinput-quirks udevadm systemd-udevd awk
ft_need_forcetrace
SAMPLE=/usr/share/ft/touchpad.evemu
[ -f "$SAMPLE" ] || ft_fail "$SAMPLE is not in the initramfs"
ID=3:1d6b:7f02 # the sample's I: line: usb, so MatchBus=usb is written and matched

mkdir -p /run/udev
systemd-udevd --daemon >"$OUT/udevd.log" 2>&1 || ft_fail "systemd-udevd --daemon failed: $(cat "$OUT/udevd.log")"

# start_touchpad NAME FILE: a touchpad named NAME with the sample's ids; its
# node goes to FILE. It idles until killed.
start_touchpad() {
	rm -f "$2"
	player script --touchpad --id "$ID" --name "$1" --wait-signal --start-delay-ms 60000 \
		--devnode-file "$2" >>"$OUT/player.out" 2>>"$OUT/player.err" &
	echo $! >>"$OUT/player.pids"
}

# quirk_case STEP NAME OTHER: NAME's quirk against NAME's device and OTHER's
quirk_case() {
	ft_step "$1"
	printf '%s' "$2" >"$OUT/name"
	printf '%s' "$3" >"$OUT/other-name"
	NAME=$2 awk '/^N: / && !done { print "N: " ENVIRON["NAME"]; done = 1; next } { print }' "$SAMPLE" >"$OUT/cal.evemu"
	forcetrace calibrate --replay "$OUT/cal.evemu" --protocol touchpad -o "$OUT/cal.h5" --fast >"$OUT/calibrate.out" 2>&1 ||
		ft_fail "$1: calibrate failed: $(tail -n 3 "$OUT/calibrate.out")"
	ft_log "calibrated"
	forcetrace suggest "$OUT/cal.h5" --format quirks -o "$OUT/forcetrace.quirks" 2>"$OUT/suggest.err" ||
		ft_fail "$1: suggest --format quirks failed: $(cat "$OUT/suggest.err")"
	_dir=/tmp/quirks-$1
	mkdir -p "$_dir"
	cp /usr/share/libinput/*.quirks "$_dir/"
	cp "$OUT/forcetrace.quirks" "$_dir/99-forcetrace.quirks"
	libinput-quirks validate --data-dir "$_dir" >"$OUT/validate.txt" 2>&1
	echo $? >"$OUT/validate.rc"

	ft_log "validated"
	: >"$OUT/player.pids"
	start_touchpad "$2" "$OUT/devnode-own"
	start_touchpad "$3" "$OUT/devnode-other"
	ft_wait_file "$OUT/devnode-own" 15 || ft_fail "$1: no device for the name: $(cat "$OUT/player.err")"
	ft_wait_file "$OUT/devnode-other" 15 || ft_fail "$1: no device for the other name: $(cat "$OUT/player.err")"
	udevadm settle --timeout=10 || ft_fail "$1: udevadm settle timed out"
	ft_log "settled"
	for _which in own other; do
		_dev=$(cat "$OUT/devnode-$_which")
		udevadm info --query=property --name="$_dev" >"$OUT/udev-$_which.txt" 2>&1
		cat "/sys/class/input/${_dev#/dev/input/}/device/name" >"$OUT/sysfs-name-$_which" 2>&1
		libinput-quirks list --data-dir "$_dir" "$_dev" >"$OUT/list-$_which.txt" 2>&1
		echo $? >"$OUT/list-$_which.rc"
	done
	ft_log "listed"
	for _pid in $(cat "$OUT/player.pids"); do kill "$_pid" 2>/dev/null; ft_wait_pid "$_pid" 10; done
}

# The name, then another name with the same ids that the section must not
# match (unless the name falls back to the ids): the unescaped pattern, or
# what libinput made of the name before, would match it.
# Three cases, each about 4 s under TCG (mostly forcetrace's start-up): the
# pytest suite Tests/python/test_quirks_names.py covers the other names.
quirk_case glob 'ft*quirks?\x' "ft-quirks!x"
quirk_case quote-bracket '"ft [quirks]' "ft [quirks]"
quirk_case comment "ft # quirks" "ft"
exit 0
