"""The MCP specification's published JSON schemas (vendored in spec-schema/, sources in its SOURCE.md) as
checks for an answer: the `jsonschema` package validates the whole JSON-RPC message and its result (or
error) type, then `extras` names every member the schema does not (the schemas leave most objects open,
so a misspelt member would otherwise pass). Used by wire_check.py (the conformance checks) and by the
MCP Apps host walk (the relay's real answers)."""

import json
import os

import jsonschema

MODERN = "2026-07-28"
HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = {v: json.load(open(os.path.join(HERE, "spec-schema", v + ".json")))
           for v in ("2025-06-18", "2025-11-25", MODERN)}
# Members the schema of a revision does not name but the relay sends on purpose, each with its reason.
# capabilities.extensions: MCP Apps' io.modelcontextprotocol/ui in a 2025 initialize (ext-apps
# specification/2026-01-26/apps.mdx, "Server Capabilities"); the 2026-07-28 schema names it.
KNOWN_EXTRAS = {("2025-06-18", "capabilities.extensions"), ("2025-11-25", "capabilities.extensions")}
# Objects whose members are not the protocol's: JSON Schemas, tool output, metadata, arguments.
OPEN = {"inputSchema", "outputSchema", "structuredContent", "_meta", "experimental", "arguments", "data",
        "extensions", "properties"}
def defs(version):
    return SCHEMAS[version].get("$defs") or SCHEMAS[version]["definitions"]


def validator(version, name):
    schema = SCHEMAS[version]
    key = "$defs" if "$defs" in schema else "definitions"
    root = {"$schema": schema["$schema"], key: schema[key], "$ref": f"#/{key}/{name}"}
    return jsonschema.validators.validator_for(root)(root)


def resolve(version, node):
    while isinstance(node, dict) and "$ref" in node:
        node = defs(version)[node["$ref"].split("/")[-1]]
    return node


def flatten(version, node):
    """`node` with its `$ref` resolved and its `allOf` parts' members merged into one `properties`."""
    node = resolve(version, node)
    if not isinstance(node, dict) or "allOf" not in node:
        return node
    merged = {k: v for k, v in node.items() if k != "allOf"}
    for part in node["allOf"]:
        part = flatten(version, part)
        if "properties" in part:
            merged["properties"] = {**part["properties"], **merged.get("properties", {})}
        if "additionalProperties" in part:
            merged["additionalProperties"] = part["additionalProperties"]
    return merged


def extras(version, node, value, path, found):
    """Members of `value` that `node` (a subschema) does not name, where it names its members."""
    node = flatten(version, node)
    if not isinstance(node, dict):
        return
    for key in ("anyOf", "oneOf"):
        if key in node:  # the branch the value matches
            for branch in node[key]:
                if jsonschema.validators.validator_for(SCHEMAS[version])(
                        {**SCHEMAS[version], **resolve(version, branch)}).is_valid(value):
                    extras(version, branch, value, path, found)
                    return
    if isinstance(value, dict) and "properties" in node:
        for member, inner in value.items():
            here = f"{path}.{member}" if path else member
            if member in node["properties"]:
                if member not in OPEN:
                    extras(version, node["properties"][member], inner, here, found)
            elif "additionalProperties" not in node and (version, here) not in KNOWN_EXTRAS:
                found.append(here)
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for index, item in enumerate(value):
            extras(version, node["items"], item, f"{path}[{index}]", found)




def envelope(message, version):
    """The JSON-RPC envelope type of an answer in `version`."""
    if "error" in message:
        return "JSONRPCError" if version == "2025-06-18" else "JSONRPCErrorResponse"
    return "JSONRPCResponse" if version == "2025-06-18" else "JSONRPCResultResponse"


def problems(message, name, version):
    """What is wrong with `message` (a whole answer) as `name` in `version`: the envelope, then `result` as
    `name` (or, when `name` is an error type, the message or its `error` object, as the type says), then
    unnamed members. [] if nothing."""
    targets = [(envelope(message, version), message)]
    if "result" in message:
        targets.append((name, message["result"]))
    elif name.endswith("Error") and name != envelope(message, version):
        # One of the 2026 error types. An error answering a request for a result is checked by its envelope.
        whole = "error" in defs(version)[name].get("properties", {})
        targets.append((name, message if whole else message["error"]))
    for schema_name, value in targets:
        errors = sorted(validator(version, schema_name).iter_errors(value), key=lambda e: list(e.path))
        if errors:
            return [f"{version} {schema_name}: {errors[0].message} at {list(errors[0].path)}"]
    found = []
    extras(version, defs(version)[targets[-1][0]], targets[-1][1], "", found)
    return [f"{version} {targets[-1][0]}: members the schema does not name: {found}"] if found else []
