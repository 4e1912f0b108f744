#!/usr/bin/env bash
# Installs what building, testing and the demo need on a fresh Debian machine with Swift:
# Debian packages (C libraries, nginx, chromium…) and Python packages (test tools), skipping
# whatever is already present. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(pkg-config libssl-dev libcurl4-openssl-dev libnghttp2-dev libsqlite3-dev zlib1g-dev)
# Test tools: the deployment kit is checked with the real nginx, caddy and systemd-analyze.
apt_packages+=(nginx caddy systemd openssl curl)
# Browser tests (Tests/EndToEndTests/BrowserTests): headless Chromium driven by Selenium, and a
# Japanese font so the Japanese pages' screenshots show text, not boxes.
apt_packages+=(chromium chromium-driver fonts-ipafont-gothic)
apt_packages+=(${EXTRA_APT_PACKAGES:-})
# Python for the end-to-end tests (the MCP SDK clients run in virtualenvs, which need ensurepip).
if [ -n "${WITH_PYTHON:-1}" ]; then
    if ! command -v python3 >/dev/null 2>&1; then
        apt_packages+=(python3 python3-venv)
    elif ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        apt_packages+=(python3-venv)
    fi
fi

missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: apt-get install ${missing[*]}"
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -f requirements-test.txt ] && [ -n "${WITH_PYTHON:-1}" ]; then
    python3 scripts/check-requirements.py requirements-test.txt || {
        echo "install-deps: pip install -r requirements-test.txt"
        python3 -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
    }
fi

# The official MCP Python SDK, both lines, each in its own virtualenv: .venv-mcp1 (1.x) and
# .venv-mcp2 (2.x). Tests/RelayMCPTests runs its end-to-end client script with each.
sdk_venv() {
    local dir=$1 requirements=$2
    if [ ! -x "$dir/bin/python" ]; then
        echo "install-deps: python3 -m venv $dir"
        python3 -m venv "$dir"
    fi
    "$dir/bin/python" scripts/check-requirements.py "$requirements" >/dev/null || {
        echo "install-deps: $dir: pip install -r $requirements"
        "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
    }
}
if [ -n "${WITH_PYTHON:-1}" ]; then
    sdk_venv .venv-mcp1 Tests/RelayMCPTests/e2e/requirements-mcp1.txt
    sdk_venv .venv-mcp2 Tests/RelayMCPTests/e2e/requirements-mcp2.txt
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "install-deps: swift is not on PATH (expected /opt/swift/usr/bin)" >&2
    exit 1
fi
