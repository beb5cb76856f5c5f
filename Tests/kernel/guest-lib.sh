# guest-lib.sh - helpers for guest scenario scripts (sourced: . "$FT_LIB").
# Runs under busybox sh in the guest.  $OUT is the scenario's output dir.

FT_TOUCH_NAME=forcetrace-test-touch

ft_log() { echo "[$(cut -d' ' -f1 /proc/uptime)] $*"; }

# ft_fail MSG: record the failure reason and exit non-zero
ft_fail() {
	ft_log "FAIL: $*"
	echo "$*" >>"$OUT/failure"
	exit 1
}

ft_require() { # ft_require CMD...: fail unless every command exists
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || ft_fail "missing command in initramfs: $c"
	done
}

# ft_find_input NAME: print /dev/input/eventN of the (first) device whose
# name is exactly NAME.  event0 is usually qemu's AT keyboard, so never
# assume a number.
ft_find_input() {
	for n in /sys/class/input/event*/device/name; do
		[ -f "$n" ] || continue
		if [ "$(cat "$n")" = "$1" ]; then
			e=${n#/sys/class/input/}
			echo "/dev/input/${e%%/*}"
			return 0
		fi
	done
	return 1
}

# ft_wait_input NAME TIMEOUT_S: wait for the device and its /dev node
ft_wait_input() {
	_n=0
	while [ "$_n" -lt $(($2 * 20)) ]; do
		_d=$(ft_find_input "$1") && [ -c "$_d" ] && { echo "$_d"; return 0; }
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_wait_file FILE TIMEOUT_S: wait until FILE exists and is non-empty
ft_wait_file() {
	_n=0
	while [ "$_n" -lt $(($2 * 20)) ]; do
		[ -s "$1" ] && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_wait_opened PID DEVNODE TIMEOUT_S: wait until process PID has DEVNODE
# open (checked via /proc/PID/fd), i.e. a recorder is really listening.
ft_wait_opened() {
	_n=0
	while [ "$_n" -lt $(($3 * 20)) ]; do
		[ -d "/proc/$1" ] || return 1
		for _fd in /proc/"$1"/fd/*; do
			[ "$(readlink "$_fd" 2>/dev/null)" = "$2" ] && return 0
		done
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_wait_reading PID TIMEOUT_S: wait until PID sleeps in poll, select or
# an evdev read: it has finished setting up and reads events. Having the
# device open is not enough: a libevdev reader takes the device's state when
# it sets up, and a frame played before that arrives as no change of state
# for its keys (evemu-smoke lost frame 0's BTN_TOUCH and BTN_TOOL_FINGER so).
ft_wait_reading() {
	_n=0
	while [ "$_n" -lt $(($2 * 20)) ]; do
		[ -d "/proc/$1" ] || return 1
		case "$(cat "/proc/$1/wchan" 2>/dev/null)" in
		*poll* | *select* | evdev_read*) return 0 ;;
		esac
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_wait_pid PID TIMEOUT_S: wait for a background child of this shell and
# set FT_RC to its exit code, or to "timeout" after killing it (returns 1).
# Do not call it inside $(...): a subshell cannot wait for its parent's child.
ft_wait_pid() {
	_n=0
	FT_RC=""
	while [ "$_n" -lt $(($2 * 20)) ]; do
		# gone, or a zombie (which still answers kill -0)
		if ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; then
			wait "$1"
			FT_RC=$?
			return 0
		fi
		sleep 0.05
		_n=$((_n + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	FT_RC=timeout
	return 1
}

# ft_start_player ARGS...: start `player ARGS --wait-signal --devnode-file
# $OUT/devnode` in the background (stdout/stderr to $OUT/player.out/.err),
# wait for its device node; sets FT_PLAYER_PID and FT_DEV.
# Call ft_go_player once the reader has the device open.
ft_start_player() {
	rm -f "$OUT/devnode"
	player "$@" --wait-signal --devnode-file "$OUT/devnode" \
		>"$OUT/player.out" 2>"$OUT/player.err" &
	FT_PLAYER_PID=$!
	ft_wait_file "$OUT/devnode" 15 || ft_fail "player did not create its device: $(cat "$OUT/player.err")"
	FT_DEV=$(cat "$OUT/devnode")
	_byname=$(ft_wait_input "$FT_TOUCH_NAME" 5) || ft_fail "no input device named $FT_TOUCH_NAME"
	[ "$_byname" = "$FT_DEV" ] || ft_fail "player says $FT_DEV but sysfs name lookup says $_byname"
	ft_log "player pid=$FT_PLAYER_PID device=$FT_DEV"
}

# ft_go_player: tell the player (waiting in --wait-signal) to start playing
ft_go_player() { kill -USR1 "$FT_PLAYER_PID"; }

# ft_wait_grep FILE PATTERN TIMEOUT_S: wait until FILE contains PATTERN
ft_wait_grep() {
	_n=0
	while [ "$_n" -lt $(($3 * 20)) ]; do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_step NAME: start a named step of a multi-step scenario; its outputs go
# to $FT_SCENARIO_OUT/NAME (OUT is switched to that directory).
ft_step() {
	: "${FT_SCENARIO_OUT:=$OUT}"
	OUT=$FT_SCENARIO_OUT/$1
	mkdir -p "$OUT"
	ft_log "---- step $1"
}

# ft_wait_grabbed DEVNODE TIMEOUT_S: wait until some client holds an
# EVIOCGRAB on DEVNODE (probed with `evreader probe-grab`).  The probe grabs
# for a moment, so call it only once the grabber has made its own attempt
# (forcetrace grabs before it creates its file; evreader prints GRAB-HELD):
# probing earlier can make the grabber's EVIOCGRAB fail with EBUSY.
ft_wait_grabbed() {
	_n=0
	while [ "$_n" -lt $(($2 * 20)) ]; do
		evreader probe-grab "$1" && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}

# ft_evemu_faster IN OUT: evemu recording IN with its event times from 0 and
# divided by 4, written with 6 fraction digits (what evemu-play parses). For
# libinput's pressure rules, which have no timers; with a reader per libinput
# version and quirk set, 8x let a reader fall behind and lose events.
ft_evemu_faster() {
	awk '/^E: / { split($2, t, "."); if (!seen) { b = t[1]; f0 = ("0." t[2]) + 0; seen = 1 }
	              d = ((t[1] - b) + ("0." t[2]) - f0) / 4; sec = int(d); us = int((d - sec) * 1000000 + 0.5); if (us >= 1000000) { sec++; us -= 1000000 }
	              printf "E: %d.%06d %s %s %s\n", sec, us, $3, $4, $5; next } { print }' "$1" >"$2"
}

# ft_stop_readers STEP PID...: once the player is done, waits until every
# libinput debug-events PID is back in poll (all events read), then stops
# each with SIGINT, on which it leaves its loop and flushes its file-buffered log.
ft_stop_readers() {
	_sr_step=$1
	shift
	sleep 0.5
	for _sr_pid in "$@"; do ft_wait_reading "$_sr_pid" 30 || ft_fail "$_sr_step: libinput debug-events $_sr_pid did not finish reading"; done
	sleep 0.5
	for _sr_pid in "$@"; do kill -INT "$_sr_pid" 2>/dev/null; ft_wait_pid "$_sr_pid" 10; done
}

# ft_skip REASON: the scenario cannot run here (e.g. forcetrace not shipped);
# exits 77, which run-guest.sh and test-kernel.sh report as SKIP, not pass.
ft_skip() {
	ft_log "SKIP: $*"
	echo "$*" >"${FT_SCENARIO_OUT:-$OUT}/skipped"
	exit 77
}

# ---- forcetrace recorder helpers (for the ft-* scenarios) ----

# ft_need_forcetrace: SKIP (exit 77) unless a forcetrace binary with a
# working `record` subcommand was shipped (mkinitramfs --bin / KERNEL_BINS)
ft_need_forcetrace() {
	command -v forcetrace >/dev/null 2>&1 ||
		ft_skip "forcetrace not shipped (make test-kernel KERNEL_BINS=.build/debug/forcetrace)"
	forcetrace record --help >"$OUT/record-help.txt" 2>&1 ||
		ft_skip "'forcetrace record --help' fails: no record subcommand yet"
}

# ft_record_start FILE [ARGS...]: run `forcetrace record DEVICE -o FILE ARGS`
# in the background (DEVICE = $FT_REC_DEVICE, default $FT_DEV; output to
# $OUT/recorder.out/.err), set FT_REC_PID and wait until the recorder has
# the device node open and has created FILE (it is then reading).  With --grab, also ft_wait_grabbed before playing.
ft_record_start() {
	_f=$1
	shift
	forcetrace record "${FT_REC_DEVICE:-$FT_DEV}" -o "$_f" "$@" \
		>"$OUT/recorder.out" 2>"$OUT/recorder.err" &
	FT_REC_PID=$!
	echo "forcetrace record ${FT_REC_DEVICE:-$FT_DEV} -o $_f $*" >"$OUT/recorder.cmd"
	ft_wait_opened "$FT_REC_PID" "$FT_DEV" 30 ||
		ft_fail "forcetrace record did not open $FT_DEV: $(cat "$OUT/recorder.err")"
	# Having the node open is not yet reading it: the recorder creates its
	# file only once the device is set up (clock, state, reader thread). On
	# a loaded host the guest can take seconds in between.
	ft_wait_file "$_f" 30 ||
		ft_fail "forcetrace record opened $FT_DEV but did not create $_f: $(cat "$OUT/recorder.err")"
	ft_log "recorder pid=$FT_REC_PID has $FT_DEV open and $_f created"
}

# ft_calibrate_session PROTOCOL TRIALS: with the player started and waiting,
# run `forcetrace calibrate $FT_DEV -o $OUT/cal.h5 --protocol PROTOCOL
# --trials TRIALS` (output to $OUT/calibrate.out/.err), let the player go once
# calibrate reads, and wait for calibrate to stop by itself after its last
# trial; its status goes to $OUT/calibrate.rc, and anything but 0 fails.
ft_calibrate_session() {
	forcetrace calibrate "$FT_DEV" -o "$OUT/cal.h5" --protocol "$1" --trials "$2" \
		>"$OUT/calibrate.out" 2>"$OUT/calibrate.err" &
	_cal_pid=$!
	ft_wait_opened "$_cal_pid" "$FT_DEV" 30 || ft_fail "calibrate did not open $FT_DEV: $(cat "$OUT/calibrate.err")"
	ft_wait_file "$OUT/cal.h5" 30 || ft_fail "calibrate did not create its file: $(cat "$OUT/calibrate.err")"
	ft_go_player
	ft_wait_pid "$_cal_pid" 90
	echo "$FT_RC" >"$OUT/calibrate.rc"
	[ "$FT_RC" = 0 ] || ft_fail "forcetrace calibrate exited with $FT_RC: $(tail -n 5 "$OUT/calibrate.err")"
}

# ft_record_stop: if the recorder still runs, SIGINT it (graceful stop);
# wait up to 20 s; exit code -> FT_RC and $OUT/recorder.rc;
# $OUT/recorder.stopped_by is "self" or "sigint"
ft_record_stop() {
	if kill -0 "$FT_REC_PID" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$FT_REC_PID/status" 2>/dev/null; then
		echo sigint >"$OUT/recorder.stopped_by"
		kill -INT "$FT_REC_PID"
	else
		echo self >"$OUT/recorder.stopped_by"
	fi
	ft_wait_pid "$FT_REC_PID" 20
	echo "$FT_RC" >"$OUT/recorder.rc"
}

# ft_assert_hdf5 FILE: FILE exists and starts with the HDF5 signature
ft_assert_hdf5() {
	[ -s "$1" ] || ft_fail "$1 missing or empty"
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 894844460d0a1a0a ] ||
		ft_fail "$1 has no HDF5 signature at offset 0"
}
