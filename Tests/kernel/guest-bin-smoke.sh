#!/bin/sh
# Scenario bin-smoke: every binary shipped with mkinitramfs.sh (listed as
# "bin NAME=PATH" in /etc/ft-build-info) must start in the guest: its
# dynamic libraries and loader must resolve.  Each is run with --help; the
# exit code itself is not judged (player/evemu-record exit non-zero on
# --help), only loader failures ("error while loading shared libraries",
# exit 126/127).  Outputs: $OUT/NAME.out, $OUT/NAME.rc.
. "$FT_LIB"
bad=0
n=0
for entry in $(sed -n 's/^bin //p' /etc/ft-build-info); do
	name=${entry%%=*}
	n=$((n + 1))
	timeout -k 2 30 "$name" --help >"$OUT/$name.out" 2>&1
	rc=$?
	echo "$rc" >"$OUT/$name.rc"
	if [ "$rc" = 126 ] || [ "$rc" = 127 ] || grep -q 'error while loading shared libraries' "$OUT/$name.out"; then
		ft_log "FAIL $name (rc=$rc): $(head -n 3 "$OUT/$name.out")"
		bad=$((bad + 1))
	else
		ft_log "ok $name starts (--help rc=$rc)"
	fi
done
[ "$n" -gt 0 ] || ft_fail "no binaries shipped"
[ "$bad" = 0 ] || ft_fail "$bad of $n binaries do not start"
exit 0
