"""`search` and `fetch` used the way ChatGPT's deep research and company knowledge use them (issue 14 item 9),
driven by the official MCP Python SDK (1.x or 2.x, whichever this interpreter has) against the relay's MCP
endpoint, whose CloudKit is the emulator over HTTP.

    python chatgpt_search_fetch.py MCP_URL TOKEN EMULATOR_URL APPLE_ID

What is checked is what OpenAI documents ("Building MCP servers for ChatGPT and API integrations"): tools named
`search` (one string argument `query`) and `fetch` (one string argument `id`), read-only; each answers exactly one
content item of type "text" whose text is JSON: `{"results": [{"id", "title", "url"}]}` for search,
`{"id", "title", "text", "url", "metadata"}` for fetch. The script reads the JSON from that text item (as
ChatGPT does), and checks that `structuredContent` says the same. Prints one JSON line {"sdk", "checks",
"calls", "failures"}; exits 1 when a check failed. A refusal is a tool error whose text is the message for the
model and whose structuredContent holds {"error": {code, message, field}}.
"""

from __future__ import annotations

import json
import sys

import sdk_run
from sdk_run import Checks, post, stamp, text, tool_result

MCP_URL, TOKEN, EMULATOR, USER = sys.argv[1:5]


def todo(name: str, title: str, due: str | None, **extra) -> dict:
    fields = {"title": text(title), "timeZone": text("Asia/Tokyo"), "status": text("pending"),
              "source": text("app"), "sound": text("chime"), "createdAt": stamp("2026-05-01T00:00:00+00:00"),
              "changedAt": stamp("2026-05-01T00:00:00+00:00")}
    if due:
        fields["dueAt"] = stamp(due)
    fields.update(extra)
    return {"recordName": name, "recordType": "Todo", "fields": fields}


class Run(Checks):
    async def call(self, name: str, arguments: dict) -> tuple[bool, dict | None, dict]:
        """Calls a tool as ChatGPT does; the document is the JSON in the one text item."""
        self.calls += 1
        result = await self.client.call_tool(name, arguments)
        is_error, structured, _ = tool_result(result)
        structured = structured or {}
        items = list(result.content)
        self.expect(len(items) == 1 and getattr(items[0], "type", "") == "text",
                    f"{name}: exactly one text content item", [getattr(item, "type", "?") for item in items])
        if is_error:
            # A refusal's text is the message for the model; the code and field are in structuredContent.
            return is_error, structured, structured
        try:
            document = json.loads(items[0].text) if items else None
        except ValueError:
            document = None
        self.expect(isinstance(document, dict), f"{name}: the text item is a JSON object", items[0].text[:200])
        self.expect(document == structured, f"{name}: structuredContent says the same as the text", structured)
        return is_error, document, structured


async def exercise(client) -> Run:
    run = Run(client)

    # tools/list: the two tools ChatGPT looks for, with its argument shapes, read-only.
    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    for name, argument in (("search", "query"), ("fetch", "id")):
        tool = tools.get(name)
        run.expect(tool is not None, f"{name} is listed", sorted(tools))
        if tool is None:
            continue
        schema = tool.inputSchema if hasattr(tool, "inputSchema") else tool.input_schema
        run.expect(schema.get("required") == [argument] and list(schema.get("properties", {})) == [argument]
                   and schema["properties"][argument].get("type") == "string", f"{name}: takes one string {argument}",
                   schema)
        annotations = tool.annotations
        read_only = getattr(annotations, "readOnlyHint", None)
        if read_only is None:
            read_only = getattr(annotations, "read_only_hint", None)
        run.expect(read_only is True, f"{name}: readOnlyHint", str(annotations))

    # Records as the app writes them: more than one records/query page, a Japanese title, notes, a repeat, a
    # deleted to-do.
    records = [todo(f"bulk-{index:03d}", "Bulk errand", "2026-06-20T00:00:00+00:00") for index in range(230)]
    records += [
        todo("dentist", "Dentist appointment", "2026-06-12T00:00:00+00:00", notes=text("Bring the insurance card")),
        todo("milk", "牛乳を買う", "2026-06-11T00:00:00+00:00", notes=text("歯医者の帰りに")),
        todo("old-dentist", "Dentist (cancelled)", "2026-06-05T00:00:00+00:00",
             deletedAt=stamp("2026-06-01T00:00:00+00:00")),
        todo("floss", "Floss", "2026-06-01T01:00:00+00:00",
             repeatRule=text('{"kind":"daily","interval":1,"weekdays":[],"end":{"kind":"never"}}'),
             notes=text("the dentist said so")),
    ]
    post(f"{EMULATOR}/control/users/{USER}/records", {"records": records})
    post(f"{EMULATOR}/control/users/{USER}/records", {"records": [
        {"recordName": "account", "recordType": "Account", "fields": {"timeZone": text("Asia/Tokyo")}}]})

    is_error, found, _ = await run.call("search", {"query": "dentist"})
    results = (found or {}).get("results", [])
    run.expect(not is_error and [r.get("id") for r in results] == ["dentist", "floss"], "search: dentist", found)
    for result in results:
        run.expect({"id", "title", "url"} <= set(result) and all(isinstance(result[key], str) for key in result),
                   "search: each result has string id, title, url", result)
    run.expect(results[:1] and results[0].get("title") == "Dentist appointment", "search: titles", results)

    is_error, found, _ = await run.call("search", {"query": "ＤＥＮＴＩＳＴ　ｉｎｓｕｒａｎｃｅ"})
    run.expect(not is_error and [r["id"] for r in (found or {}).get("results", [])] == ["dentist"],
               "search: full-width words, notes", found)
    is_error, found, _ = await run.call("search", {"query": "牛乳"})
    run.expect(not is_error and [r["id"] for r in (found or {}).get("results", [])] == ["milk"],
               "search: Japanese by substring", found)
    is_error, found, _ = await run.call("search", {"query": "cancelled"})
    run.expect(not is_error and found == {"results": [], "complete": True}, "search: deleted to-dos never appear",
               found)

    # fetch every result by the id search gave, as deep research does.
    for wanted in ("dentist", "floss", "milk"):
        is_error, document, _ = await run.call("fetch", {"id": wanted})
        document = document or {}
        run.expect(not is_error and set(document) == {"id", "title", "text", "url", "metadata"},
                   f"fetch {wanted}: the document's fields", document)
        run.expect(document.get("id") == wanted and isinstance(document.get("text"), str)
                   and isinstance(document.get("url"), str) and isinstance(document.get("metadata"), dict),
                   f"fetch {wanted}: types", document)
        run.expect(document.get("metadata", {}).get("timeZone") == "Asia/Tokyo", f"fetch {wanted}: zone", document)
    _, dentist, _ = await run.call("fetch", {"id": "dentist"})
    body = (dentist or {}).get("text", "")
    run.expect("Due: Friday 2026-06-12 09:00." in body and body.endswith("Notes:\nBring the insurance card"),
               "fetch: the to-do in plain words, in the account zone", body)
    run.expect((dentist or {}).get("metadata", {}).get("due") == "2026-06-12T09:00:00+09:00", "fetch: due", dentist)

    # Refusals are tool errors with a JSON body naming the argument.
    is_error, refused, _ = await run.call("fetch", {"id": "old-dentist"})
    run.expect(is_error and (refused or {}).get("error", {}).get("code") == "NOT_FOUND", "fetch: deleted", refused)
    is_error, refused, _ = await run.call("fetch", {"id": "_nope"})
    run.expect(is_error and (refused or {}).get("error", {}).get("field") == "id", "fetch: bad id", refused)
    is_error, refused, _ = await run.call("search", {"query": "?!"})
    run.expect(is_error and (refused or {}).get("error", {}).get("field") == "query", "search: no word", refused)
    return run


if __name__ == "__main__":
    sdk_run.main(MCP_URL, TOKEN, exercise)
