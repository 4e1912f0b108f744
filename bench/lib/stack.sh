# Shared by bench/mcp, bench/soak and bench/peers (source it; bash only): builds the release
# binaries and starts the real stack the way an operator runs it — `cloudkit-emulator` as its own
# process and `mustdo-relay serve` with a SQLite store, a local key file and every secret made by
# `mustdo-relayctl keys generate` — plus the small helpers the scripts share (medians, load
# average, /proc readings, waiting for a port).
#
# Every process started here is recorded in STACK_PIDS; stack_stop ends exactly those.

STACK_PIDS=()

# A missing tool must stop the run, not print a table of zeros (`make bench-*` installs them).
stack_require() { # commands...
    local command
    for command in "$@"; do
        command -v "$command" >/dev/null || {
            echo "$(basename "$0"): $command is missing (the make bench-* targets install it)" >&2
            exit 1
        }
    done
}

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

# stack_start_cloudkit_front DIR PORT: when UPSTREAM is `tls` (or `tls-http1`), nginx in front of the
# emulator as Apple serves CloudKit: TLS with a certificate from a throwaway CA made here (the relay
# gets it through RELAY_CLOUDKIT_CA_FILE, the Python peers verify it too), HTTP/2 offered through
# ALPN (`tls-http1`: HTTP/1.1 only), the emulator behind it over kept-alive HTTP/1.1. Sets
# CLOUDKIT_URL (where servers send CloudKit calls; EMULATOR_URL stays the emulator itself, for its
# control API and sign-in page) and CLOUDKIT_CA_FILE. Without UPSTREAM, CLOUDKIT_URL is EMULATOR_URL.
# nginx's access log (DIR/cloudkit-front/access.log) names each request's TCP connection and
# protocol: stack_front_connections counts the connections the relay opened.
stack_start_cloudkit_front() {
    local dir=$1/cloudkit-front port=$2 http2=" http2"
    CLOUDKIT_URL=$EMULATOR_URL
    CLOUDKIT_CA_FILE=
    case "${UPSTREAM:-}" in
    "") return 0 ;;
    tls) ;;
    tls-http1) http2= ;;
    *) echo "bench: UPSTREAM is tls, tls-http1 or unset, not $UPSTREAM" >&2; return 1 ;;
    esac
    mkdir -p "$dir/logs" "$dir/tmp"
    local key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
    openssl req -x509 "${key[@]}" -days 2 -subj "/CN=bench CloudKit CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    openssl req "${key[@]}" -subj /CN=127.0.0.1 -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
        -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
    cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/logs/error.log warn;
events { worker_connections 16384; }
http {
    client_body_temp_path $dir/tmp/body; proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fcgi; uwsgi_temp_path $dir/tmp/uwsgi; scgi_temp_path $dir/tmp/scgi;
    log_format upstream '\$connection \$server_protocol \$ssl_session_reused \$status';
    access_log $dir/logs/access.log upstream buffer=64k flush=1s;
    upstream emulator { server ${EMULATOR_URL#http://}; keepalive 256; }
    server {
        listen 127.0.0.1:$port ssl$http2;
        ssl_certificate $dir/server.pem;
        ssl_certificate_key $dir/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:cloudkit:10m;
        keepalive_requests 1000000;
        location / {
            proxy_pass http://emulator;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host ${EMULATOR_URL#http://};
        }
    }
}
CONF
    nginx -t -q -c "$dir/nginx.conf" -p "$dir"
    nginx -c "$dir/nginx.conf" -p "$dir" -g 'daemon off;' 2>>"$dir/logs/error.log" &
    STACK_PIDS+=($!)
    CLOUDKIT_FRONT_DIR=$dir
    CLOUDKIT_URL=https://127.0.0.1:$port
    CLOUDKIT_CA_FILE=$dir/ca.pem
    for _ in $(seq 200); do
        curl -s -o /dev/null --cacert "$CLOUDKIT_CA_FILE" "$CLOUDKIT_URL/" && return 0
        sleep 0.05
    done
    echo "bench: nginx in front of the emulator did not start: $(cat "$dir/logs/error.log")" >&2
    return 1
}

# stack_front_connections [LINES_TO_SKIP] -> "connections requests protocols": over the access log
# of the CloudKit front since line LINES_TO_SKIP (nginx flushes it every second).
stack_front_connections() {
    [ -n "${CLOUDKIT_FRONT_DIR:-}" ] || { echo "0 0 -"; return 0; }
    tail -n +"$((${1:-0} + 1))" "$CLOUDKIT_FRONT_DIR/logs/access.log" | awk '
        { connections[$1] = 1; protocols[$2] = 1; n++ }
        END { c = 0; for (k in connections) c++; p = ""; for (k in protocols) p = p (p ? "," : "") k
              printf "%d %d %s\n", c, n, (p ? p : "-") }'
}
stack_front_lines() { [ -n "${CLOUDKIT_FRONT_DIR:-}" ] && wc -l <"$CLOUDKIT_FRONT_DIR/logs/access.log" || echo 0; }

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
        echo "RELAY_CLOUDKIT_BASE_URL=${CLOUDKIT_URL:-${EMULATOR_URL:-http://127.0.0.1:9}}"
        [ -n "${CLOUDKIT_CA_FILE:-}" ] && echo "RELAY_CLOUDKIT_CA_FILE=$CLOUDKIT_CA_FILE"
        echo "RELAY_CLOUDKIT_CONTAINER=iCloud.bench.mustdo"
        echo "RELAY_CLOUDKIT_ENVIRONMENT=production"
        echo "RELAY_CLOUDKIT_API_TOKEN_FILE=$STACK_API_TOKEN_FILE"
        # A load generator calls far faster per connection than a person's assistant: the per-connection
        # tool-call limit stays on (its cost is part of what is measured) with a budget no bench reaches.
        # An older binary (BASELINE=…) does not know the setting and would refuse it. A wrapper script
        # (`#!…; exec /path/to/relay "$@"`, e.g. to set a RELAY_ variable) is judged by what it execs:
        # without the setting, its relay hits the production limit and fails every call after a minute.
        local binary=${BENCH_RELAY_BINARY:-$STACK_BIN/mustdo-relay} candidates
        candidates=("$binary")
        if [ "$(head -c 2 "$binary" 2>/dev/null)" = '#!' ]; then
            candidates+=($(grep -o 'exec [^ ]*' "$binary" | awk '{ print $2 }' | tr -d '"'"'"))
        fi
        if grep -q RELAY_MCP_TOOL_CALLS_PER_MINUTE "${candidates[@]}" 2>/dev/null; then
            echo "RELAY_MCP_TOOL_CALLS_PER_MINUTE=1000000"
        else
            echo "bench: $binary does not know RELAY_MCP_TOOL_CALLS_PER_MINUTE: its relay keeps the production limit" >&2
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
