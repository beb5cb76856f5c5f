#!/bin/sh
# Scenario ft-force: forceplayer presses a uinput pen onto a scale with a
# scripted force curve (docs/ANALYSIS.md, "Force": activation 8 gf,
# saturation 400 gf, hysteresis 15 gf), the scale 150 ms late. The scale is
# a USB HID scale made with /dev/uhid (the kernel parses its Scales-page
# report descriptor and makes the hidraw node), then a serial scale on a pty
# with a 120 ms lag. `forcetrace calibrate --protocol force --scale ...`
# runs on each and `suggest --format json` says what it found; then a scale
# unplugged mid-recording, one reporting unstable, one overloading, each
# under `forcetrace record --scale`. Checked on the host by check_ft_force.py.
. "$FT_LIB"
ft_require forceplayer
ft_need_forcetrace
[ -c /dev/uhid ] || ft_fail "no /dev/uhid (uhid module not loaded)"

# ft_force_player NAME ARGS...: start forceplayer, wait for its pen and scale nodes.
ft_force_player() {
	_name=$1; shift
	rm -f "$OUT/$_name.pen" "$OUT/$_name.scale"
	forceplayer "$@" --pen-file "$OUT/$_name.pen" --scale-file "$OUT/$_name.scale" --expect "$OUT/$_name.expect.json" \
		>"$OUT/$_name.player.out" 2>"$OUT/$_name.player.err" &
	FT_PLAYER_PID=$!
	ft_wait_file "$OUT/$_name.pen" 15 || ft_fail "$_name: forceplayer made no pen: $(cat "$OUT/$_name.player.err")"
	ft_wait_file "$OUT/$_name.scale" 15 || ft_fail "$_name: forceplayer made no scale: $(cat "$OUT/$_name.player.err")"
	FT_DEV=$(cat "$OUT/$_name.pen")
	FT_SCALE=$(cat "$OUT/$_name.scale")
	ft_log "$_name: pen $FT_DEV scale $FT_SCALE"
}

# ft_force_run NAME TIMEOUT CMD...: run a forcetrace command on the player's pen, start the player once it has the pen open.
ft_force_run() {
	_name=$1; _timeout=$2; shift 2
	"$@" >"$OUT/$_name.out" 2>"$OUT/$_name.err" &
	_pid=$!
	ft_wait_opened "$_pid" "$FT_DEV" 30 || ft_fail "$_name did not open $FT_DEV: $(cat "$OUT/$_name.err")"
	sleep 0.5
	ft_go_player
	ft_wait_pid "$_pid" "$_timeout"
	echo "$FT_RC" >"$OUT/$_name.rc"
	ft_wait_pid "$FT_PLAYER_PID" 30
}

# 1. The HID scale: calibrate, then suggest.
ft_force_player hid --hid --presses 6 --lag-ms 150
ft_force_run hid 100 forcetrace calibrate "$FT_DEV" -o "$OUT/hid.h5" --protocol force --trials 3 --scale "$FT_SCALE"
[ "$(cat "$OUT/hid.rc")" = 0 ] || ft_fail "calibrate with the HID scale exited $(cat "$OUT/hid.rc"): $(tail -n 5 "$OUT/hid.err")"
forcetrace suggest "$OUT/hid.h5" --format json >"$OUT/hid.json" 2>>"$OUT/hid.err" || ft_fail "suggest failed: $(cat "$OUT/hid.err")"

# 2. The serial scale on a pty.
ft_force_player serial --serial --presses 6 --lag-ms 120
ft_force_run serial 100 forcetrace calibrate "$FT_DEV" -o "$OUT/serial.h5" --protocol force --trials 3 --scale "$FT_SCALE:9600"
[ "$(cat "$OUT/serial.rc")" = 0 ] || ft_fail "calibrate with the serial scale exited $(cat "$OUT/serial.rc"): $(tail -n 5 "$OUT/serial.err")"
forcetrace suggest "$OUT/serial.h5" --format json >"$OUT/serial.json" 2>>"$OUT/serial.err" || ft_fail "suggest failed: $(cat "$OUT/serial.err")"

# 3. The HID scale unplugged 3 s in: the recording goes on, exit status 1, the force table says why.
ft_force_player unplug --hid --presses 1 --unplug-scale-ms 3000
ft_force_run unplug 60 forcetrace record "$FT_DEV" -o "$OUT/unplug.h5" --duration 6 --scale "$FT_SCALE"
[ "$(cat "$OUT/unplug.rc")" = 1 ] || ft_fail "record with an unplugged scale exited $(cat "$OUT/unplug.rc"), not 1: $(tail -n 5 "$OUT/unplug.err")"

# 4. A serial scale reporting unstable while the force moves, and overloading above 300 g.
ft_force_player unstable --serial --presses 2 --unstable --overload-g 300
ft_force_run unstable 60 forcetrace record "$FT_DEV" -o "$OUT/unstable.h5" --duration 13 --scale "$FT_SCALE"
[ "$(cat "$OUT/unstable.rc")" = 0 ] || ft_fail "record with an unstable scale exited $(cat "$OUT/unstable.rc"): $(tail -n 5 "$OUT/unstable.err")"
exit 0
