#!/usr/bin/env bash
# Builds the parser fuzzers (libFuzzer + AddressSanitizer) and runs each over its seed corpus:
#   fuzz-http-parser  Tests/Fuzz/http-parser   the HTTP/1.1 request parser (whole, split, byte by byte)
#   fuzz-json-parser  Tests/Fuzz/json-parser   the JSON parser and writer (round trip, depth limit)
# The time given (seconds, default 60) is shared: each fuzzer gets half, one after the other, so
# `make test` spends the same time fuzzing as with one fuzzer. A crash leaves its input in
# .build-fuzz/artifacts/<fuzzer>/ and fails the run.
#   scripts/fuzz.sh 600            # five minutes each
#   scripts/fuzz.sh 60 json        # only the JSON fuzzer, for the whole minute
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
only=${2:-}
fuzzers=(http json)
[ -n "$only" ] && fuzzers=("$only")
share=$((seconds / ${#fuzzers[@]}))
[ "$share" -lt 1 ] && share=1
# swiftc keeps only the last -sanitize= it is given, and SwiftPM passes one per --sanitize: without the
# combined flag the code is built with AddressSanitizer alone and libFuzzer runs blind (no coverage,
# "Is the code instrumented for coverage?"). The --sanitize options still choose the link step.
flags=(-c release --scratch-path .build-fuzz --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address
    -Xswiftc -DFUZZING)
for name in "${fuzzers[@]}"; do
    product="fuzz-$name-parser"
    if ! swift build "${flags[@]}" --product "$product" > .build-fuzz.log 2>&1; then
        grep -v 'Cannot export local symbol' .build-fuzz.log >&2
        exit 1
    fi
    binary="$(swift build "${flags[@]}" --show-bin-path)/$product"
    work=.build-fuzz/corpus/$name
    artifacts=.build-fuzz/artifacts/$name
    mkdir -p "$work" "$artifacts"
    dictionary=()
    [ -f "Tests/Fuzz/$name.dict" ] && dictionary=(-dict="Tests/Fuzz/$name.dict")
    echo "fuzz: running the $name parser fuzzer for ${share}s"
    SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$share" -max_len=4096 -timeout=10 "${dictionary[@]}" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 "$work" "Tests/Fuzz/$name-parser" \
        > ".build-fuzz/run-$name.log" 2>&1 || {
        tail -n 40 ".build-fuzz/run-$name.log" >&2
        echo "fuzz: $product FAILED; the crashing input is in $artifacts/" >&2
        exit 1
    }
    grep -E 'stat::number_of_executed_units|Done [0-9]+ runs|DONE' ".build-fuzz/run-$name.log" \
        || tail -n 3 ".build-fuzz/run-$name.log"
    # A fuzzer without coverage feedback only replays mutations of the seeds: treat it as a failure.
    if grep -q 'Is the code instrumented for coverage' ".build-fuzz/run-$name.log"; then
        echo "fuzz: $product was built without coverage instrumentation" >&2
        exit 1
    fi
done
