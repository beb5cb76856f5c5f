#!/bin/sh
# Scenario ft-flood: the recorder is SIGSTOPped while `player flood 3000`
# overflows the kernel's per-client buffer (SYN_DROPPED), then SIGCONTed
# while the player holds the final DOWN state (3000,1500,p=200) for 2 s;
# then the player lifts.  The recorder must note the drop and resync the
# held state (EVIOCGMTSLOTS etc.).  Outputs: rec.h5, expected.jsonl (its
# "hold" record is the state to resync).  SKIPs (77) until forcetrace with
# `record` is shipped.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
ft_start_player flood 3000 --hold-ms 2000 --expect "$OUT/expected.jsonl"
ft_record_start "$OUT/rec.h5" --quiet
kill -STOP "$FT_REC_PID"
ft_go_player
ft_wait_grep "$OUT/expected.jsonl" '"type":"hold"' 30 || ft_fail "player never reached its hold state"
kill -CONT "$FT_REC_PID"
ft_wait_pid "$FT_PLAYER_PID" 30
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
sleep 0.5
ft_record_stop
# The player destroys the device 100 ms after the lift, so the recorder may
# already have ended by itself with 3 (device removed); both close cleanly.
[ "$FT_RC" = 0 ] || [ "$FT_RC" = 3 ] || ft_fail "forcetrace record exited with $FT_RC: $(tail -n 5 "$OUT/recorder.err")"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
