"""An HTTPS server speaking HTTP/2 (h2, through ALPN) that refuses streams on purpose.

On the first connection it answers the first KEEP streams and resets every later one with
RST_STREAM(REFUSED_STREAM) (RFC 9113 §8.7: a refused stream was not processed, so a client may
send it again, even a POST, on another connection). Every later connection answers everything.
It advertises no stream limit, so a client sends the whole burst and the refusal does not depend
on a race with the server's SETTINGS.

Usage: python3 refusing_h2_server.py CERT KEY KEEP
Prints "port N" once listening, then one line per stream: "answered BODY" or "refused BODY".
Exits when the process that started it dies.
"""

import os
import socket
import ssl
import sys
import threading

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions

PARENT = os.getppid()
LOCK = threading.Lock()
CONNECTIONS = [0]


def say(line):
    with LOCK:
        print(line, flush=True)


def serve(raw, context, keep):
    with LOCK:
        CONNECTIONS[0] += 1
        first = CONNECTIONS[0] == 1
    try:
        sock = context.wrap_socket(raw, server_side=True)
    except (ssl.SSLError, OSError):
        raw.close()
        return
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    bodies, taken = {}, 0
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.RequestReceived):
                    bodies[event.stream_id] = b""
                elif isinstance(event, h2.events.DataReceived):
                    bodies[event.stream_id] = bodies.get(event.stream_id, b"") + event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    body = bodies.pop(event.stream_id, b"")
                    taken += 1
                    if first and taken > keep:
                        conn.reset_stream(event.stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
                        say("refused " + body.decode())
                    else:
                        conn.send_headers(
                            event.stream_id,
                            [(":status", "200"), ("content-type", "text/plain"), ("content-length", str(len(body)))],
                        )
                        conn.send_data(event.stream_id, body, end_stream=True)
                        say("answered " + body.decode())
            sock.sendall(conn.data_to_send())
    except (OSError, h2.exceptions.ProtocolError):
        return
    finally:
        sock.close()


def watch_parent():
    while True:
        if os.getppid() != PARENT:
            os._exit(0)
        threading.Event().wait(0.5)


def main():
    cert, key, keep = sys.argv[1], sys.argv[2], int(sys.argv[3])
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["h2"])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    threading.Thread(target=watch_parent, daemon=True).start()
    say("port %d" % listener.getsockname()[1])
    while True:
        raw, _ = listener.accept()
        threading.Thread(target=serve, args=(raw, context, keep), daemon=True).start()


if __name__ == "__main__":
    main()
