# link_peer.py — a stranger or a rogue host on an AN2 fabric, for tests/hosts: it speaks the
# link protocol (otto-emul/include/an2_fiber.h, an2_link_auth.h) with python3's standard library
# alone, to show what the switch and the an2ds refuse.
#
#   link_peer.py HOST PORT MODE [ARGS]      the switch at HOST:PORT; AN2_AUTH=key:FILE: the key
#                                           it proves itself with (unset: it cannot)
# Modes (each prints what it saw; exit 0 when that is what the mode looks for, else 1; every
# wait is bounded by 30 s):
#   raw HEX           handshake (with a key), then the bytes HEX; waits until the switch closes
#                     the connection: prints "closed"
#   noauth HEX        the bytes HEX without any handshake; waits until closed: "closed"
#   replay            a whole handshake with the key, recorded; then a second connection that
#                     sends the recorded records again (no key used): "closed" when refused
#   spoof-setup VICTIM_HOST CALLED_HOST
#                     HELLO; a SETUP that claims to come from host VICTIM_HOST (an address
#                     a.b as an integer) to a missing endpoint of CALLED_HOST, then a SETUP of
#                     its own to another missing endpoint there; prints the first answer:
#                     "release vci V cause C" (V = 32769, its own, if the spoof got no answer)
#   spoof-found VICTIM_HOST ASKER_HOST
#                     HELLO; a FOUND that claims VICTIM_HOST holds a name asked for by
#                     ASKER_HOST, then a SETUP of its own to a missing endpoint of ASKER_HOST;
#                     prints the first answer, as spoof-setup
#   call CALLED_EP UID
#                     HELLO; calls CALLED_EP with a SETUP of its own that says its task is of
#                     uid UID; prints the answer: "release vci V cause C" or "connect vci V"
#   stuck CALLED_EP|- SECONDS
#                     HELLO, prints "ep N" (its endpoint id); calls CALLED_EP ("-": the first
#                     line of stdin) with a large credit, prints "called M", then never reads
#                     again for SECONDS
import hashlib
import os
import select
import socket
import struct
import sys
import time

WAIT = 30.0
WINDOW = 1 << 20          # the largest window a HELLO may offer
VERSION = 2
HELLO, CELLS, CREDIT, KEEPALIVE, AUTH_NONCE, AUTH_PROOF = 1, 2, 3, 4, 5, 6
SETUP, CONNECT, RELEASE, LOOKUP, FOUND = 1, 2, 3, 4, 5


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


def sig_msg(mtype, vci, calling_host=0, called_host=0, calling_ep=0, called_ep=0, name=0,
            call_ref=0, uid=0, gen=1, cause=0, hops=0):
    return struct.pack(">BBBBHHIIIIIII", mtype, cause, hops, 0, vci, gen, calling_host,
                       called_host, calling_ep, called_ep, name, call_ref, uid)


def sig_cell(msg):
    """One signalling message as the one-cell AAL5 PDU on VPI 0/VCI 5 (last cell: PTI 1)."""
    body = msg + bytes(40 - len(msg)) + struct.pack(">BBH", 0, 0, len(msg))
    payload = body + struct.pack(">I", aal5_crc32(body))
    vci, pti = 5, 1
    header = bytes([0, vci >> 12 & 0xF, vci >> 4 & 0xFF, (vci & 0xF) << 4 | pti << 1])
    return header + bytes([hec(header)]) + payload


def hmac_sha256(key, msg):
    """HMAC-SHA-256 (RFC 2104) with hashlib alone (python3-minimal has no hmac module)."""
    key = key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key) + msg).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in key) + inner).digest()


def record(rtype, body):
    return struct.pack(">BBH", rtype, 0, len(body)) + body


class Peer:
    def __init__(self, host, port, rcvbuf=0):
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0]
        self.sock = socket.socket(family, kind, proto)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(WAIT)
        self.sock.connect(addr)
        self.deadline = time.monotonic() + WAIT
        self.sent = []

    def send(self, data):
        self.sent.append(data)
        self.sock.sendall(data)

    def read_exactly(self, n):
        data = b""
        while len(data) < n:
            self.sock.settimeout(max(self.deadline - time.monotonic(), 0.01))
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("closed")
            data += chunk
        return data

    def read_record(self):
        hdr = self.read_exactly(4)
        return hdr[0], self.read_exactly(hdr[2] << 8 | hdr[3])

    def wait_closed(self):
        """True once the other end closes (or resets) the connection."""
        try:
            while time.monotonic() < self.deadline:
                self.sock.settimeout(max(self.deadline - time.monotonic(), 0.01))
                if not self.sock.recv(65536):
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            pass
        return False

    def handshake(self, key):
        """Our nonce, theirs, our proof (HMAC-SHA-256 with SHA-256 of the key file), theirs."""
        nonce = os.urandom(32)
        self.send(record(AUTH_NONCE, struct.pack(">IHH", 0x414E3241, VERSION, 1) + nonce))
        rtype, body = self.read_record()
        if rtype != AUTH_NONCE:
            raise EOFError(f"the switch sent record {rtype}, not its nonce")
        theirs = body[8:40]
        digest = hashlib.sha256(b"AN2 link auth 1" + bytes([1, ord("C")]) + nonce + theirs).digest()
        self.send(record(AUTH_PROOF, hmac_sha256(key, digest)))
        rtype, _ = self.read_record()
        if rtype != AUTH_PROOF:
            raise EOFError(f"the switch sent record {rtype}, not its proof")

    def hello(self):
        """Our HELLO as a host; the switch's: the address it gives us."""
        self.send(record(HELLO, struct.pack(">IHHIIIIHH", 0x414E3246, VERSION, 1, 0, 0, WINDOW,
                                            10000, 1, 0)))
        rtype, body = self.read_record()
        if rtype != HELLO:
            raise EOFError("the switch did not answer with HELLO")
        return struct.unpack(">I", body[12:16])[0]

    def next_sig(self):
        """The next signalling message that comes: (type, vci, cause)."""
        while True:
            rtype, body = self.read_record()
            if rtype != CELLS:
                continue
            for off in range(0, len(body), 53):
                cell = body[off:off + 53]
                vci = (cell[1] & 0xF) << 12 | cell[2] << 4 | cell[3] >> 4
                if vci == 5:
                    m = cell[5:5 + 36]
                    return m[0], struct.unpack(">H", m[4:6])[0], m[1]


def key_from_env():
    spec = os.environ.get("AN2_AUTH", "")
    if not spec.startswith("key:"):
        return None
    with open(spec[4:], "rb") as f:
        return hashlib.sha256(f.read()).digest()


def authenticated(host, port, rcvbuf=0):
    key = key_from_env()
    if key is None:
        raise SystemExit("this mode needs AN2_AUTH=key:FILE")
    p = Peer(host, port, rcvbuf)
    p.handshake(key)
    return p


def answer(p):
    mtype, vci, cause = p.next_sig()
    if mtype == RELEASE:
        return f"release vci {vci} cause {cause}"
    return f"{'connect' if mtype == CONNECT else 'type ' + str(mtype)} vci {vci}"


def main(argv):
    host, port, mode, args = argv[1], int(argv[2]), argv[3], argv[4:]
    if mode in ("raw", "noauth"):
        p = authenticated(host, port) if mode == "raw" else Peer(host, port)
        try:
            p.send(bytes.fromhex(args[0]))
        except (BrokenPipeError, ConnectionResetError):
            pass
        closed = p.wait_closed()
        print("closed" if closed else "still open")
        return 0 if closed else 1
    if mode == "replay":
        first = authenticated(host, port)
        recorded = b"".join(first.sent)
        first.sock.close()
        p = Peer(host, port)
        try:
            p.send(recorded)
        except (BrokenPipeError, ConnectionResetError):
            pass
        closed = p.wait_closed()
        print("closed" if closed else "still open")
        return 0 if closed else 1
    if mode in ("spoof-setup", "spoof-found"):
        p = authenticated(host, port)
        own = p.hello()
        victim, other = int(args[0]), int(args[1])
        if mode == "spoof-setup":
            lie = sig_msg(SETUP, 32768, calling_host=victim, called_host=other,
                          calling_ep=victim << 16 | 1, called_ep=other << 16 | 0xFFF0)
        else:
            lie = sig_msg(FOUND, 0, calling_host=other, called_host=victim,
                          called_ep=victim << 16 | 1, name=12345, call_ref=1)
        probe = sig_msg(SETUP, 32769, calling_host=own, called_host=other,
                        calling_ep=own << 16 | 1, called_ep=other << 16 | 0xFFF1)
        p.send(record(CELLS, sig_cell(lie)) + record(CELLS, sig_cell(probe)))
        print(answer(p), flush=True)
        return 0
    if mode == "call":
        p = authenticated(host, port)
        own = p.hello()
        called, uid = int(args[0]), int(args[1])
        p.send(record(CELLS, sig_cell(sig_msg(SETUP, 32768, calling_host=own,
                                              called_host=called >> 16, calling_ep=own << 16 | 1,
                                              called_ep=called, uid=uid))))
        print(answer(p), flush=True)
        return 0
    if mode == "stuck":
        # a small receive buffer (set before connecting, so the window is small too): the
        # switch's output backs up sooner
        p = authenticated(host, port, rcvbuf=4096)
        own = p.hello()
        my_ep = own << 16 | 1
        print(f"ep {my_ep}", flush=True)
        called, seconds = args[0], float(args[1])
        if called == "-":
            if not select.select([sys.stdin], [], [], seconds)[0]:
                print(f"no endpoint to call on stdin within {seconds:.0f} s", file=sys.stderr)
                return 1
            called = sys.stdin.readline().strip()
        called_ep = int(called)
        setup = sig_msg(SETUP, 32768, calling_host=own, called_host=called_ep >> 16,
                        calling_ep=my_ep, called_ep=called_ep)
        credit = struct.pack(">HHI", 32768, 1, WINDOW)
        p.send(record(CELLS, sig_cell(setup)) + record(CREDIT, credit))
        print(f"called {called_ep}", flush=True)
        time.sleep(seconds)   # never reading again
        p.sock.close()
        return 0
    print(f"link_peer.py: unknown mode {mode}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (EOFError, OSError) as e:
        print(f"link_peer.py: {e}", file=sys.stderr)
        sys.exit(1)
