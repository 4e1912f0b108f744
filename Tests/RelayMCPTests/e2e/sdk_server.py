"""The conformance reference: a small server on the official MCP Python SDK 2.x, serving the same
tools as the relay's test server (the same JSON definitions, read from a file the test writes from
the relay's own tools/list) over stateless Streamable HTTP with JSON responses, so 2026-07-28
requests reach the SDK's modern entry (mcp/server/_streamable_http_modern.py).

    python sdk_server.py TOOLS_JSON [PROMPTS_JSON]

Prints "listening on PORT" once it accepts connections (a kernel-chosen loopback port).
The tools behave like the relay's sample tools (Tests/RelayMCPTests/Support/SampleTools.swift) for
the calls the test makes: echo, argument validation with a tool error naming the field, a tool
failure, an unknown tool. With PROMPTS_JSON it also serves the relay's sample prompts
(Tests/RelayMCPTests/Support/SamplePrompts.swift) with the same argument rules (-32602 for an
unknown prompt, a missing required argument, an undeclared one or a refused value).
"""

import asyncio
import json
import socket
import sys

import jsonschema
import mcp_types as types
import uvicorn
from mcp.server.caching import CacheHint
from mcp.server.lowlevel.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

TOOLS = json.load(open(sys.argv[1]))
PROMPTS = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
BY_NAME = {tool["name"]: tool for tool in TOOLS}
HINT = CacheHint(ttl_ms=3_600_000, scope="public")


def text_result(structured, is_error=False):
    result = {"content": [{"type": "text", "text": json.dumps(structured, separators=(",", ":"))}]}
    result["structuredContent"] = structured
    if is_error:
        result["isError"] = True
    return result


def tool_error(code, message, **extra):
    return {"content": [{"type": "text", "text": message}], "structuredContent": {"error": {"code": code, "message": message, **extra}}, "isError": True}


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in TOOLS])


async def call_tool(ctx, params):
    return types.CallToolResult.model_validate(await run_tool(params))


async def run_tool(params):
    tool = BY_NAME.get(params.name)
    if tool is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {params.name}.")
    arguments = params.arguments or {}
    error = next(iter(jsonschema.Draft202012Validator(tool["inputSchema"]).iter_errors(arguments)), None)
    if error is not None:
        field = ".".join(str(part) for part in error.absolute_path) or None
        return tool_error("INVALID_ARGUMENT", error.message, **({"field": field} if field else {}))
    if params.name == "echo":
        text = " ".join([arguments["text"]] * arguments.get("times", 1))
        return text_result({"echo": text, "user": "alice"})
    if params.name == "fail" and arguments.get("mode") == "tool":
        return tool_error("RATE_LIMITED", "Slow down.", retryAfter=30)
    return {"content": [{"type": "text", "text": params.name}]}


async def list_prompts(ctx, params):
    return types.ListPromptsResult(prompts=[types.Prompt.model_validate(prompt) for prompt in PROMPTS])


async def get_prompt(ctx, params):
    prompt = next((p for p in PROMPTS if p["name"] == params.name), None)
    if prompt is None:
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {params.name}.")
    arguments = {k: v for k, v in (params.arguments or {}).items() if v.strip()}
    declared = [a["name"] for a in prompt.get("arguments", [])]
    for key in arguments:
        if key not in declared:
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown argument {key}.")
    for argument in prompt.get("arguments", []):
        if argument.get("required") and argument["name"] not in arguments:
            raise MCPError(code=INVALID_PARAMS, message=f"Missing required argument {argument['name']}.")
    if params.name == "greet":
        style = arguments.get("style", "plain")
        if style not in ("plain", "loud"):
            raise MCPError(code=INVALID_PARAMS, message="Invalid argument style.")
        text = f"Say hello to {arguments['name']}." if style == "plain" else f"SAY HELLO TO {arguments['name'].upper()}!"
        return types.GetPromptResult(
            description="A greeting", messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))]
        )
    return types.GetPromptResult(
        messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text="Are you there?")),
            types.PromptMessage(role="assistant", content=types.TextContent(type="text", text="I am. What shall we do?")),
        ]
    )


prompt_handlers = {"on_list_prompts": list_prompts, "on_get_prompt": get_prompt} if PROMPTS is not None else {}
hints = {"tools/list": HINT, "server/discover": HINT}
if PROMPTS is not None:
    hints["prompts/list"] = HINT

server = Server(
    "test-relay",
    version="0.1.0",
    title="Test Relay",
    instructions="Call get_me first.",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    cache_hints=hints,
    **prompt_handlers,
)
app = server.streamable_http_app(json_response=True, stateless_http=True)


async def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    task = asyncio.create_task(web.serve(sockets=[listener]))
    while not web.started:
        await asyncio.sleep(0.05)
    print(f"listening on {listener.getsockname()[1]}", flush=True)
    await task


asyncio.run(main())
