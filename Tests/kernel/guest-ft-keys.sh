#!/bin/sh
# Scenario ft-keys: a device with keys and a touchpad types "pass" while a
# finger presses (player type pass --keys --touchpad). forcetrace record
# stores the keys as KEY_A by default and as typed with --show-keycodes;
# qemu's AT keyboard (keys, no pressure) is refused without --allow-keyboard.
# Checked on the host by check_ft_keys.py.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
FT_TOUCH_NAME=forcetrace-test-keypad

# record_typing STEP [RECORD ARGS...]: one recording of the typed word
record_typing() {
	ft_step "$1"
	shift
	ft_start_player type pass --keys --touchpad --name "$FT_TOUCH_NAME" --hold-ms 3000 --expect "$OUT/expected.jsonl"
	ft_record_start "$OUT/rec.h5" --quiet "$@"
	ft_go_player
	ft_wait_grep "$OUT/expected.jsonl" '"type":"end"' 60 || ft_fail "player never finished typing"
	sleep 0.5
	ft_record_stop
	[ "$FT_RC" = 0 ] || ft_fail "forcetrace record $* exited with $FT_RC: $(tail -n 5 "$OUT/recorder.err")"
	ft_wait_pid "$FT_PLAYER_PID" 60
	ft_assert_hdf5 "$OUT/rec.h5"
	# Keys as typed make the file its owner's alone (0600), whatever the umask.
	stat -c %a "$OUT/rec.h5" >"$OUT/mode"
	forcetrace info "$OUT/rec.h5" >"$OUT/info.txt" 2>"$OUT/info.err"
	forcetrace info --json "$OUT/rec.h5" >"$OUT/info.json" 2>/dev/null
	forcetrace export "$OUT/rec.h5" --format libinput -o "$OUT/rec.yaml" 2>"$OUT/export.err"
	forcetrace export "$OUT/rec.h5" --format evemu -o "$OUT/rec.evemu" 2>>"$OUT/export.err"
}

ft_step devices
ft_start_player type pass --keys --touchpad --name "$FT_TOUCH_NAME" --hold-ms 100
forcetrace devices --json >"$OUT/devices.json" 2>"$OUT/devices.err"
forcetrace devices >"$OUT/devices.txt" 2>&1
kill "$FT_PLAYER_PID" 2>/dev/null
ft_wait_pid "$FT_PLAYER_PID" 40

record_typing default
record_typing shown --show-keycodes

ft_step keyboard
KBD=$(ft_find_input "AT Translated Set 2 keyboard") || ft_fail "qemu's AT keyboard is not in /sys/class/input"
echo "$KBD" >"$OUT/devnode"
forcetrace record "$KBD" -o "$OUT/refused.h5" --duration 0.3 >"$OUT/refused.out" 2>"$OUT/refused.err"
echo $? >"$OUT/refused.rc"
forcetrace record "$KBD" -o "$OUT/allowed.h5" --duration 0.3 --allow-keyboard >"$OUT/allowed.out" 2>"$OUT/allowed.err"
echo $? >"$OUT/allowed.rc"
[ -f "$OUT/allowed.h5" ] && forcetrace info --json "$OUT/allowed.h5" >"$OUT/allowed-info.json" 2>&1
exit 0
