"""A client refreshes its tokens while its old access token is still in use (as clients do around
expiry), against a relay whose CloudKit emulator kills a web auth token once it has rotated (the
documented behaviour). Every call must keep working; prints one JSON line of [status, tool error].

    python3 refresh_then_call.py http://127.0.0.1:PORT
"""

import json
import sys
import urllib.error

from relay_flow import connect, refresh, tool_call

RELAY = sys.argv[1]
first = connect(RELAY, "refresher@example.com")
steps = [tool_call(RELAY, first["access_token"], "get_me")]
second = refresh(RELAY, first)
steps.append(tool_call(RELAY, first["access_token"], "get_me"))  # the old token, still valid, rotates CloudKit's
steps += [tool_call(RELAY, second["access_token"], "get_me") for _ in range(3)]
try:
    third = refresh(RELAY, second)
    steps += [tool_call(RELAY, token, "list_todos") for token in (second["access_token"], third["access_token"])]
except urllib.error.HTTPError as error:  # the grant is gone
    steps.append([error.code, "refresh failed"])
print(json.dumps(steps))
