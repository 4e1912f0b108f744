"""Connects to a running relay through the real OAuth flow, then sends /mcp requests that a cached
token must not let through; prints one JSON line {"case": [status, error]}.

    python3 bearer_rules.py http://127.0.0.1:PORT
"""

import json
import sys

from relay_flow import connect, mcp

RELAY = sys.argv[1]
token = connect(RELAY, "rules@example.com")["access_token"]


def case(target, authorizations):
    status, error, _ = mcp(RELAY, target, authorizations)
    return [status, error]


results = {"first": case("/mcp", ["Bearer " + token])}
results["cached"] = case("/mcp", ["Bearer " + token])
results["lowercaseScheme"] = case("/mcp", ["bearer " + token])
results["tokenInQuery"] = case("/mcp?access_token=" + token, ["Bearer " + token])
results["otherQuery"] = case("/mcp?x=1", ["Bearer " + token])
results["twoHeaders"] = case("/mcp", ["Bearer " + token, "Bearer " + token])
results["brokenChecksum"] = case("/mcp", ["Bearer " + token[:-1] + ("A" if token[-1] != "A" else "B")])
results["otherScheme"] = case("/mcp", ["Basic " + token])
print(json.dumps(results))
