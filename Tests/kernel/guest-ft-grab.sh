#!/bin/sh
# Scenario ft-grab: forcetrace record --grab holds EVIOCGRAB; a second,
# non-grabbing reader (evreader; evemu-record refuses grabbed devices) must
# see no events while the gesture plays.  Outputs: rec.h5, second.txt,
# expected.jsonl.  SKIPs (77) until forcetrace with `record` is shipped.
. "$FT_LIB"
ft_require player evreader
ft_need_forcetrace
ft_start_player script --hold-ms 3000 --expect "$OUT/expected.jsonl"
ft_record_start "$OUT/rec.h5" --grab --quiet
ft_wait_grabbed "$FT_DEV" 15 || ft_fail "forcetrace record --grab: no grab in effect on $FT_DEV"
evreader count "$FT_DEV" --duration-ms 60000 >"$OUT/second.txt" 2>&1 &
second=$!
ft_wait_opened "$second" "$FT_DEV" 15 || ft_fail "second reader did not open $FT_DEV"
ft_go_player
# Stop with SIGINT while the player still holds the device (see ft-record).
ft_wait_grep "$OUT/expected.jsonl" '"type":"end"' 60 || ft_fail "player never finished its script"
sleep 0.5
ft_record_stop
[ "$FT_RC" = 0 ] || ft_fail "forcetrace record exited with $FT_RC: $(tail -n 5 "$OUT/recorder.err")"
ft_wait_pid "$FT_PLAYER_PID" 60
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
ft_wait_pid "$second" 10
ft_log "second reader: $(cat "$OUT/second.txt")"
grep -q '^events=0 syn_reports=0 ' "$OUT/second.txt" || ft_fail "second reader saw events despite --grab: $(cat "$OUT/second.txt")"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
