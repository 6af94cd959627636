#!/usr/bin/env python3
"""A TLS client that sends its ClientHello in pieces, for the SNI gate's tests.

    tls_split.py ADDR PORT SNI CAFILE MODE PATH

Connects to ADDR:PORT and starts TLS for SNI (verified against CAFILE); the
ClientHello goes out in 40-byte TCP writes (MODE "writes"), or re-framed as
two TLS records and then in such writes (MODE "records").  It then asks for
PATH over HTTP/1.1 and prints the response's body; MODE "halfclose" sends
the ClientHello whole and, once the request is out, shuts down its sending
side (TCP) before it reads the response.
"""
import socket
import ssl
import sys
import time


def main():
    addr, port, sni, ca, mode, path = sys.argv[1:7]
    ctx = ssl.create_default_context(cafile=ca)
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = ctx.wrap_bio(inc, out, server_hostname=sni)
    s = socket.create_connection((addr, int(port)), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = out.read()
    if mode == "records":
        head, body = hello[:3], hello[5:]
        half = len(body) // 2
        hello = b"".join(head + len(p).to_bytes(2, "big") + p for p in (body[:half], body[half:]))
    for i in range(0, len(hello), 40):
        s.sendall(hello[i:i + 40])
        time.sleep(0.02)  # separate segments, so the gate sees it come in parts

    def flush():
        data = out.read()
        if data:
            s.sendall(data)

    def feed():
        data = s.recv(65536)
        if not data:
            return False
        inc.write(data)
        return True

    while True:
        try:
            tls.do_handshake()
            break
        except ssl.SSLWantReadError:
            flush()
            if not feed():
                sys.exit("closed during the handshake")
    flush()
    tls.write(b"GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
              % (path.encode(), sni.encode()))
    flush()
    if mode == "halfclose":
        s.shutdown(socket.SHUT_WR)
    resp = b""
    while True:
        try:
            resp += tls.read(65536)
        except ssl.SSLWantReadError:
            if not feed():
                break
        except (ssl.SSLZeroReturnError, ssl.SSLEOFError):
            break
    sys.stdout.write(resp.partition(b"\r\n\r\n")[2].decode())


main()
