#!/usr/bin/env python3
"""A TCP relay whose first connection goes to one server and every later
one to another, for the broker's test of an upstream that changes its
protocol within a session (h2 first, then HTTP/1.1 alone).

    tcp_switch.py PORTFILE FIRST_PORT THEN_PORT

Listens on 127.0.0.1 at a free port (written to PORTFILE) and relays each
connection byte for byte to 127.0.0.1:FIRST_PORT (the first) or
127.0.0.1:THEN_PORT (the rest).
"""
import os
import socket
import sys
import threading

portfile, first, then = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(client, port):
    up = socket.create_connection(("127.0.0.1", port))
    threading.Thread(target=pump, args=(up, client), daemon=True).start()
    pump(client, up)


srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
n = 0
while True:
    conn, _ = srv.accept()
    n += 1
    threading.Thread(target=relay, args=(conn, first if n == 1 else then), daemon=True).start()
