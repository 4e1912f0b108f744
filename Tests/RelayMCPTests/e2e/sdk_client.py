"""Drives the relay's MCP endpoint with the official MCP Python SDK, 1.x or 2.x (whichever this
interpreter has), and prints one JSON summary line for the Swift test to check.

Usage: python sdk_client.py URL TOKEN [MODE]
  TOKEN may be "-" for no Authorization header; MODE (2.x only) is the Client's mode: "auto" (the
  default: probe server/discover, fall back to initialize) or "legacy" (initialize only).
"""

import asyncio
import json
import sys
from importlib import metadata

URL, TOKEN = sys.argv[1], sys.argv[2]
MODE = sys.argv[3] if len(sys.argv) > 3 else "auto"
HEADERS = {} if TOKEN == "-" else {"Authorization": f"Bearer {TOKEN}"}
SDK = metadata.version("mcp")


def field(obj, *names):
    """Reads the first attribute that exists: the SDKs differ (camelCase in 1.x, snake_case in 2.x)."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names)


def error_code(error):
    """The JSON-RPC code of an SDK error (2.x: MCPError.code; 1.x: McpError.error.code)."""
    code = getattr(error, "code", None)
    if code is None and hasattr(error, "error"):
        code = error.error.code
    return code if code is not None else type(error).__name__


def describe_call(result):
    return {
        "isError": bool(field(result, "is_error", "isError")),
        "structured": field(result, "structured_content", "structuredContent"),
        "text": [block.text for block in result.content if getattr(block, "type", "") == "text"],
    }


async def exercise(client, summary):
    """The same calls on both SDK lines; `client` has list_tools/call_tool/list_prompts."""
    names, cursor, pages = [], None, 0
    while True:
        page = await client.list_tools(cursor=cursor) if cursor else await client.list_tools()
        pages += 1
        names += [tool.name for tool in page.tools]
        cursor = field(page, "next_cursor", "nextCursor")
        if not cursor or pages > 10:
            break
    summary["tools"] = names
    summary["pages"] = pages
    summary["echo"] = describe_call(await client.call_tool("echo", {"text": "hi", "times": 2}))
    summary["invalid"] = describe_call(await client.call_tool("echo", {"text": "hi", "times": 9}))
    try:
        listed = await client.list_prompts()
        summary["prompts"] = "answered"
    except Exception as error:  # the server has no prompts: an MCP error, not a dead connection
        summary["prompts"] = type(error).__name__
    else:
        summary["promptList"] = [
            {"name": p.name, "title": getattr(p, "title", None), "arguments": [a.name for a in p.arguments or []]}
            for p in listed.prompts
        ]
        got = await client.get_prompt("greet", {"name": "Ann", "style": "loud"})
        summary["greet"] = {
            "description": got.description,
            "messages": [[m.role, m.content.text] for m in got.messages],
        }
        errors = {}
        for label, name, arguments in [
            ("unknown", "nope", {}),
            ("missing", "greet", {}),
            ("unknownArgument", "greet", {"name": "Ann", "mood": "x"}),
            ("badValue", "greet", {"name": "Ann", "style": "shouty"}),
        ]:
            try:
                await client.get_prompt(name, arguments)
                errors[label] = "answered"
            except Exception as error:
                errors[label] = error_code(error)
        summary["promptErrors"] = errors
    await resources(client, summary)
    summary["afterError"] = describe_call(await client.call_tool("echo", {"text": "still here"}))


async def resources(client, summary):
    """resources/list and resources/read, parsed by the SDK's own types (the spec's wire schema), and a
    URI not served (the conformance suite's sep-2164-resource-not-found)."""
    try:
        listed = await client.list_resources()
    except Exception as error:  # the server has no resources: an MCP error, not a dead connection
        summary["resources"] = type(error).__name__
        return
    summary["resources"] = [
        {"uri": str(r.uri), "name": r.name, "mimeType": field(r, "mime_type", "mimeType")} for r in listed.resources
    ]
    if listed.resources:
        read = await client.read_resource(str(listed.resources[0].uri))
        summary["read"] = [
            {"uri": str(c.uri), "mimeType": field(c, "mime_type", "mimeType"), "text": getattr(c, "text", None),
             "meta": field(c, "meta", "_meta")}
            for c in read.contents
        ]
    try:
        await client.read_resource("test://nonexistent-resource-for-conformance-testing")
        summary["missing"] = "answered"
    except Exception as error:
        summary["missing"] = error_code(error)


async def run_v1(summary):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    async with streamablehttp_client(URL, headers=HEADERS) as (read, write, get_session_id):
        async with ClientSession(read, write) as session:
            result = await session.initialize()
            summary["protocolVersion"] = result.protocolVersion
            summary["serverName"] = result.serverInfo.name
            summary["instructions"] = result.instructions
            await exercise(session, summary)
            summary["sessionId"] = get_session_id()


async def run_v2(summary):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=HEADERS) as http:
        # mode="auto" (the default) probes server/discover: a 2026-07-28 server answers it and the
        # client never sends initialize; mode="legacy" starts with initialize.
        async with Client(streamable_http_client(URL, http_client=http), mode=MODE) as client:
            summary["protocolVersion"] = client.protocol_version
            summary["serverName"] = client.server_info.name if client.server_info else None
            summary["instructions"] = client.instructions
            summary["capabilities"] = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
            await exercise(client, summary)
            if client.protocol_version >= "2026-07-28":
                summary["listen"] = await listen(client)


async def listen(client):
    """subscriptions/listen: what the server agreed to send, and how the stream ended."""
    from mcp.client.subscriptions import SubscriptionLost

    try:
        async with client.listen(tools_list_changed=True, prompts_list_changed=True) as subscription:
            events = [type(event).__name__ async for event in subscription]
            honored = subscription.honored.model_dump(by_alias=True, exclude_none=True)
            return {"honored": honored, "events": events, "end": "graceful"}
    except SubscriptionLost as error:
        return {"end": "lost", "error": str(error)}


async def main():
    summary = {"sdk": SDK}
    await (run_v1(summary) if SDK.startswith("1.") else run_v2(summary))
    print(json.dumps(summary))


asyncio.run(main())
