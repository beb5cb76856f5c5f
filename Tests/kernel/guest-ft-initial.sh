#!/bin/sh
# Scenario ft-initial: the recorder starts while a finger is already down
# (player flood 30, then holding slot 0 tid 200 at 3000/1500 p=200 for 3 s),
# then the player lifts.  The recording must hold that touch as a contact
# from t = 0 (the recorder's initial-state frame), then the lift.
# Outputs: rec.h5, expected.jsonl (its "hold" record is the state at start).
. "$FT_LIB"
ft_require player
ft_need_forcetrace
ft_start_player flood 30 --hold-ms 3000 --expect "$OUT/expected.jsonl"
ft_go_player
ft_wait_grep "$OUT/expected.jsonl" '"type":"hold"' 30 || ft_fail "player never reached its hold state"
ft_record_start "$OUT/rec.h5" --quiet
ft_wait_pid "$FT_PLAYER_PID" 30
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
sleep 0.3
ft_record_stop
# The device goes 100 ms after the lift: 0 (SIGINT first) or 3 (device removed).
[ "$FT_RC" = 0 ] || [ "$FT_RC" = 3 ] || ft_fail "forcetrace record exited with $FT_RC: $(tail -n 5 "$OUT/recorder.err")"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
