-- wrk script for MCP POSTs: wrk -s bench/lib/mcp.lua URL -- METHOD TOKEN_FILE
-- METHOD is tools/list or get_me (a tools/call) as a 2025-11-25 client sends them, or get_me@2026:
-- the same call as a 2026-07-28 client sends it (per-request _meta, Mcp-Method and Mcp-Name headers,
-- no session). TOKEN_FILE holds one bearer token per line; the
-- requests cycle through them, each wrk thread from its own offset. Requests are formatted once
-- in init, so the generator spends no time building them. With WRK_CHECK=1 in the environment,
-- every response is also checked (status 200, no "isError":true in the body) and done() prints
-- "tool errors: N" (wrk reads bodies only when the script defines response(), so it is opt-in).
local requests = {}
local index = 0
local bodies = {
    ["tools/list"] = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    ["get_me"] = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me","arguments":{}}}',
    ["get_me@2026"] = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_me","arguments":{},'
        .. '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
        .. '"io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},'
        .. '"io.modelcontextprotocol/clientCapabilities":{}}}}',
}
-- The routing headers of each request kind, besides the common ones.
local routing = {
    ["tools/list"] = { ["MCP-Protocol-Version"] = "2025-11-25" },
    ["get_me"] = { ["MCP-Protocol-Version"] = "2025-11-25" },
    ["get_me@2026"] = { ["MCP-Protocol-Version"] = "2026-07-28", ["Mcp-Method"] = "tools/call", ["Mcp-Name"] = "get_me" },
}
local threads = {}
tool_errors = 0

function setup(thread)
    thread:set("offset", #threads)
    table.insert(threads, thread)
end

function init(args)
    local body = assert(bodies[args[1]], "method must be tools/list, get_me or get_me@2026")
    for token in io.lines(args[2]) do
        local headers = {
            ["Content-Type"] = "application/json",
            ["Accept"] = "application/json, text/event-stream",
            ["Authorization"] = "Bearer " .. token,
        }
        for name, value in pairs(routing[args[1]]) do headers[name] = value end
        requests[#requests + 1] = wrk.format("POST", nil, headers, body)
    end
    index = (offset or 0) * math.floor(#requests / 2)
end

if os.getenv("WRK_CHECK") == "1" then
    function response(status, headers, body)
        if status ~= 200 or string.find(body, '"isError":true', 1, true) then
            tool_errors = tool_errors + 1
        end
    end
end

function done(summary, latency, requests)
    local total = 0
    for _, thread in ipairs(threads) do
        total = total + (thread:get("tool_errors") or 0)
    end
    if response then io.write(string.format("tool errors: %d\n", total)) end
end

function request()
    index = index % #requests + 1
    return requests[index]
end
