"""The applicable checks of the official conformance suite's server scenarios (modelcontextprotocol/
conformance `src/scenarios/server/stateless.ts`, `resources.ts`), with every answer validated against the
spec's wire schema: the models the official Python SDK 2.x generates from the spec's `schema/*.json`
(`mcp_types._v2025_11_25`, `mcp_types._v2026_07_28`, extra members ignored, required ones and types
checked). npm is out of reach here, so the suite's TypeScript cannot run; this script sends its requests.

    python wire_check.py URL TOKEN RESOURCE_URI

Prints one JSON line {"checks": {id: "SUCCESS" | reason}}; exits 1 when a check failed.
"""

import json
import sys
import urllib.error
import urllib.request

from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026

URL, TOKEN, VIEW = sys.argv[1], sys.argv[2], sys.argv[3]
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "wire-check", "version": "1"}}
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
checks = {}
next_id = [0]


def send(method, params=None, version=MODERN, meta=META, headers=None):
    next_id[0] += 1
    params = dict(params or {})
    if meta is not None:
        params["_meta"] = meta
    body = json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params}).encode()
    h = {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json",
         "Accept": "application/json, text/event-stream"}
    if version is not None:
        h["MCP-Protocol-Version"] = version
    if meta is not None:  # a 2026 request: the routing headers, sent conformantly (as the suite does)
        h["Mcp-Method"] = method
        if method in NAMED and NAMED[method] in params:
            h["Mcp-Name"] = str(params[NAMED[method]])
    h.update(headers or {})
    request = urllib.request.Request(URL, data=body, method="POST", headers=h)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, payload = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, payload = error.code, error.read()
    message = json.loads(payload)
    if message.get("id") != next_id[0]:
        raise AssertionError(f"{method}: id {message.get('id')} is not the request's {next_id[0]}")
    return status, message


def check(id, fn):
    try:
        fn()
        checks[id] = "SUCCESS"
    except Exception as error:  # noqa: BLE001
        checks[id] = f"{type(error).__name__}: {error}"


def result(status, message, model, expected_status=200):
    assert status == expected_status, f"HTTP {status}: {message}"
    assert "result" in message, message
    return model.model_validate(message["result"])


def error(status, message, module, code, expected_status):
    assert status == expected_status, f"HTTP {status} (expected {expected_status}): {message}"
    module.JSONRPCErrorResponse.model_validate(message)
    assert message["error"]["code"] == code, message["error"]
    return message["error"]


discover = {}


def server_discover():
    status, message = send("server/discover")
    parsed = result(status, message, v2026.DiscoverResult)
    assert message["result"]["resultType"] == "complete"
    assert message["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"]
    assert MODERN in parsed.supported_versions
    discover["versions"] = parsed.supported_versions
    discover["capabilities"] = message["result"]["capabilities"]


check("sep-2575-server-implements-discover", server_discover)


def unsupported_version():
    status, message = send("server/discover", meta={**META, "io.modelcontextprotocol/protocolVersion": "v999.0.0"},
                           version="v999.0.0")
    err = error(status, message, v2026, -32022, 400)
    v2026.UnsupportedProtocolVersionError.model_validate(message)
    assert err["data"]["requested"] == "v999.0.0", err
    assert err["data"]["supported"] and all(v in discover["versions"] for v in err["data"]["supported"]), err


check("sep-2575-server-unsupported-version-error", unsupported_version)


def missing_meta():
    for meta in (None, {"io.modelcontextprotocol/clientCapabilities": {}},
                 {"io.modelcontextprotocol/protocolVersion": MODERN}):
        status, message = send("tools/list", meta=meta)
        code = message.get("error", {}).get("code")
        # A missing version in _meta is also a header/body disagreement: -32602 or -32020, always 400.
        assert status == 400 and code in (-32602, -32020), (meta, status, message)


check("sep-2575-meta-validation", missing_meta)


def no_client_info():
    meta = {k: v for k, v in META.items() if k != "io.modelcontextprotocol/clientInfo"}
    result(*send("tools/list", meta=meta), v2026.ListToolsResult)


check("sep-2575-client-info-optional", no_client_info)

for removed in ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
                "unknown/method"):
    slug = removed.lower().replace("/", "-")
    check(f"sep-2575-http-server-method-not-found-404-{slug}",
          lambda removed=removed: error(*send(removed), v2026, -32601, 404))


def capabilities():
    assert "resources" in discover["capabilities"], discover
    assert discover["capabilities"].get("extensions", {}).get("io.modelcontextprotocol/ui") == {}, discover
    v2026.ServerCapabilities.model_validate(discover["capabilities"])


check("resources-capability-and-ui-extension", capabilities)


def resources_list(version):
    def run():
        meta = META if version == MODERN else None
        status, message = send("resources/list", version=version, meta=meta)
        parsed = result(status, message, (v2026 if version == MODERN else v2025).ListResourcesResult)
        assert [str(r.uri) for r in parsed.resources] == [VIEW], parsed
        assert parsed.resources[0].mime_type == "text/html;profile=mcp-app"
        if version == MODERN:
            assert message["result"]["cacheScope"] == "public" and message["result"]["ttlMs"] > 0, message
    return run


def resources_read(version):
    def run():
        meta = META if version == MODERN else None
        status, message = send("resources/read", {"uri": VIEW}, version=version, meta=meta)
        parsed = result(status, message, (v2026 if version == MODERN else v2025).ReadResourceResult)
        content = parsed.contents[0]
        assert str(content.uri) == VIEW and content.mime_type == "text/html;profile=mcp-app", content
        assert content.text.startswith("<!DOCTYPE html>"), content.text[:40]
    return run


def not_found(version):
    def run():
        uri = "test://nonexistent-resource-for-conformance-testing"
        meta = META if version == MODERN else None
        status, message = send("resources/read", {"uri": uri}, version=version, meta=meta)
        assert "result" not in message, "a result (empty contents?) for a URI not served"
        code, http = (-32602, 400) if version == MODERN else (-32002, 200)
        err = error(status, message, v2026 if version == MODERN else v2025, code, http)
        assert err.get("data", {}).get("uri") == uri, err
    return run


for version, suffix in ((MODERN, "2026"), ("2025-11-25", "2025")):
    check(f"resources-list-{suffix}", resources_list(version))
    check(f"resources-read-text-{suffix}", resources_read(version))
    check(f"sep-2164-resource-not-found-{suffix}", not_found(version))


def name_header():
    status, message = send("resources/read", {"uri": VIEW}, headers={"Mcp-Name": "ui://other"})
    error(status, message, v2026, -32020, 400)


check("sep-2243-mcp-name-mismatch-resources-read", name_header)


def legacy_initialize():
    status, message = send("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": "wire-check", "version": "1"}}, version=None, meta=None)
    parsed = result(status, message, v2025.InitializeResult)
    assert parsed.protocol_version == "2025-11-25"
    assert message["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/ui"] == {}


check("server-initialize-without-version-header", legacy_initialize)


def tools_list(version):
    def run():
        meta = META if version == MODERN else None
        status, message = send("tools/list", version=version, meta=meta)
        result(status, message, (v2026 if version == MODERN else v2025).ListToolsResult)
    return run


check("tools-list-2026", tools_list(MODERN))
check("tools-list-2025", tools_list("2025-11-25"))

print(json.dumps({"checks": checks}))
sys.exit(0 if all(v == "SUCCESS" for v in checks.values()) else 1)
