#!/usr/bin/env python3
"""A hand-made HTTP/2 client for the broker's hostile-client tests: frames
and HPACK written byte by byte, so a test sends exactly what no well-behaved
library would (resets right after HEADERS, header blocks that expand a
thousand times, repeated fields).

    python3 h2raw.py MODE HOST [ARGS]

MODE:
  resetflood N [C]    (on each of C connections, default 1) one GET /hang (left open: the upstream never answers
                      it), then N streams, each HEADERS with ~60 KiB of
                      header list made of references to one dynamic-table
                      entry (a few bytes on the wire) and at once
                      RST_STREAM CANCEL; prints "sent N", then waits for the
                      test to kill it.
  stall N             a window of 0 for each stream (SETTINGS), then N streams
                      each GET /big/96 (96 MiB), never read; prints "asked",
                      then waits for the test to kill it.
  request [METHOD] PATH NAME=VALUE...
                      one request (GET unless METHOD, a word in capitals)
                      with these fields (in this order, repeats kept, never
                      indexed); prints the response body, or "reset CODE" if
                      the stream was reset.
"""
import socket
import ssl
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 6, 7, 8
END_STREAM, END_HEADERS, ACK = 0x1, 0x4, 0x1


def frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", sid) + payload


def hint(value, prefix, first=0):
    """An HPACK integer (RFC 7541 5.1) with a prefix of that many bits."""
    top = (1 << prefix) - 1
    if value < top:
        return bytes([first | value])
    out = [first | top]
    value -= top
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def hstr(s):
    b = s.encode() if isinstance(s, str) else s
    return hint(len(b), 7) + b


def lit_indexed(name, value):
    """Literal with incremental indexing, new name (RFC 7541 6.2.1)."""
    return b"\x40" + hstr(name) + hstr(value)


def lit_plain(name, value):
    """Literal without indexing, new name (6.2.2)."""
    return b"\x00" + hstr(name) + hstr(value)


def indexed(i):
    return hint(i, 7, 0x80)


def request_head(host, method=b"\x82", path="/"):
    """:method (static index), :scheme https, :path, :authority."""
    p = b"\x84" if path == "/" else b"\x04" + hstr(path)  # :path literal, name index 4
    return method + b"\x87" + p + b"\x01" + hstr(host)


def connect(host):
    ctx = ssl.create_default_context()
    ctx.set_alpn_protocols(["h2"])
    c = ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)
    if c.selected_alpn_protocol() != "h2":
        sys.exit("no h2: %r" % c.selected_alpn_protocol())
    c.sendall(PREFACE + frame(SETTINGS, 0, 0))
    return c


def resetflood(host, n, conns=1):
    held = [flood_one(host, n) for _ in range(conns)]
    print("sent", n * conns, flush=True)
    for c in held:
        c.setblocking(False)
    while held:  # read (and drop) what the broker says, until killed
        for c in list(held):
            try:
                if not c.recv(65536):
                    held.remove(c)
            except (ssl.SSLWantReadError, BlockingIOError):
                pass
            except OSError:
                held.remove(c)
        time.sleep(0.05)
    print("closed", flush=True)
    time.sleep(600)


def flood_one(host, n):
    c = connect(host)
    c.sendall(frame(HEADERS, END_HEADERS | END_STREAM, 1, request_head(host, path="/hang")))
    pad = "p" * 3900
    sid = 3
    for i in range(n):
        block = request_head(host, path="/x")
        if i == 0:  # the entry enters the dynamic table once (index 62) ...
            block += lit_indexed("x-pad", pad)
            refs = 14
        else:
            refs = 15
        block += indexed(62) * refs  # ... and every later block points at it
        c.sendall(frame(HEADERS, END_HEADERS | END_STREAM, sid, block) +
                  frame(RST_STREAM, 0, sid, struct.pack(">I", 8)))
        sid += 2
    return c


def stall(host, n):
    c = connect(host)
    c.sendall(frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 0)))  # INITIAL_WINDOW_SIZE 0
    for i in range(n):
        c.sendall(frame(HEADERS, END_HEADERS | END_STREAM, 2 * i + 1,
                        request_head(host, path="/big/96")))
    print("asked", flush=True)
    time.sleep(600)


def read_frame(c, buf):
    while len(buf) < 9 or len(buf) < 9 + int.from_bytes(buf[:3], "big"):
        d = c.recv(65536)
        if not d:
            return None, buf
        buf += d
    n = int.from_bytes(buf[:3], "big")
    return (buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7fffffff, buf[9:9 + n]), buf[9 + n:]


def request(host, path, fields):
    c = connect(host)
    method = b"\x82"
    if path.isalpha():  # a method first (literal, name index 2)
        method, path, fields = b"\x02" + hstr(path), fields[0], fields[1:]
    block = request_head(host, method=method, path=path)
    for f in fields:
        name, value = f.split("=", 1)
        block += lit_plain(name, value)
    c.sendall(frame(HEADERS, END_HEADERS | END_STREAM, 1, block))
    body, buf = b"", b""
    while True:
        fr, buf = read_frame(c, buf)
        if fr is None:
            print("closed")
            return
        ftype, flags, sid, payload = fr
        if ftype == SETTINGS and not flags & ACK:
            c.sendall(frame(SETTINGS, ACK, 0))
        elif ftype == DATA and sid == 1:
            body += payload
        elif ftype == RST_STREAM and sid == 1:
            print("reset", int.from_bytes(payload, "big"))
            return
        elif ftype == GOAWAY:
            print("goaway", int.from_bytes(payload[4:8], "big"))
            return
        if sid == 1 and ftype in (DATA, HEADERS) and flags & END_STREAM:
            print(body.decode(errors="replace").strip())
            return


def main():
    mode, host = sys.argv[1], sys.argv[2]
    if mode == "resetflood":
        resetflood(host, int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif mode == "stall":
        stall(host, int(sys.argv[3]))
    elif mode == "request":
        request(host, sys.argv[3], sys.argv[4:])
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
