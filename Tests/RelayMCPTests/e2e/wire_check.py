"""The applicable checks of the official conformance suite's server scenarios (modelcontextprotocol/
conformance `src/scenarios/server/stateless.ts`, `resources.ts`), with every answer validated against the
spec's published JSON schema (`spec-schema/<version>.json`, vendored from modelcontextprotocol/
modelcontextprotocol `schema/<version>/schema.json`, commits in `spec-schema/SOURCE.md`) with the
`jsonschema` package: the whole message as a JSON-RPC response or error, the result as the method's
result type, and then every member we send must be one the schema names (the schemas leave most objects
open, so a misspelt member would otherwise pass). The official Python SDK 2.x's typed models
(`mcp_types`) still parse the answers too. npm is out of reach here, so the suite's TypeScript cannot
run; this script sends its requests.

    python wire_check.py URL TOKEN RESOURCE_URI

Prints one JSON line {"checks": {id: "SUCCESS" | reason}, "validated": n, "answers": n, "unvalidated": [ids]};
exits 1 when a check failed or an answer went unvalidated.
"""

import json
import sys
import urllib.error
import urllib.request

from mcp_types import _v2025_11_25 as v2025
from mcp_types import _v2026_07_28 as v2026
from spec_schema import SCHEMAS, problems

URL, TOKEN, VIEW = sys.argv[1], sys.argv[2], sys.argv[3]
MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "wire-check", "version": "1"}}
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
checks = {}
next_id = [0]
last = {"version": MODERN}
validated = [0]
unvalidated = set()  # ids of answers no schema check has seen yet: must be empty at the end


def conforms(message, name, version=None):
    """`message` (a whole JSON-RPC answer) against the spec's schema of `version` (spec_schema.problems)."""
    wrong = problems(message, name, version or last["version"])
    assert not wrong, wrong[0]
    validated[0] += 1
    unvalidated.discard(message.get("id"))


def conforms_error(message, name):
    """An error answer against one of the 2026-07-28 schema's error types."""
    conforms(message, name)


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
    # The schema to check the answer with: a version the server cannot know is a 2026 request (_meta).
    last["version"] = version if version in SCHEMAS else ("2025-11-25" if version is None else MODERN)
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
    unvalidated.add(next_id[0])
    if message.get("id") != next_id[0]:
        raise AssertionError(f"{method}: id {message.get('id')} is not the request's {next_id[0]}")
    return status, message


def check(id, fn):
    try:
        fn()
        checks[id] = "SUCCESS"
    except Exception as error:  # noqa: BLE001
        checks[id] = f"{type(error).__name__}: {error}"


def result(status, message, model, expected_status=200, schema=None):
    assert status == expected_status, f"HTTP {status}: {message}"
    assert "result" in message, message
    conforms(message, schema or model.__name__)
    if last["version"] == "2025-06-18":
        return None  # the SDK's models are 2025-11-25's and 2026-07-28's; the schema above is the check
    return model.model_validate(message["result"])


# The 2026-07-28 schema's own error types, by code.
ERRORS_2026 = {-32601: "MethodNotFoundError", -32602: "InvalidParamsError", -32022: "UnsupportedProtocolVersionError",
               -32020: "HeaderMismatchError"}


def error(status, message, module, code, expected_status):
    assert status == expected_status, f"HTTP {status} (expected {expected_status}): {message}"
    module.JSONRPCErrorResponse.model_validate(message)
    assert message["error"]["code"] == code, message["error"]
    conforms(message, "JSONRPCErrorResponse" if last["version"] != "2025-06-18" else "JSONRPCError")
    if last["version"] == MODERN and code in ERRORS_2026:
        conforms_error(message, ERRORS_2026[code])
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
        error(status, message, v2026, code, 400)


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


def initialize_2025_06_18():
    status, message = send("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "wire-check", "version": "1"}},
                           version="2025-06-18", meta=None)
    result(status, message, v2025.InitializeResult)
    assert message["result"]["protocolVersion"] == "2025-06-18", message


check("server-initialize-2025-06-18", initialize_2025_06_18)
for method, params, schema in (("tools/list", {}, "ListToolsResult"), ("resources/list", {}, "ListResourcesResult"),
                               ("resources/read", {"uri": VIEW}, "ReadResourceResult"),
                               ("prompts/list", {}, "ListPromptsResult"),
                               ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}, "CallToolResult")):
    check(f"{method.replace('/', '-')}-2025-06-18",
          lambda method=method, params=params, schema=schema: result(
              *send(method, params, version="2025-06-18", meta=None), None, schema=schema))


def tools_call(version):
    def run():
        meta = META if version == MODERN else None
        status, message = send("tools/call", {"name": "echo", "arguments": {"text": "hi", "times": 2}},
                               version=version, meta=meta)
        parsed = result(status, message, (v2026 if version == MODERN else v2025).CallToolResult)
        assert parsed.structured_content["echo"] == "hi hi", parsed
        # A tool's own failure is a result with isError, still a CallToolResult.
        status, message = send("tools/call", {"name": "echo", "arguments": {"text": ""}}, version=version, meta=meta)
        assert message.get("result", {}).get("isError") is True or "error" in message, message
        if "result" in message:
            result(status, message, (v2026 if version == MODERN else v2025).CallToolResult)
        else:
            error(status, message, v2026 if version == MODERN else v2025, -32602, 400 if version == MODERN else 200)
    return run


def prompts(version):
    def run():
        meta = META if version == MODERN else None
        module = v2026 if version == MODERN else v2025
        result(*send("prompts/list", version=version, meta=meta), module.ListPromptsResult)
        result(*send("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}}, version=version, meta=meta),
               module.GetPromptResult)
    return run


for version, suffix in ((MODERN, "2026"), ("2025-11-25", "2025")):
    check(f"tools-call-{suffix}", tools_call(version))
    check(f"prompts-list-get-{suffix}", prompts(version))

print(json.dumps({"checks": checks, "validated": validated[0], "answers": next_id[0],
                  "unvalidated": sorted(unvalidated)}))
sys.exit(0 if all(v == "SUCCESS" for v in checks.values()) and not unvalidated else 1)
