"""Stands in for the hosts of client ID metadata documents (claude.ai, vscode.dev, chatgpt.com…)
so the relay's real fetcher can load a client's real document in a test.

It is an HTTP CONNECT proxy that answers every tunnel itself: after `CONNECT host:443` it speaks
TLS with a certificate from the test's throwaway CA naming every host, reads one GET, and serves
the document published at `https://host/path`, byte for byte as given (or 404). The relay's HTTP
client is pointed at it as its proxy and trusts the CA; nothing else changes on the relay's path.

    python document_host.py CERT KEY DOCUMENTS_JSON
      DOCUMENTS_JSON: {"https://claude.ai/oauth/…": "<document text>", …}

Prints {"port": N} once listening, then one {"fetched": URL} line per document served.
Standard library only."""

import asyncio
import json
import ssl
import sys


async def main(cert, key, documents_file):
    with open(documents_file, encoding="utf-8") as handle:
        documents = json.load(handle)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def handle(reader, writer):
        try:
            await serve(reader, writer, context, documents)
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(json.dumps({"port": server.sockets[0].getsockname()[1]}), flush=True)
    async with server:
        await server.serve_forever()


async def read_head(reader):
    lines = []
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            return lines
        lines.append(line.decode("latin-1").rstrip("\r\n"))


async def serve(reader, writer, context, documents):
    head = await read_head(reader)
    parts = head[0].split() if head else []
    if len(parts) != 3 or parts[0] != "CONNECT":
        writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        return
    host = parts[1].rsplit(":", 1)[0]
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await writer.drain()
    await writer.start_tls(context, server_hostname=None)
    request = await read_head(reader)
    method, path = (request[0].split() + ["", ""])[:2] if request else ("", "")
    url = f"https://{host}{path}"
    document = documents.get(url) if method == "GET" else None
    if document is None:
        body, status = b'{"error":"not found"}', b"404 Not Found"
    else:
        body, status = document.encode("utf-8"), b"200 OK"
        print(json.dumps({"fetched": url}), flush=True)
    writer.write(
        b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nCache-Control: public, max-age=300\r\n"
        + b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )
    await writer.drain()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
