"""A `tools/call` of `mustdo-relay local` cancelled (`notifications/cancelled`) while CloudKit is slow, then
another call: with strict rotation the cancelled call's answer names the only live token, so the second call
must still find a usable sign-in. Speaks MCP's stdio transport as plain JSON lines (no SDK: the point is the
exact timing of the cancellation). Prints one JSON line: what each call answered.

Usage: python3 local_cancel.py BINARY HOME EMULATOR_URL API_TOKEN CONTAINER WEB_AUTH_TOKEN
"""

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

binary, home, emulator, api_token, container, web_auth_token = sys.argv[1:7]
os.makedirs(home, mode=0o700, exist_ok=True)
auth = os.path.join(home, "auth.json")
with open(os.open(auth, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
    json.dump({"ckWebAuthToken": web_auth_token, "container": container, "environment": "production"}, file)


def control(path, body):
    request = urllib.request.Request(
        emulator + "/control/" + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def stats():
    with urllib.request.urlopen(emulator + "/control/stats", timeout=10) as response:
        return json.loads(response.read())


environment = dict(os.environ)
environment.update(
    {
        "MUSTDO_HOME": home,
        "MUSTDO_CK_API_TOKEN": api_token,
        "MUSTDO_CK_CONTAINER": container,
        "MUSTDO_CK_ENV": "production",
        "MUSTDO_CK_BASE_URL": emulator,
        "MUSTDO_BROWSER": "none",
        "MUSTDO_CALLBACK_PORT": "51999",
    }
)
stderr = open(os.path.join(home, "stderr.log"), "w")
child = subprocess.Popen(
    [binary, "local"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=environment, text=True
)
answers = {}
arrived = threading.Condition()


def read():
    for line in child.stdout:
        message = json.loads(line)
        with arrived:
            if "id" in message:
                answers[message["id"]] = message
            arrived.notify_all()


threading.Thread(target=read, daemon=True).start()


def send(message):
    child.stdin.write(json.dumps(message) + "\n")
    child.stdin.flush()


def wait_for(identifier, timeout=60):
    deadline = time.time() + timeout
    with arrived:
        while identifier not in answers and time.time() < deadline:
            arrived.wait(deadline - time.time())
    return answers.get(identifier)


def outcome(answer):
    if answer is None:
        return "none"
    result = answer.get("result") or {}
    if result.get("isError"):
        return "error " + str(((result.get("structuredContent") or {}).get("error") or {}).get("code"))
    return "result" if "result" in answer else "rpc error " + json.dumps(answer.get("error"))


report = {}
send(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "cancel", "version": "1"}},
    }
)
wait_for(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_me", "arguments": {}}})
report["first"] = outcome(wait_for(2))

# CloudKit slows down; the call goes out and is cancelled while CloudKit is still working on it.
control("latency", {"milliseconds": 1500})
before = stats()["databaseRequests"]
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_me", "arguments": {}}})
# The emulator counts a request once its latency has passed: wait a fixed half second instead (the local
# server sends at once), and check afterwards that the request did reach it.
time.sleep(0.5)
send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3, "reason": "the user stopped"}})
time.sleep(4)
control("latency", {"milliseconds": 0})
report["cancelled"] = outcome(answers.get(3))
report["reachedCloudKit"] = stats()["databaseRequests"] > before

send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "get_me", "arguments": {}}})
report["after"] = outcome(wait_for(4))
send({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "list_todos", "arguments": {}}})
report["again"] = outcome(wait_for(5))
child.stdin.close()
report["exit"] = child.wait(timeout=30)
print(json.dumps(report))
