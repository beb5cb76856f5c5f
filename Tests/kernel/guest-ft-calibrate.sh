#!/bin/sh
# Scenario ft-calibrate: the player performs forcetrace
# calibrate's app protocol on a touchscreen, then its touchpad protocol on a
# touchpad (thumbs and palms pressing harder), 3 rounds each with a
# two-finger and a too-short trial to discard, while `forcetrace calibrate`
# runs on the device. Then `forcetrace suggest` as JSON and as a libinput
# quirk. Checked on the host by check_ft_calibrate.py.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
forcetrace calibrate --help >"$OUT/calibrate-help.txt" 2>&1 || ft_skip "no calibrate subcommand in this forcetrace"

# calibrate_with STEP PROTOCOL [PLAYER ARGS...]
calibrate_with() {
	ft_step "$1"
	_protocol=$2
	shift 2
	ft_start_player calibrate "$_protocol" 3 --hold-ms 30000 --expect "$OUT/expected.jsonl" "$@"
	ft_calibrate_session "$_protocol" 3
	forcetrace suggest "$OUT/cal.h5" --format json >"$OUT/suggest.json" 2>"$OUT/suggest.err" ||
		ft_fail "suggest failed: $(cat "$OUT/suggest.err")"
	if [ "$_protocol" = touchpad ]; then
		mkdir -p "$OUT/quirks"
		forcetrace suggest "$OUT/cal.h5" --format quirks -o "$OUT/quirks/forcetrace.quirks" 2>>"$OUT/suggest.err" ||
			ft_fail "suggest --format quirks failed: $(cat "$OUT/suggest.err")"
	fi
	kill "$FT_PLAYER_PID" 2>/dev/null
	ft_wait_pid "$FT_PLAYER_PID" 30
}

FT_TOUCH_NAME=forcetrace-test-touch
calibrate_with app app
FT_TOUCH_NAME=forcetrace-test-touchpad
calibrate_with touchpad touchpad --touchpad --name forcetrace-test-touchpad
exit 0
