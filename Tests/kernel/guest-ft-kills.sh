#!/bin/sh
# Scenario ft-kills: forcetrace record --flush-ms 50 SIGKILLed at 8 moments
# spread over the scripted gesture (0.11 s to 0.88 s after it starts), and
# `forcetrace report --json` run on each file the kill left, here in the
# guest. The second finger lifts while the first is still down, so most
# files lack a contacts row for a contact that had ended: report must
# analyse the events kept (check_ft_kills.py compares its numbers with the
# same events exported and imported afresh on the host).
# Outputs per step kill-K: rec.h5, expected.jsonl, recorder.rc, report.json,
# report.err, report.rc.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
for k in 1 2 3 4 5 6 7 8; do
	ft_step "kill-$k"
	ft_start_player script --hold-ms 200 --expect "$OUT/expected.jsonl"
	ft_record_start "$OUT/rec.h5" --flush-ms 50 --quiet
	ft_go_player
	sleep "0.$((k * 11))"
	kill -KILL "$FT_REC_PID"
	ft_wait_pid "$FT_REC_PID" 10
	echo "$FT_RC" >"$OUT/recorder.rc"
	ft_wait_pid "$FT_PLAYER_PID" 60
	forcetrace report "$OUT/rec.h5" --json >"$OUT/report.json" 2>"$OUT/report.err"
	echo $? >"$OUT/report.rc"
done
exit 0
