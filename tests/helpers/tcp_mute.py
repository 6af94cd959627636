#!/usr/bin/env python3
"""An upstream that accepts TCP and never says a word (its TLS handshake
never comes), for the broker's tests of a hanging upstream.

    tcp_mute.py PORTFILE CERT KEY LOG

Listens on 127.0.0.1 at a free port (written to PORTFILE); each connection
accepted is logged as "accepted", and "closed" once its peer closes it.
"""
import os
import selectors
import socket
import sys

portfile, _cert, _key, log = sys.argv[1:5]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(64)
tmp = portfile + ".tmp"
with open(tmp, "w") as f:
    f.write(str(srv.getsockname()[1]))
os.rename(tmp, portfile)
sel = selectors.DefaultSelector()
sel.register(srv, selectors.EVENT_READ)


def note(what):
    with open(log, "a") as f:
        f.write(what + "\n")


while True:
    for key, _ in sel.select():
        if key.fileobj is srv:
            c, _ = srv.accept()
            sel.register(c, selectors.EVENT_READ)
            note("accepted")
        else:
            try:
                data = key.fileobj.recv(65536)
            except OSError:
                data = b""
            if not data:
                sel.unregister(key.fileobj)
                key.fileobj.close()
                note("closed")
