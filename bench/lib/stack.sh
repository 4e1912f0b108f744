# Shared by bench/mcp, bench/soak and bench/peers (source it; bash only): builds the release
# binaries and starts the real stack the way an operator runs it — `cloudkit-emulator` as its own
# process and `mustdo-relay serve` with a SQLite store, a local key file and every secret made by
# `mustdo-relayctl keys generate` — plus the small helpers the scripts share (medians, load
# average, /proc readings, waiting for a port).
#
# Every process started here is recorded in STACK_PIDS; stack_stop ends exactly those.

STACK_PIDS=()

stack_build() { # products...
    local log
    log=$(mktemp)
    for product in "$@"; do
        swift build -c release --product "$product" >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; return 1; }
    done
    rm -f "$log"
    STACK_BIN=$(swift build -c release --show-bin-path 2>/dev/null)
}

stack_wait_http() { # url [tries]
    for _ in $(seq "${2:-200}"); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.05
    done
    echo "bench: nothing answers at $1" >&2
    return 1
}

# stack_start_emulator DIR PORT [cloudkit-emulator flags...]: the emulator with a fresh API token
# in DIR/cloudkit-api-token (every relay started here uses it) and its sign-in callback pointing
# at RELAY_URL (set it first; stack_callback points it at another relay).
stack_start_emulator() {
    local dir=$1 port=$2
    shift 2
    mkdir -p "$dir"
    chmod 700 "$dir"
    (umask 077 && head -c 24 /dev/urandom | base64 | tr '+/' '-_' >"$dir/cloudkit-api-token")
    STACK_API_TOKEN_FILE=$dir/cloudkit-api-token
    "$STACK_BIN/cloudkit-emulator" --port "$port" --threads "${EMULATOR_THREADS:-2}" \
        --api-token-file "$STACK_API_TOKEN_FILE" --container iCloud.bench.mustdo \
        --callback "$RELAY_URL/oauth/apple/callback" --token-lifetime 0 --keep-signed-in-lifetime 0 "$@" \
        >"$dir/emulator.log" 2>&1 &
    STACK_PIDS+=($!)
    EMULATOR_PID=$!
    EMULATOR_URL="http://127.0.0.1:$port"
    stack_wait_http "$EMULATOR_URL/control/stats"
}

# Where the emulator's sign-in sends the browser back to: RELAY_URL's Apple callback.
stack_callback() {
    curl -sf -X POST "$EMULATOR_URL/control/callback" -d "{\"url\":\"$1/oauth/apple/callback\"}" >/dev/null
}

# stack_start_relay DIR PORT METRICS_PORT [KEY=value settings...]: `mustdo-relay serve` (the
# binary BENCH_RELAY_BINARY, by default the one just built) with a config file in DIR and its secrets made
# by `mustdo-relayctl keys generate`; logs (JSON lines) go to DIR/relay.log. Sets RELAY_PID and
# METRICS_URL.
stack_start_relay() {
    local dir=$1 port=$2 metrics=$3
    shift 3
    mkdir -p "$dir"
    chmod 700 "$dir"
    if [ -z "${STACK_API_TOKEN_FILE:-}" ]; then # no emulator: CloudKit is never called (bench/http)
        (umask 077 && echo "unused-api-token" >"$dir/cloudkit-api-token")
        STACK_API_TOKEN_FILE=$dir/cloudkit-api-token
    fi
    {
        echo "RELAY_ISSUER=http://127.0.0.1:$port"
        echo "RELAY_HOST=127.0.0.1"
        echo "RELAY_PORT=$port"
        echo "RELAY_METRICS_PORT=$metrics"
        echo "RELAY_DATA_DIRECTORY=$dir"
        echo "RELAY_STORE=sqlite"
        echo "RELAY_CLOUDKIT_BASE_URL=${EMULATOR_URL:-http://127.0.0.1:9}"
        echo "RELAY_CLOUDKIT_CONTAINER=iCloud.bench.mustdo"
        echo "RELAY_CLOUDKIT_ENVIRONMENT=production"
        echo "RELAY_CLOUDKIT_API_TOKEN_FILE=$STACK_API_TOKEN_FILE"
        # A load generator calls far faster per connection than a person's assistant: the per-connection
        # tool-call limit stays on (its cost is part of what is measured) with a budget no bench reaches.
        # An older binary (BASELINE=…) does not know the setting and would refuse it.
        if grep -q RELAY_MCP_TOOL_CALLS_PER_MINUTE "${BENCH_RELAY_BINARY:-$STACK_BIN/mustdo-relay}" 2>/dev/null; then
            echo "RELAY_MCP_TOOL_CALLS_PER_MINUTE=1000000"
        fi
        for setting in "$@"; do echo "$setting"; done
    } >"$dir/relay.env"
    [ -f "$dir/secrets/pepper" ] || "$STACK_BIN/mustdo-relayctl" keys generate --config "$dir/relay.env" >/dev/null
    "${BENCH_RELAY_BINARY:-$STACK_BIN/mustdo-relay}" serve --config "$dir/relay.env" >>"$dir/relay.log" 2>&1 &
    STACK_PIDS+=($!)
    RELAY_PID=$!
    METRICS_URL="http://127.0.0.1:$metrics/metrics"
    stack_wait_http "http://127.0.0.1:$port/healthz"
}

stack_stop() {
    local pid
    for pid in "${STACK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${STACK_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    STACK_PIDS=()
}

# One metric series from the relay's /metrics (0 when absent): metric 'name{labels}' exactly as rendered.
stack_metric() {
    curl -s "$METRICS_URL" | awk -v key="$1" '$1 == key { print $2; found = 1 } END { if (!found) print 0 }'
}

median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
proc_rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
proc_threads() { awk '/^Threads:/ { print $2 }' "/proc/$1/status"; }
proc_fds() { ls "/proc/$1/fd" | wc -l; }
# CPU seconds (user + system) used so far by PID and its child processes (nginx and uvicorn workers).
proc_cpu() {
    local total=0 pid ticks
    for pid in "$1" $(pgrep -P "$1" || true); do
        ticks=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
        total=$((total + ticks))
    done
    echo "$total / $(getconf CLK_TCK)" | bc -l
}
# Microseconds of CPU per request: cpu_before cpu_after requests_per_second seconds
cpu_per_request() { echo "($2 - $1) * 1000000 / ($3 * $4)" | bc -l; }

# wrk output -> "requests_per_second p99_ms p50_ms errors" (errors: non-2xx responses, socket
# errors, and with WRK_CHECK=1 and bench/lib/mcp.lua, responses with a tool error).
wrk_summary() {
    awk '
        function ms(v) {
            if (v ~ /us$/) { sub(/us/, "", v); return v / 1000 }
            if (v ~ /ms$/) { sub(/ms/, "", v); return v }
            if (v ~ /s$/) { sub(/s/, "", v); return v * 1000 }
            return v
        }
        /Requests\/sec/ { rps = $2 }
        /^ +50%/ { p50 = ms($2) }
        /^ +99%/ { p99 = ms($2) }
        /Non-2xx/ { errors += $NF }
        /Socket errors/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
        /^tool errors:/ { errors += $3 }
        END { printf "%s %s %s %d\n", rps, p99, p50, errors }'
}
