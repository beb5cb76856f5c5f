#!/bin/sh
# Scenario evemu-smoke: proves the harness end to end with Debian's
# evemu-record as the recorder (no forcetrace needed).
#   1. player script creates forcetrace-test-touch and waits for SIGUSR1
#   2. evemu-record opens the device (found by name, not by number)
#   3. once evemu-record has the node open and waits for events, the player plays
#   4. the player destroys the device; evemu-record stops
# Outputs in $OUT: expected.jsonl (from the player), recording.evemu,
# player.out/.err/.rc, evemu.err/.rc.  Checked on the host by
# check_evemu_smoke.py.
. "$FT_LIB"
ft_require player evemu-record

ft_start_player script --hold-ms 300 --expect "$OUT/expected.jsonl"

evemu-record "$FT_DEV" "$OUT/recording.evemu" 2>"$OUT/evemu.err" &
rec=$!
ft_wait_opened "$rec" "$FT_DEV" 15 || ft_fail "evemu-record did not open $FT_DEV: $(cat "$OUT/evemu.err")"
ft_wait_reading "$rec" 15 || ft_fail "evemu-record never started reading $FT_DEV (wchan: $(cat /proc/$rec/wchan 2>/dev/null))"
ft_log "evemu-record pid=$rec has $FT_DEV open; starting gesture"
ft_go_player

ft_wait_pid "$FT_PLAYER_PID" 60
prc=$FT_RC
echo "$prc" >"$OUT/player.rc"
[ "$prc" = 0 ] || ft_fail "player exited with $prc: $(cat "$OUT/player.err")"
ft_log "player done: $(tail -n1 "$OUT/player.err")"

# The device is gone now; evemu-record normally notices (ENODEV) and exits.
# If it does not, stop it with SIGINT (its usual way to end a recording).
sleep 0.3
kill -INT "$rec" 2>/dev/null
ft_wait_pid "$rec" 10
rrc=$FT_RC
echo "$rrc" >"$OUT/evemu.rc"
ft_log "evemu-record exit: $rrc"

[ -s "$OUT/recording.evemu" ] || ft_fail "empty recording"
n=$(grep -c '^E:' "$OUT/recording.evemu")
ft_log "recorded $n events"
[ "$n" -gt 0 ] || ft_fail "no events recorded"
exit 0
