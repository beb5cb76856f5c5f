#!/bin/sh
# Scenario ft-pen: the player performs forcetrace calibrate's pen
# protocol on a uinput pen (hover, light, normal and firm strokes, full
# press; 3 rounds, with a hover that touches and a stroke too short to
# discard), aiming through the scripted curve 40,10,80,60 over the raw range
# 300..3700, while `forcetrace calibrate --protocol pen` runs on the device.
# Then `forcetrace suggest` in every format. Checked on the host by
# check_ft_pen.py, which also runs gsettings and libinput on the outputs.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
forcetrace calibrate --help 2>&1 | grep -q -- "--targets" || ft_fail "this forcetrace's calibrate has no pen curve (--targets)"

FT_TOUCH_NAME=forcetrace-test-pen
ft_start_player calibrate pen 3 --pen --name "$FT_TOUCH_NAME" --id 3:1d6b:7f04 \
	--pen-curve 40,10,80,60 --pen-range 300..3700 --hold-ms 30000 --expect "$OUT/expected.jsonl"
ft_calibrate_session pen 3
forcetrace suggest "$OUT/cal.h5" --format json >"$OUT/suggest.json" 2>"$OUT/suggest.err" ||
	ft_fail "suggest failed: $(cat "$OUT/suggest.err")"
mkdir -p "$OUT/quirks"
forcetrace suggest "$OUT/cal.h5" --format quirks -o "$OUT/quirks/forcetrace.quirks" 2>>"$OUT/suggest.err" ||
	ft_fail "suggest --format quirks failed: $(cat "$OUT/suggest.err")"
for _format in xsetwacom gsettings kwin libinput-range; do
	forcetrace suggest "$OUT/cal.h5" --format "$_format" -o "$OUT/$_format.out" 2>>"$OUT/suggest.err" ||
		ft_fail "suggest --format $_format failed: $(cat "$OUT/suggest.err")"
done
kill "$FT_PLAYER_PID" 2>/dev/null
ft_wait_pid "$FT_PLAYER_PID" 30
exit 0
