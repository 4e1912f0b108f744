#!/usr/bin/env bash
# Validates the deployment kit with the real tools: nginx -t, caddy validate,
# systemd-analyze verify, and a structural check of the CloudFormation template.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d /tmp/check-deploy.XXXXXX)
trap 'rm -rf "$work"' EXIT

# nginx: a throwaway certificate, the site file included from a minimal main config.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=relay.example.com \
    -keyout "$work/key.pem" -out "$work/cert.pem" >/dev/null 2>&1
mkdir -p "$work/nginx/logs"
sed -e "s#/etc/letsencrypt/live/relay.example.com/fullchain.pem#$work/cert.pem#" \
    -e "s#/etc/letsencrypt/live/relay.example.com/privkey.pem#$work/key.pem#" \
    -e "s#/var/log/nginx/#$work/nginx/logs/#" deploy/nginx/mustdo-relay.conf > "$work/nginx/site.conf"
cat > "$work/nginx/nginx.conf" <<CONF
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log;
events {}
http { include $work/nginx/site.conf; }
CONF
nginx -t -q -c "$work/nginx/nginx.conf" -p "$work/nginx"
echo "deploy: nginx -t ok"

caddy validate --config deploy/caddy/Caddyfile --adapter caddyfile >"$work/caddy.log" 2>&1 || { cat "$work/caddy.log"; exit 1; }
echo "deploy: caddy validate ok"

# systemd: verify the unit with ExecStart pointing at the binary that was just built.
binary="$(pwd)/.build/debug/mustdo-relay"
[ -x "$binary" ] || swift build --product mustdo-relay >/dev/null
sed "s#/usr/bin/mustdo-relay#$binary#g" deploy/systemd/mustdo-relay.service > "$work/mustdo-relay.service"
output=$(systemd-analyze verify "$work/mustdo-relay.service" 2>&1 || true)
# Outside a booted systemd (containers, CI) verify still parses the unit; only unit problems matter.
problems=$(printf '%s\n' "$output" | grep -E 'mustdo-relay.service' | grep -vE 'Failed to connect|not running|System has not been booted' || true)
if [ -n "$problems" ]; then
    printf '%s\n' "$problems"
    exit 1
fi
echo "deploy: systemd-analyze verify ok"

# The Debian package's maintainer scripts parse with Debian's /bin/sh, and the unit starts the
# programs where the package installs them, /usr/bin (`make package-test`, as root, runs them).
for script in packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm; do
    sh -n "$script"
done
for path in $(sed -n 's/^Exec[A-Za-z]*=\([^ ]*\).*/\1/p' deploy/systemd/mustdo-relay.service); do
    case $path in
    /usr/bin/mustdo-relay | /usr/bin/mustdo-relayctl) ;;
    *) echo "deploy: the unit runs $path; the package installs the programs in /usr/bin"; exit 1 ;;
    esac
done
# The version the package build reads from the sources (a change of RelayCommand.version's
# declaration must not leave it empty).
packaging/build-deb.sh --print-version >/dev/null
echo "deploy: package scripts ok"

python3 - deploy/aws/mustdo-relay.cfn.json <<'PY'
import json, sys
template = json.load(open(sys.argv[1]))
table = template["Resources"]["Table"]["Properties"]
assert {k["AttributeName"]: k["KeyType"] for k in table["KeySchema"]} == {"pk": "HASH", "sk": "RANGE"}
assert table["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
statements = template["Resources"]["Key"]["Properties"]["KeyPolicy"]["Statement"]
relay = [s for s in statements if s["Sid"] == "RelayWrapsAndUnwrapsOnlyWithItsContext"][0]
assert sorted(relay["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey"]
assert "kms:EncryptionContextKeys" in relay["Condition"]["ForAllValues:StringEquals"]
admins = [s for s in statements if s["Sid"] == "AdministratorsManageButNeverUse"][0]
assert not any(a in ("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey", "kms:*") for a in admins["Action"])
print("deploy: CloudFormation template ok")
PY

# The CloudFormation commands of docs/operations.md, as written, against moto (validate, deploy
# with RelayRoleArn and KeyAdminArn, read the outputs), and the template through cfn-lint.
cfn-lint deploy/aws/mustdo-relay.cfn.json
deploy/aws/deploy-on-moto.sh
# The "serve on the standalone emulator" recipe of docs/operations.md, as written.
scripts/check-emulator-recipe
