#!/bin/sh
# Scenario ft-pressurepad: a pressure pad (INPUT_PROP_PRESSUREPAD, pressure
# at 2 units per gram) made by the player through uinput, doing calibrate's
# touchpad protocol while `forcetrace calibrate` records it. Then report
# (text, JSON, HTML), suggest (text, JSON) and whatif (text, JSON) on the
# file. check_ft_pressurepad.py holds every contact's grams against the
# script's peaks.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
FT_TOUCH_NAME=forcetrace-test-pressurepad
ft_start_player calibrate touchpad 3 --hold-ms 30000 --expect "$OUT/expected.jsonl" \
	--touchpad --pressurepad 2 --name forcetrace-test-pressurepad
ft_calibrate_session touchpad 3
kill "$FT_PLAYER_PID" 2>/dev/null
ft_wait_pid "$FT_PLAYER_PID" 30
for _run in "report.txt:report --contacts all" "report.json:report --json --contacts all" \
	"suggest.txt:suggest" "suggest.json:suggest --format json" \
	"whatif.txt:whatif --libinput 1.22" "whatif.json:whatif --libinput 1.22 --json"; do
	_file=${_run%%:*}
	# shellcheck disable=SC2086 # the command's words
	forcetrace ${_run#*:} "$OUT/cal.h5" >"$OUT/$_file" 2>"$OUT/$_file.err" ||
		ft_fail "forcetrace ${_run#*:} failed: $(cat "$OUT/$_file.err")"
done
forcetrace report "$OUT/cal.h5" --html "$OUT/report.html" --contacts all >/dev/null 2>"$OUT/report.html.err" ||
	ft_fail "report --html failed: $(cat "$OUT/report.html.err")"
exit 0
