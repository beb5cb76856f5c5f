#!/bin/sh
# Scenario ft-sigkill: forcetrace record --flush-ms 50 is SIGKILLed in the
# middle of the gesture (after frame 50 was sent, plus 0.3 s).  The file
# must stay readable and hold the frames flushed before the kill.
# Outputs: rec.h5, expected.jsonl, killed_after_frames (frames sent before
# the kill).  SKIPs (77) until forcetrace with `record` is shipped.
# Note: /out is tmpfs: fsync succeeds but is a no-op, and the data a killed
# process wrote is in the page cache anyway; this tests HDF5 consistency
# after a process crash, not durability after a power loss.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
ft_start_player script --hold-ms 500 --expect "$OUT/expected.jsonl"
ft_record_start "$OUT/rec.h5" --flush-ms 50 --quiet
ft_go_player
ft_wait_grep "$OUT/expected.jsonl" '"frame":50,' 30 || ft_fail "player never reached frame 50"
sleep 0.3
kill -KILL "$FT_REC_PID"
grep -c '"type":"frame"' "$OUT/expected.jsonl" >"$OUT/killed_after_frames"
ft_wait_pid "$FT_REC_PID" 10
echo "$FT_RC" >"$OUT/recorder.rc"
ft_log "recorder killed after $(cat "$OUT/killed_after_frames") frames (rc $FT_RC)"
ft_wait_pid "$FT_PLAYER_PID" 60
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
