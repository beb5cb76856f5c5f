#!/bin/sh
# Scenario ft-levels: the player performs forcetrace levels'
# protocol (player levels SEED: counts 2-4, 10 trials a level, in the order
# the seed gives, a person who holds 3 levels; a two-finger and a too-short
# trial to ask again) while `forcetrace levels DEVICE --levels 2-4 --trials 10
# --seed SEED` runs on the device; then `levels --show --json` and
# `report --html`. Checked on the host by check_ft_levels.py.
. "$FT_LIB"
ft_require player
ft_need_forcetrace
forcetrace levels --help >"$OUT/levels-help.txt" 2>&1 || ft_skip "no levels subcommand in this forcetrace"

SEED=20261202
ft_start_player levels "$SEED" --hold-ms 30000 --expect "$OUT/expected.jsonl"
forcetrace levels "$FT_DEV" -o "$OUT/levels.h5" --levels 2-4 --trials 10 --seed "$SEED" \
	>"$OUT/levels.out" 2>"$OUT/levels.err" &
_pid=$!
ft_wait_opened "$_pid" "$FT_DEV" 30 || ft_fail "levels did not open $FT_DEV: $(cat "$OUT/levels.err")"
ft_wait_file "$OUT/levels.h5" 30 || ft_fail "levels did not create its file: $(cat "$OUT/levels.err")"
ft_go_player
# The session ends by itself once it has every trial.
ft_wait_pid "$_pid" 120
echo "$FT_RC" >"$OUT/levels.rc"
[ "$FT_RC" = 0 ] || ft_fail "forcetrace levels exited with $FT_RC: $(tail -n 5 "$OUT/levels.err")"
forcetrace levels --show "$OUT/levels.h5" --json >"$OUT/show.json" 2>"$OUT/show.err" ||
	ft_fail "levels --show failed: $(cat "$OUT/show.err")"
forcetrace report "$OUT/levels.h5" --html "$OUT/report.html" >/dev/null 2>"$OUT/report.err" ||
	ft_fail "report --html failed: $(cat "$OUT/report.err")"
kill "$FT_PLAYER_PID" 2>/dev/null
ft_wait_pid "$FT_PLAYER_PID" 30
exit 0
