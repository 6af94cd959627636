#!/usr/bin/env python3
"""Hand-made TLS 1.3 HelloRetryRequest exchanges for the SNI gate's tests.

    tls_hrr.py server ADDR PORT PORTFILE LOG
    tls_hrr.py client ADDR PORT MODE NAME1 NAME2

The server answers every first ClientHello with a HelloRetryRequest and
appends to LOG "hello1 NAME", then for each record the client sends next
"record TYPE" and "hello2 NAME" for a ClientHello in it.  The client sends a
ClientHello for NAME1 and one for NAME2 (after a change_cipher_spec record, as
TLS 1.3 clients do): MODE "retry" waits for the HelloRetryRequest first,
"pipelined" sends both at once, "samerecord" puts both hellos in one record.
It prints "hrr" when it got a HelloRetryRequest, then "closed" at the end.
"""
import socket
import struct
import sys

HRR_RANDOM = bytes.fromhex(
    "cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c")
CCS = bytes([20, 3, 3, 0, 1, 1])


def vec(prefix, data):
    return len(data).to_bytes(prefix, "big") + data


def ext(kind, data):
    return struct.pack(">H", kind) + vec(2, data)


def hello_msg(name):
    sni = ext(0, vec(2, b"\x00" + vec(2, name.encode())))
    body = (b"\x03\x03" + bytes(32) + vec(1, bytes(32)) + vec(2, b"\x13\x01") +
            vec(1, b"\x00") + vec(2, ext(0x2b, b"\x02\x03\x04") + sni))
    return b"\x01" + vec(3, body)


def record(kind, data):
    return bytes([kind, 3, 1]) + vec(2, data)


def hrr():
    body = (b"\x03\x03" + HRR_RANDOM + vec(1, bytes(32)) + b"\x13\x01\x00" +
            vec(2, ext(0x2b, b"\x03\x04") + ext(0x33, b"\x00\x17")))
    return record(22, b"\x02" + vec(3, body))


def sni_of(msg):
    """The host_name of a ClientHello handshake message, or '?'."""
    try:
        p = 4 + 2 + 32
        p += 1 + msg[p]
        p += 2 + int.from_bytes(msg[p:p + 2], "big")
        p += 1 + msg[p]
        end = p + 2 + int.from_bytes(msg[p:p + 2], "big")
        p += 2
        while p < end:
            kind, n = struct.unpack(">HH", msg[p:p + 4])
            if kind == 0:
                ln = int.from_bytes(msg[p + 7:p + 9], "big")
                return msg[p + 9:p + 9 + ln].decode("latin-1")
            p += 4 + n
    except (IndexError, struct.error):
        pass
    return "?"


def read_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_record(s):
    head = read_exact(s, 5)
    if head is None:
        return None, None
    return head[0], read_exact(s, int.from_bytes(head[3:5], "big"))


def serve(addr, port, portfile, log):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(16)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(ls.getsockname()[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = ls.accept()
        c.settimeout(30)
        try:
            kind, data = read_record(c)
            if kind != 22 or data is None:
                continue
            with open(log, "a") as f:
                f.write("hello1 %s\n" % sni_of(data))
            c.sendall(hrr())
            while True:
                kind, data = read_record(c)
                if kind is None or data is None:
                    break
                with open(log, "a") as f:
                    f.write("record %d\n" % kind)
                    if kind == 22 and data[:1] == b"\x01":
                        f.write("hello2 %s\n" % sni_of(data))
        except OSError:
            pass
        finally:
            c.close()


def client(addr, port, mode, name1, name2):
    s = socket.create_connection((addr, port), timeout=30)
    first = record(22, hello_msg(name1))
    second = CCS + record(22, hello_msg(name2))
    if mode == "retry":
        s.sendall(first)
    elif mode == "pipelined":
        s.sendall(first + second)
    else:
        s.sendall(record(22, hello_msg(name1) + hello_msg(name2)))
    try:
        kind, data = read_record(s)
        if kind == 22 and data and HRR_RANDOM in data:
            print("hrr", flush=True)
            if mode == "retry":
                s.sendall(second)
            s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
    except OSError:
        pass
    print("closed")


if __name__ == "__main__":
    if sys.argv[1] == "server":
        serve(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        client(sys.argv[2], int(sys.argv[3]), *sys.argv[4:7])
