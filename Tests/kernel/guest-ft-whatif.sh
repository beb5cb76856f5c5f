#!/bin/sh
# Scenario ft-whatif: libinput itself, each version shipped, is the oracle
# for 'forcetrace whatif --libinput VERSION'. Each recording is played through
# uinput (evemu-device, evemu-play) with udevd running, so the device is typed
# a touchpad or tablet, while one `libinput debug-events --verbose` per
# version and quirk set reads it, each with LIBINPUT_QUIRKS_DIR at a folder of
# that version's shipped quirks plus that set's candidate. Their logs come back; check_ft_whatif.py
# runs `forcetrace whatif` on the host over the same played file and quirks
# and compares the decisions contact by contact.
# Times are compressed 4x (ft_evemu_faster).
. "$FT_LIB"
ft_require evemu-device evemu-play libinput-debug-events udevadm systemd-udevd awk
ft_need_forcetrace
SHARE=/usr/share/ft

mkdir -p /run/udev
systemd-udevd --daemon >"$OUT/udevd.log" 2>&1 || ft_fail "systemd-udevd --daemon failed: $(cat "$OUT/udevd.log")"

# The libinput versions: Debian's 1.22.1, then each release test-kernel.sh
# shipped to /opt/libinput/X.Y.Z (its own tools, library and quirks).
VERSIONS=1.22.1
for _d in /opt/libinput/*; do
	[ -x "$_d/bin/libinput-debug-events" ] && VERSIONS="$VERSIONS ${_d#/opt/libinput/}"
done
debug_events() { [ "$1" = 1.22.1 ] && command -v libinput-debug-events || echo "/opt/libinput/$1/bin/libinput-debug-events"; }
shipped_quirks() { [ "$1" = 1.22.1 ] && echo /usr/share/libinput || echo "/opt/libinput/$1/share/libinput"; }
lib_path() { [ "$1" = 1.22.1 ] || echo "/opt/libinput/$1/lib"; }

# play STEP FILE QUIRKS...: FILE through uinput, read at once by one libinput
# per version and quirk set (set 0: that version's shipped quirks alone; set
# N: the shipped quirks plus the Nth candidate as 99-candidate.quirks).
play() {
	ft_step "$1"
	_step=$1 _file=$2; shift 2
	ft_evemu_faster "$_file" "$OUT/played.evemu"
	echo "$VERSIONS" | tr ' ' '\n' >"$OUT/versions"
	n=1
	for _q in "$@"; do cp "$_q" "$OUT/candidate-$n.quirks"; n=$((n + 1)); done
	echo "$n" >"$OUT/sets"
	evemu-device "$OUT/played.evemu" >"$OUT/device.out" 2>&1 &
	_devpid=$!
	ft_wait_grep "$OUT/device.out" "/dev/input/event" 15 || ft_fail "$1: evemu-device made no device: $(cat "$OUT/device.out")"
	_dev=$(grep -o '/dev/input/event[0-9]*' "$OUT/device.out" | head -n 1)
	udevadm settle --timeout=10 || ft_fail "$1: udevadm settle timed out"
	udevadm info --query=property --name="$_dev" >"$OUT/udev.txt" 2>&1
	_pids=""
	for _v in $VERSIONS; do
		i=0
		while [ "$i" -lt "$n" ]; do
			_dir=/tmp/whatif-$(basename "$OUT")-$_v-$i
			# An empty private runtime dir: 1.30+ also reads $XDG_RUNTIME_DIR/libinput/*.quirks.
			_xdg=/tmp/xdg-$(basename "$OUT")-$_v-$i
			mkdir -p "$_dir" "$_xdg"
			chmod 700 "$_xdg"
			cp "$(shipped_quirks "$_v")"/*.quirks "$_dir/"
			[ "$i" = 0 ] || cp "$OUT/candidate-$i.quirks" "$_dir/99-candidate.quirks"
			echo "$_dir" >"$OUT/quirks-dir-$_v-$i"
			LD_LIBRARY_PATH=$(lib_path "$_v") LIBINPUT_QUIRKS_DIR=$_dir XDG_RUNTIME_DIR=$_xdg NO_COLOR=1 \
				"$(debug_events "$_v")" --verbose --device "$_dev" >"$OUT/libinput-$_v-$i.log" 2>&1 &
			_pids="$_pids $!"
			i=$((i + 1))
		done
	done
	for _pid in $_pids; do ft_wait_reading "$_pid" 30 || ft_fail "$_step: libinput debug-events $_pid is not reading: $(cat "$OUT"/libinput-*.log | tail -n 5)"; done
	play_by_proximity "$_step" "$_dev"
	ft_stop_readers "$_step" $_pids
	kill "$_devpid" 2>/dev/null; ft_wait_pid "$_devpid" 10
	ft_log "$_step: played to libinput $VERSIONS"
}

# play_by_proximity STEP DEVICE: plays $OUT/played.evemu so that every
# reader has handled each pen tool's first proximity before the next one
# goes out. libinput 1.27 to 1.29's debug-events configures a tool's pressure
# range when it handles the tool's proximity event, and from then on the
# tool's offset heuristics are off (libinput's src/evdev-tablet.c,
# has_configured_range, which stays set). A reader that fell behind would
# handle several proximities in one dispatch, and the third of them could
# decide an offset before the first configured the tool. So the file is cut
# after each proximity-out (BTN_TOOL_PEN to _AIRBRUSH, 0); a tool's first
# piece is played alone and waited for (every reader has logged as many
# proximity-outs), and the pieces between are played together, as recorded.
# Waiting after every proximity took a loaded TCG guest past its time limit.
play_by_proximity() {
	rm -f "$OUT"/piece-*.events "$OUT/pending.events"
	awk -v dir="$OUT" 'BEGIN { n = 1 } /^E: / {
		f = sprintf("%s/piece-%04d.events", dir, n); print >f
		if ($3 == "0001" && $4 ~ /^014[0-4]$/ && $5 + 0 == 0) out = 1
		if ($3 == "0000" && $4 == "0000" && out) { close(f); n++; out = 0 } }' "$OUT/played.evemu"
	_k=0 _seen=" "
	for _piece in "$OUT"/piece-*.events; do
		_tool=$(awk '$3 == "0001" && $4 ~ /^014[0-4]$/ && $5 + 0 == 0 { print $4; exit }' "$_piece")
		[ -n "$_tool" ] && _k=$((_k + 1))
		case "$_seen" in
		*" $_tool "*) cat "$_piece" >>"$OUT/pending.events"; continue ;;
		esac
		play_piece "$1" "$2" "$OUT/pending.events"
		play_piece "$1" "$2" "$_piece"
		_seen="$_seen$_tool "
		for _log in "$OUT"/libinput-*.log; do
			_n=0
			while [ "$(grep -c 'TABLET_TOOL_PROXIMITY.*proximity-out' "$_log")" -lt "$_k" ]; do
				[ "$_n" -lt 600 ] || ft_fail "$1: $(basename "$_log") logged fewer than $_k proximity-outs in 30 s: $(tail -n 3 "$_log")"
				sleep 0.05
				_n=$((_n + 1))
			done
		done
	done
	play_piece "$1" "$2" "$OUT/pending.events"
}

# play_piece STEP DEVICE FILE: evemu-play of FILE's events, then FILE is gone.
play_piece() {
	[ -s "$3" ] || return 0
	evemu-play "$2" <"$3" >>"$OUT/play.out" 2>&1 || ft_fail "$1: evemu-play failed on $(basename "$3"): $(cat "$OUT/play.out")"
	rm -f "$3"
}

# The calibration sample and simulated sessions, each against the section suggest writes for it.
calibration() { # calibration STEP EVEMU PROTOCOL TRIALS [--holds]
	mkdir -p "/tmp/cal-$1"
	forcetrace calibrate --replay "$2" --protocol "$3" --trials "$4" $5 -o "/tmp/cal-$1/cal.h5" --fast >"/tmp/cal-$1/calibrate.out" 2>&1 ||
		ft_fail "$1: calibrate failed: $(tail -n 3 "/tmp/cal-$1/calibrate.out")"
	forcetrace suggest "/tmp/cal-$1/cal.h5" --format quirks -o "/tmp/cal-$1/suggested.quirks" 2>"/tmp/cal-$1/suggest.err" ||
		ft_fail "$1: suggest failed: $(cat "/tmp/cal-$1/suggest.err")"
	play "$1" "$2" "/tmp/cal-$1/suggested.quirks"
}

# Five scenarios share this script, each within the per-scenario timeout
# under TCG: ft-whatif (the boundary fixtures and the calibration sample),
# ft-whatif-sim (simulated sessions), ft-whatif-shared (../shared) and
# ft-whatif-versions-touchpad/-pen (where libinput's versions differ).
case "${WHATIF_PART:-fixtures}" in
fixtures)
	play touchpad-boundaries "$SHARE/whatif-touchpad-boundaries.evemu" "$SHARE/whatif-thumb.quirks"
	play pen-boundaries "$SHARE/whatif-pen-boundaries.evemu"
	calibration calibration-sample "$SHARE/touchpad.evemu" touchpad 10
	;;
sim)
	# With steady holds: their noise makes libinput's default gap chatter, hundreds of ends and begins.
	forcetrace simulate --protocol touchpad --seed 2 --trials 3 --holds -o /tmp/sim-touchpad.evemu >/dev/null 2>&1 || ft_fail "simulate touchpad failed"
	calibration simulated-touchpad /tmp/sim-touchpad.evemu touchpad 3 --holds
	# A 0..127 pad: libinput's defaults miss light touches and every palm (docs/ANALYSIS.md).
	forcetrace simulate --protocol touchpad --device touchpad-127 --seed 4 --trials 4 -o /tmp/sim-127.evemu >/dev/null 2>&1 || ft_fail "simulate touchpad-127 failed"
	calibration simulated-touchpad-127 /tmp/sim-127.evemu touchpad 4
	forcetrace simulate --protocol pen --seed 3 --trials 5 -o /tmp/sim-pen.evemu >/dev/null 2>&1 || ft_fail "simulate pen failed"
	calibration simulated-pen /tmp/sim-pen.evemu pen 5
	;;
shared)
	[ -d "$SHARE/shared" ] || ft_skip "no ../shared/recordings beside the project: the genuine recordings are not played"
	play shared-cypress "$SHARE/shared/CyPS2 Cypress Trackpad.three_finger_press.events"
	cat "$SHARE/shared/SynPS2 Synaptics TouchPad.desc" "$SHARE/shared/SynPS2 Synaptics TouchPad.leftmove.events" >/tmp/synaptics.evemu
	play shared-synaptics /tmp/synaptics.evemu
	play shared-bcm5974 "$SHARE/shared/bcm5974.three-finger-click.events"
	play shared-dell-pen "$SHARE/shared/dell_canvas_pen.evemu"
	;;
versions-touchpad|versions-pen)
	# Fixtures on the boundaries where libinput's releases differ (Tests/fixtures/README.md).
	[ "$VERSIONS" != 1.22.1 ] || ft_skip "no libinput release built from ../shared/libinput: only Debian's 1.22.1, no versions to compare"
	F=$SHARE/libinput-versions
	if [ "$WHATIF_PART" = versions-touchpad ]; then
		play touchpad-pressure-0-99 "$F/touchpad-pressure-0-99.evemu" "$F/palm-threshold-zero.quirks" "$F/palm-threshold-one.quirks"
		play pressure-pad-quirks "$F/touchpad-pressure-0-255.evemu" "$F/model-pressure-pad.quirks" \
			"$F/input-prop-pressurepad-hex.quirks" "$F/input-prop-pressurepad-name.quirks"
		play event-code-syntax "$F/touchpad-pressure-0-255.evemu" "$F/event-code-new-syntax.quirks" "$F/event-code-old-syntax.quirks"
		play pressurepad-property "$F/touchpad-pressurepad-property.evemu"
	else
		play pen-pressure-0-99 "$F/pen-pressure-0-99.evemu" "$F/pressure-range-30-10.quirks"
		play pen-offset-distance-20 "$F/pen-offset-distance-20.evemu"
		play pen-offset-distance-50 "$F/pen-offset-distance-50.evemu"
		play pen-offset-third-proximity "$F/pen-offset-third-proximity.evemu"
	fi
	;;
esac
exit 0
