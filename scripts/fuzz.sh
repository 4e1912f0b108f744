#!/usr/bin/env bash
# Builds the HTTP parser fuzzer (libFuzzer + AddressSanitizer) and runs it for the given number of
# seconds over the seed corpus in Tests/Fuzz/http-parser. A crash leaves its input in .build-fuzz/artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
flags=(-c release --product fuzz-http-parser --scratch-path .build-fuzz --sanitize fuzzer --sanitize address -Xswiftc -DFUZZING)
if ! swift build "${flags[@]}" > .build-fuzz.log 2>&1; then
    grep -v 'Cannot export local symbol' .build-fuzz.log >&2
    exit 1
fi
binary="$(swift build "${flags[@]}" --show-bin-path)/fuzz-http-parser"
work=.build-fuzz/corpus
mkdir -p "$work" .build-fuzz/artifacts
echo "fuzz: running the HTTP parser fuzzer for ${seconds}s"
SWIFT_BACKTRACE=enable=no "$binary" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1 "$work" Tests/Fuzz/http-parser > .build-fuzz/run.log 2>&1 || {
    tail -n 40 .build-fuzz/run.log >&2
    echo "fuzz: FAILED; the crashing input is in .build-fuzz/artifacts/" >&2
    exit 1
}
grep -E 'stat::number_of_executed_units|Done [0-9]+ runs' .build-fuzz/run.log || tail -n 3 .build-fuzz/run.log
