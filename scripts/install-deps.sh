#!/usr/bin/env bash
# Installs what building, testing and the demo need on a fresh Debian machine with Swift:
# Debian packages (C libraries, nginx, chromium…) and Python packages (test tools), skipping
# whatever is already present. Safe to run again and again.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(pkg-config libssl-dev libcurl4-openssl-dev libsqlite3-dev zlib1g-dev)
# Test tools: the deployment kit is checked with the real nginx, caddy and systemd-analyze.
apt_packages+=(nginx caddy systemd openssl curl)
apt_packages+=(${EXTRA_APT_PACKAGES:-})

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

if ! command -v swift >/dev/null 2>&1; then
    echo "install-deps: swift is not on PATH (expected /opt/swift/usr/bin)" >&2
    exit 1
fi
