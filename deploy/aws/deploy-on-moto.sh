#!/usr/bin/env bash
# Runs the CloudFormation commands of docs/operations.md ("Deploying the template") as written,
# against moto_server instead of AWS (the only change: --endpoint-url and dummy credentials), and
# checks the stack's outputs: the template validates, deploys with RelayRoleArn and KeyAdminArn,
# and creates the table and the key the relay's settings name. `make deploy-check` runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
moto_server -p "$port" >/dev/null 2>&1 &
moto=$!
trap 'kill $moto 2>/dev/null || true' EXIT
for _ in $(seq 50); do
    (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
    sleep 0.2
done
export AWS_ACCESS_KEY_ID=moto AWS_SECRET_ACCESS_KEY=moto AWS_DEFAULT_REGION=us-east-1 AWS_PAGER=
aws() { command aws --endpoint-url "http://127.0.0.1:$port" "$@"; }

# --- the commands as docs/operations.md shows them ---
aws cloudformation validate-template --template-body file://deploy/aws/mustdo-relay.cfn.json >/dev/null
aws cloudformation deploy --stack-name mustdo-relay \
    --template-file deploy/aws/mustdo-relay.cfn.json \
    --capabilities CAPABILITY_IAM \
    --parameter-overrides \
    RelayRoleArn=arn:aws:iam::123456789012:role/mustdo-relay \
    KeyAdminArn=arn:aws:iam::123456789012:role/mustdo-relay-key-admin
aws cloudformation describe-stacks --stack-name mustdo-relay \
    --query 'Stacks[0].Outputs[].[OutputKey,OutputValue]' --output text
# --- end ---

# moto fills no Outputs for a stack made through a change set (what `deploy` does): read the
# resources instead.
resource() {
    aws cloudformation describe-stack-resources --stack-name mustdo-relay \
        --query "StackResources[?LogicalResourceId=='$1'].PhysicalResourceId" --output text
}
table=$(resource Table)
key=$(resource Key)
aws dynamodb describe-table --table-name "$table" >/dev/null
# (moto answers DescribeKey of a key made by CloudFormation with a 500: list the keys instead.)
aws kms list-keys --query 'Keys[].KeyId' --output text | grep -qw "${key##*/}"
echo "deploy: CloudFormation template deploys on moto (table $table, key ${key##*/})"
