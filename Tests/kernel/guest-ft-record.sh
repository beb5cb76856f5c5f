#!/bin/sh
# Scenario ft-record: forcetrace records the scripted gesture.
# DEVICE is given as the unique name substring (not the path) to exercise
# name lookup.  Outputs: rec.h5, expected.jsonl, recorder.*, player.*.
# SKIPs (77) until forcetrace with `record` is shipped.  The HDF5 content is
# compared with expected.jsonl by a host checker (check_ft_record.py, to be
# written with the recorder; see README).
. "$FT_LIB"
ft_require player
ft_need_forcetrace
ft_start_player script --hold-ms 3000 --expect "$OUT/expected.jsonl"
# The device list as the guest's kernel describes it (checked on the host).
forcetrace devices --json >"$OUT/devices.json" 2>"$OUT/devices.err"
echo $? >"$OUT/devices.rc"
forcetrace devices >"$OUT/devices.txt" 2>&1
FT_REC_DEVICE=forcetrace-test ft_record_start "$OUT/rec.h5" --quiet
ft_go_player
# Stop with SIGINT while the player holds the device: removing it would
# end the recording with exit status 3 (ft-unplug tests that).
ft_wait_grep "$OUT/expected.jsonl" '"type":"end"' 60 || ft_fail "player never finished its script"
sleep 0.5
ft_record_stop
[ "$FT_RC" = 0 ] || ft_fail "forcetrace record exited with $FT_RC: $(tail -n 5 "$OUT/recorder.err")"
ft_wait_pid "$FT_PLAYER_PID" 60
[ "$FT_RC" = 0 ] || ft_fail "player exited with $FT_RC"
ft_assert_hdf5 "$OUT/rec.h5"
exit 0
