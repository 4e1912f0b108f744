"""Open N keep-alive connections to 127.0.0.1:PORT, send one request on each, keep them all
idle, and report the server process's resident memory (VmRSS) before and while they are held.
The connections come from 127.0.0.2, 127.0.0.3, … (200 from each) so the relay's per-address cap
(256 by default) admits them all, as it would admit many clients; the per-address table is then
part of what is measured."""
import socket
import sys
import time


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def main() -> None:
    port, count, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    before = rss_kib(pid)
    request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    sockets = []
    for index in range(count):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_IP, 24, 1)  # IP_BIND_ADDRESS_NO_PORT: the port is chosen at connect
        s.bind((f"127.0.{2 + index // 200 // 250}.{2 + index // 200 % 250}", 0))
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        sockets.append(s)
    answered = 0
    for s in sockets:
        s.settimeout(10)
        if s.recv(4096).startswith(b"HTTP/1.1 200"):
            answered += 1
    time.sleep(1)
    held = rss_kib(pid)
    # Every connection must still be open and usable after the idle period.
    alive = 0
    for s in sockets[:: max(1, count // 100)]:
        s.sendall(request)
        if s.recv(4096).startswith(b"HTTP/1.1 200"):
            alive += 1
    for s in sockets:
        s.close()
    print(
        f"idle connections: {answered}/{count} answered, relay RSS {before / 1024:.1f} MB before, "
        f"{held / 1024:.1f} MB holding {count} idle keep-alive connections "
        f"({(held - before) * 1024 / max(count, 1):.0f} bytes each); {alive} sampled connections still served"
    )


main()
