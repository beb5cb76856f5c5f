#!/bin/sh
# Scenario ft-unplug: the device is destroyed 500 ms into a contact; the
# recorder must notice (ENODEV) and exit on its own within 10 s with a
# readable file.  The kernel itself emits BTN_TOOL_FINGER/BTN_TOUCH 0 +
# SYN_REPORT(value 1) on unregister, but no ABS_MT_TRACKING_ID -1.
# Outputs: rec.h5, expected.jsonl, recorder.rc.  SKIPs (77) until forcetrace
# with `record` is shipped.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
ft_start_player unplug-after-ms 500 --expect "$OUT/expected.jsonl"
ft_record_start "$OUT/rec.h5" --quiet
ft_go_player
ft_wait_pid "$FT_PLAYER_PID" 30
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
ft_wait_pid "$FT_REC_PID" 10 || ft_fail "forcetrace record still running 10 s after the unplug"
echo "$FT_RC" >"$OUT/recorder.rc"
ft_log "recorder exited by itself with $FT_RC"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
