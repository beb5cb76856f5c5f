#!/bin/sh
# Scenario player-selftest: exercises the player's flood and unplug modes
# against evemu-record, so the later forcetrace scenarios (SYN_DROPPED
# recovery, unplug) can rely on them.  Checked by check_player_selftest.py.
#   flood/   evemu-record is SIGSTOPped while `player flood` overflows the
#            kernel's per-client buffer, then SIGCONTed while the final
#            (finger down) state is held -> recording must contain SYN_DROPPED
#   unplug/  `player unplug-after-ms` destroys the device mid-contact;
#            evemu-record must see the contact but no lift.
#   grab/    `evreader count --grab` grabs the device; a second reader
#            (evreader count without --grab) must see no events while the
#            grabber sees all.  (evemu-record cannot be that second reader:
#            it refuses to record a grabbed device.)
. "$FT_LIB"
ft_require player evemu-record evreader

ft_step flood
ft_start_player flood 3000 --hold-ms 1500 --expect "$OUT/expected.jsonl"
evemu-record "$FT_DEV" "$OUT/recording.evemu" 2>"$OUT/evemu.err" &
rec=$!
ft_wait_opened "$rec" "$FT_DEV" 15 || ft_fail "evemu-record did not open $FT_DEV"
ft_wait_reading "$rec" 15 || ft_fail "evemu-record never started reading $FT_DEV"
kill -STOP "$rec"
ft_log "evemu-record $rec stopped; flooding"
ft_go_player
ft_wait_grep "$OUT/expected.jsonl" '"type":"hold"' 30 || ft_fail "player never reached its hold state"
kill -CONT "$rec"
ft_log "flood done, evemu-record continued during hold"
ft_wait_pid "$FT_PLAYER_PID" 30
echo "$FT_RC" >"$OUT/player.rc"
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC: $(cat "$OUT/player.err")"
sleep 0.3
kill -INT "$rec" 2>/dev/null
ft_wait_pid "$rec" 10
echo "$FT_RC" >"$OUT/evemu.rc"
grep -q '^E: .* 0000 0003 ' "$OUT/recording.evemu" || ft_fail "no SYN_DROPPED recorded"

ft_step unplug
ft_start_player unplug-after-ms 400 --expect "$OUT/expected.jsonl"
evemu-record "$FT_DEV" "$OUT/recording.evemu" 2>"$OUT/evemu.err" &
rec=$!
ft_wait_opened "$rec" "$FT_DEV" 15 || ft_fail "evemu-record did not open $FT_DEV"
ft_wait_reading "$rec" 15 || ft_fail "evemu-record never started reading $FT_DEV"
ft_go_player
ft_wait_pid "$FT_PLAYER_PID" 30
echo "$FT_RC" >"$OUT/player.rc"
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC: $(cat "$OUT/player.err")"
# evemu-record must notice the unplug (ENODEV) on its own
ft_wait_pid "$rec" 10
echo "$FT_RC" >"$OUT/evemu.rc"
[ "$FT_RC" != timeout ] || ft_fail "evemu-record did not exit after the unplug"
[ -z "$(ft_find_input "$FT_TOUCH_NAME")" ] || ft_fail "device still present after unplug"

ft_step grab
ft_start_player script --hold-ms 300 --expect "$OUT/expected.jsonl"
evreader count "$FT_DEV" --grab --duration-ms 30000 >"$OUT/grabber.txt" 2>&1 &
grabber=$!
# Probing by grabbing races the grabber's own EVIOCGRAB (EBUSY for it):
# wait for its announcement first, then confirm the grab from outside.
ft_wait_grep "$OUT/grabber.txt" '^GRAB-HELD' 15 || ft_fail "evreader --grab did not grab $FT_DEV: $(cat "$OUT/grabber.txt")"
ft_wait_grabbed "$FT_DEV" 10 || ft_fail "evreader --grab says it grabbed $FT_DEV but a probe can grab it too"
evreader count "$FT_DEV" --duration-ms 30000 >"$OUT/second.txt" 2>&1 &
rec=$!
ft_wait_opened "$rec" "$FT_DEV" 15 || ft_fail "second evreader did not open $FT_DEV"
ft_go_player
ft_wait_pid "$FT_PLAYER_PID" 30
echo "$FT_RC" >"$OUT/player.rc"
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
ft_wait_pid "$grabber" 10
echo "$FT_RC" >"$OUT/grabber.rc"
ft_wait_pid "$rec" 10
echo "$FT_RC" >"$OUT/second.rc"
ft_log "grabber: $(cat "$OUT/grabber.txt"); second reader: $(cat "$OUT/second.txt")"
grep -q 'events=0 ' "$OUT/grabber.txt" && ft_fail "grabber saw no events"
grep -q '^events=0 syn_reports=0 ' "$OUT/second.txt" || ft_fail "second reader saw events despite the grab"
exit 0
