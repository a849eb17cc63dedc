# tcp_probe.py — the TCP listener and client of tests/hosts/hosts_selftest.sh (python3, standard
# library only), run inside the emulated hosts' namespaces.
#
#   tcp_probe.py serve PORT COUNT SECONDS
#       listens on [::]:PORT (IPv4 too, mapped), prints "ready", then serves at most COUNT
#       connections for at most SECONDS: reads to EOF, answers "HOSTNAME PEER BYTES", closes.
#   tcp_probe.py connect -4|-6 HOST PORT SECONDS [BYTES]
#       connects (resolving HOST in that family, giving up after SECONDS), sends BYTES zero bytes,
#       prints the answer and the seconds it took; exit status 1 if it could not.
import socket
import sys
import time


def serve(port, count, seconds):
    deadline = time.monotonic() + seconds
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", port))
    s.listen(8)
    print("ready", flush=True)
    served = 0
    while served < count:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        s.settimeout(left)
        try:
            c, peer = s.accept()
        except socket.timeout:
            break
        with c:
            c.settimeout(max(deadline - time.monotonic(), 0.1))
            n = 0
            try:
                while True:
                    b = c.recv(65536)
                    if not b:
                        break
                    n += len(b)
                host = peer[0]
                if host.startswith("::ffff:"):
                    host = host[7:]
                c.sendall(f"{socket.gethostname()} {host} {n}\n".encode())
            except OSError as e:
                print(f"serve: {e}", flush=True)
        served += 1
        print(f"served {served}", flush=True)
    return 0


def connect(fam, host, port, seconds, nbytes):
    family = socket.AF_INET if fam == "-4" else socket.AF_INET6
    t0 = time.monotonic()
    try:
        addr = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0][4]
        with socket.socket(family, socket.SOCK_STREAM) as c:
            c.settimeout(seconds)
            c.connect(addr)
            chunk = bytes(65536)
            left = nbytes
            while left > 0:
                c.sendall(chunk[: min(left, len(chunk))])
                left -= min(left, len(chunk))
            c.shutdown(socket.SHUT_WR)
            answer = b""
            while True:
                b = c.recv(4096)
                if not b:
                    break
                answer += b
    except OSError as e:
        print(f"connect {host} {fam}: {e}", file=sys.stderr)
        return 1
    print(f"{answer.decode().strip()} {time.monotonic() - t0:.3f}")
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "serve":
        return serve(int(argv[2]), int(argv[3]), float(argv[4]))
    if len(argv) in (6, 7) and argv[1] == "connect" and argv[2] in ("-4", "-6"):
        nbytes = int(argv[6]) if len(argv) == 7 else 0
        return connect(argv[2], argv[3], int(argv[4]), float(argv[5]), nbytes)
    print("usage: tcp_probe.py serve PORT COUNT SECONDS | "
          "connect -4|-6 HOST PORT SECONDS [BYTES]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
