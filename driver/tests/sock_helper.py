#!/usr/bin/env python3
# sock_helper.py — fabric_multiuser.sh's listening sockets (python3, standard library only):
#   activate PATH -- PROGRAM ARGS...  binds a Unix SOCK_SEQPACKET socket at PATH (mode 0666)
#       and execs PROGRAM with it as descriptor 3, LISTEN_PID and LISTEN_FDS=1, as systemd's
#       socket activation does
#   impostor PATH UID SECONDS  binds at PATH as root, then listens as UID (a server that is
#       not root where the system an2d should be), says "listening", serves until SIGTERM (at
#       most SECONDS) and prints how many bytes clients sent
import os
import signal
import socket
import sys
import time


def bind(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind(path)
    os.chmod(path, 0o666)
    return s


def activate(path, argv):
    s = bind(path)
    s.listen(128)
    os.dup2(s.fileno(), 3, inheritable=True)
    env = dict(os.environ, LISTEN_PID=str(os.getpid()), LISTEN_FDS="1")
    os.execve(argv[0], argv, env)


def impostor(path, uid, seconds):
    s = bind(path)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # before listen: clients see this uid (SO_PEERCRED)
    s.listen(16)
    s.settimeout(0.1)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    print("listening", flush=True)
    got, conns, seen, end = 0, [], [], time.monotonic() + seconds
    while not stop and time.monotonic() < end:
        try:
            c, _ = s.accept()
            c.settimeout(0.1)
            conns.append(c)
        except socket.timeout:
            pass
        for c in list(conns):
            try:
                data = c.recv(4096)
            except (socket.timeout, OSError):
                continue
            got += len(data)
            if not data:  # closed by the client
                conns.remove(c)
                seen.append(c)
    print(f"impostor: {len(conns) + len(seen)} connections, {got} bytes received", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 4 and sys.argv[1] == "activate" and sys.argv[3] == "--":
        activate(sys.argv[2], sys.argv[4:])
    elif len(sys.argv) == 5 and sys.argv[1] == "impostor":
        impostor(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit("usage: sock_helper.py activate PATH -- PROGRAM ARGS | impostor PATH UID SECONDS")
