# fake_link_peer.py — a link peer for tests/hosts that says a valid HELLO (as a host), reads the
# switch's HELLO, prints its own endpoint id, calls an endpoint (a SETUP on VCI 32768 with a large
# credit for the cells coming back), and then never reads again (python3, standard library only).
#
#   fake_link_peer.py HOST PORT CALLED_EP SECONDS
#       connects to the switch at HOST:PORT, prints "ep N", calls CALLED_EP ("-": the first
#       line of stdin, waited for up to SECONDS), prints "called M", holds the connection open
#       without reading for SECONDS, then closes it.
import select
import socket
import struct
import sys
import time

VCI = 32768
GEN = 1
WINDOW = 1 << 20          # the largest window a HELLO may offer: credit for ~53 MB of cells


def hec(header4):
    crc = 0
    for b in header4:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc ^ 0x55


def aal5_crc32(data):
    reg = 0xFFFFFFFF
    for b in data:
        reg ^= b << 24
        for _ in range(8):
            reg = ((reg << 1) ^ 0x04C11DB7) & 0xFFFFFFFF if reg & 0x80000000 else (reg << 1) & 0xFFFFFFFF
    return reg ^ 0xFFFFFFFF


def sig_cell(msg):
    """One signalling message as the one-cell AAL5 PDU on VPI 0/VCI 5 (last cell: PTI 1)."""
    body = msg + bytes(40 - len(msg)) + struct.pack(">BBH", 0, 0, len(msg))
    payload = body + struct.pack(">I", aal5_crc32(body))
    vci, pti = 5, 1
    header = bytes([0, vci >> 12 & 0xF, vci >> 4 & 0xFF, (vci & 0xF) << 4 | pti << 1])
    return header + bytes([hec(header)]) + payload


def record(rtype, body):
    return struct.pack(">BBH", rtype, 0, len(body)) + body


def read_exactly(sock, n, deadline):
    data = b""
    while len(data) < n:
        sock.settimeout(max(deadline - time.monotonic(), 0.01))
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise OSError("the switch closed the link")
        data += chunk
    return data


def main(argv):
    host, port, called, seconds = argv[1], int(argv[2]), argv[3], float(argv[4])
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    # a small receive buffer (set before connecting, so the window is small too): the
    # switch's output backs up sooner
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(addr)
    hello = struct.pack(">IHHIIIIHH", 0x414E3246, 1, 1, 0, 0, WINDOW, 10000, 1, 0)
    sock.sendall(record(1, hello))
    reply = read_exactly(sock, 4 + 28, time.monotonic() + 5)
    if reply[0] != 1:
        print("the switch did not answer with HELLO", file=sys.stderr)
        return 1
    host_addr = struct.unpack(">I", reply[4 + 12:4 + 16])[0]
    my_ep = host_addr << 16 | 1
    print(f"ep {my_ep}", flush=True)
    if called == "-":
        if not select.select([sys.stdin], [], [], seconds)[0]:
            print(f"no endpoint to call on stdin within {seconds:.0f} s", file=sys.stderr)
            return 1
        called = sys.stdin.readline().strip()
    called_ep = int(called)
    setup = struct.pack(">BBBBHHIIIIII", 1, 0, 0, 0, VCI, GEN, host_addr, called_ep >> 16,
                        my_ep, called_ep, 0, 0)
    credit = struct.pack(">HHI", VCI, GEN, WINDOW)
    sock.sendall(record(2, sig_cell(setup)) + record(3, credit))
    print(f"called {called_ep}", flush=True)
    time.sleep(seconds)   # never reading again
    sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
