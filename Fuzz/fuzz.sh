#!/bin/sh
# Builds and runs the libFuzzer harness of each parser (evemu, libinput, raw,
# and the import-only browser, getevent, inkml and svc2004)
# for FUZZ_SECONDS each, one after the other. Crashing inputs are kept in
# .build/fuzz/artifacts/<parser>/ (the previous run's move to
# artifacts-previous/), and the smallest FUZZ_KEEP (default 5) are copied to
# Tests/fuzz-regressions/<parser>/, which 'make test' replays.
#
#   Fuzz/fuzz.sh [parser...]        FUZZ_SECONDS=60 by default
#   Fuzz/fuzz.sh --build-only [parser...]
#   Fuzz/fuzz.sh --typecheck [parser...]   compiles nothing, writes nothing
set -eu
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
SECONDS_EACH="${FUZZ_SECONDS:-60}"
OUT=.build/fuzz
BUILD_ONLY=0 TYPECHECK=0
if [ "${1:-}" = "--build-only" ]; then BUILD_ONLY=1; shift; fi
if [ "${1:-}" = "--typecheck" ]; then TYPECHECK=1; shift; fi
PARSERS="${*:-evemu libinput raw browser getevent inkml svc2004}"

# The codecs need no HDF5: each harness is compiled with the Formats,
# Events and Support sources, the row types (TraceFile/Rows.swift) and the
# trial classes a browser capture's labels use (CalibrationProtocol.swift)
# as one instrumented module. Nothing here may import HDF5 (HDF5's errors
# convert in TraceFile/HDF5Errors.swift, outside this list).
SOURCES="Sources/ForceTrace/Formats/*.swift Sources/ForceTrace/Events/*.swift Sources/ForceTrace/Support/*.swift Sources/ForceTrace/TraceFile/Rows.swift Sources/ForceTrace/Calibration/CalibrationProtocol.swift"
CFLAGS=""
for flag in $(pkg-config --cflags libevdev yaml-0.1); do CFLAGS="$CFLAGS -Xcc $flag"; done

if [ "$TYPECHECK" = 1 ]; then
    # Every harness in one module, so the parser sources are checked once,
    # not once per harness (14 s instead of 85). Each harness holds only its
    # entry point, under a Swift name of its own, and uses only the parser
    # sources: together they check as each does alone.
    harnesses=""
    for parser in $PARSERS; do harnesses="$harnesses Fuzz/$parser.swift"; done
    # shellcheck disable=SC2086
    swiftc -typecheck -parse-as-library -module-name Fuzz_harnesses \
        -I Sources/CEvdev -I Sources/CYAML $CFLAGS $SOURCES $harnesses
    for parser in $PARSERS; do echo "type-checked Fuzz/$parser.swift"; done
    exit 0
fi
mkdir -p "$OUT"

build() {
    parser=$1
    echo "building $OUT/$parser-fuzzer"
    rm -f "$OUT/$parser-fuzzer"
    root=$(pwd)
    files=""
    for file in $SOURCES; do files="$files $root/$file"; done
    # One whole-module job (-wmo), not one per file that each checks them
    # all again (minutes instead of tens of minutes on two cores), run in a
    # folder of its own: the driver may leave module files where it runs.
    mkdir -p "$OUT/build-$parser"
    # shellcheck disable=SC2086
    (cd "$OUT/build-$parser" && swiftc -sanitize=fuzzer,address -parse-as-library -O -wmo -g -module-name "Fuzz_$parser" \
        -I "$root/Sources/CEvdev" -I "$root/Sources/CYAML" $CFLAGS $files "$root/Fuzz/$parser.swift" \
        -o "$root/$OUT/$parser-fuzzer") 2>&1 | grep -v "Cannot export local symbol" || true
    test -x "$OUT/$parser-fuzzer"
}

# Seeds: the samples, the shared recordings when present, and their exports
# in each format, cut to fuzzer-sized pieces.
seed() {
    corpus="$OUT/corpus"
    # Import-only formats: their fixtures and regression inputs.
    for parser in browser getevent inkml svc2004; do
        [ -d "$corpus/$parser" ] && continue
        mkdir -p "$corpus/$parser"
        cp Tests/fixtures/$parser-* "$corpus/$parser/" 2>/dev/null || true
        cp Tests/fuzz-regressions/$parser/* "$corpus/$parser/" 2>/dev/null || true
    done
    [ -d "$corpus/evemu" ] && return 0
    mkdir -p "$corpus/evemu" "$corpus/libinput" "$corpus/raw" "$OUT/seed-work"
    swift build --product forcetrace >/dev/null
    for input in samples/*.evemu ../shared/recordings/*.evemu ../shared/recordings/*.events; do
        [ -f "$input" ] || continue
        name=$(basename "$input" | tr -c 'A-Za-z0-9.\n-' '_')
        head -c 6000 "$input" > "$corpus/evemu/$name"
        h5="$OUT/seed-work/$name.h5"
        .build/debug/forcetrace import "$input" -o "$h5" --force >/dev/null 2>&1 || continue
        .build/debug/forcetrace export "$h5" --format libinput -o "$OUT/seed-work/$name.yml" --force
        head -c 6000 "$OUT/seed-work/$name.yml" > "$corpus/libinput/$name.yml"
        .build/debug/forcetrace export "$h5" --format raw -o "$OUT/seed-work/$name.raw" --force
        head -c 4800 "$OUT/seed-work/$name.raw" > "$corpus/raw/$name.raw"
    done
    for parser in evemu libinput raw; do
        [ -d "Tests/fuzz-regressions/$parser" ] && cp Tests/fuzz-regressions/$parser/* "$corpus/$parser/" 2>/dev/null || true
    done
}

for parser in $PARSERS; do build "$parser"; done
[ "$BUILD_ONLY" = 1 ] && exit 0
seed
status=0
for parser in $PARSERS; do
    artifacts="$OUT/artifacts/$parser"
    rm -rf "$OUT/artifacts-previous/$parser"
    mkdir -p "$OUT/artifacts-previous" "Tests/fuzz-regressions/$parser"
    [ -d "$artifacts" ] && mv "$artifacts" "$OUT/artifacts-previous/$parser"
    mkdir -p "$artifacts"
    echo "fuzzing $parser for ${SECONDS_EACH}s"
    # libFuzzer reports crashes itself; Swift's backtracer would only slow it.
    SWIFT_BACKTRACE=enable=no "$OUT/$parser-fuzzer" "$OUT/corpus/$parser" \
        -max_total_time="$SECONDS_EACH" -max_len=16384 -rss_limit_mb=2048 -timeout=10 \
        -fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 \
        -artifact_prefix="$artifacts/" -print_final_stats=1 >"$OUT/$parser.log" 2>&1 || true
    grep -E "^stat::|#[0-9]+: cov" "$OUT/$parser.log" | tail -3 || true
    found=$(ls "$artifacts" | grep -cE '^(crash|oom|timeout|leak)-' || true)
    if [ "$found" -gt 0 ]; then
        # One root cause often yields hundreds of inputs: keep the smallest
        # FUZZ_KEEP as regression tests, the rest stay in $artifacts to triage.
        echo "FOUND $found crashing inputs for $parser (in $artifacts); keeping the ${FUZZ_KEEP:-5} smallest in Tests/fuzz-regressions/$parser/"
        ls -S "$artifacts" | grep -E '^(crash|oom|timeout|leak)-' | tail -n "${FUZZ_KEEP:-5}" | while read -r crash; do
            cp "$artifacts/$crash" "Tests/fuzz-regressions/$parser/"
        done
        status=1
    fi
done
exit $status
