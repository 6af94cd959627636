#!/usr/bin/env python3
"""A TLS HTTP/1.1 server for the secrets-broker tests (all on loopback).

    tls_echo.py PORTFILE CERT KEY LOG

Listens on 127.0.0.1 at a free port (written to PORTFILE).  Every request is
appended to LOG as "METHOD PATH", its headers, and "body=<body>"; the answer
is "ok <n>\\n" (keep-alive); GET /big/N sends N MiB of zeros.  GET /echo answers 400 with the request's headers as its body (gzip when
asked; /echo-unasked also when no Accept-Encoding names any coding, /echo-gzipped always) and x-api-key in X-Echo, written 7 bytes at a time; GET
/echo-chunked/N the same body in chunks of N bytes each (an extension on
every size line), and HEAD of it the head alone ("head", another
method, gets the body); GET /echo-pause the same
body as /echo, stopping 20 bytes into x-api-key's value until GET /sse-next;
GET /echo-range the same body (200), or the byte range a Range header asks (206);
A path ending in "-merged" is
served as the path without it, the request's trailers merged into its head
first (as Netty's HttpObjectAggregator does).  GET /ws with Upgrade answers 101 and echoes what follows.  POST /echo-body
answers 200 with the request's body as its own (as a raw file a host serves
back would), then closes.  GET /upgrade-echo with an Upgrade other than
websocket answers 101, then the request's headers in hex (standing in for
what the new protocol would encode them in: h2c's HPACK, RFC 2817's inner
TLS); without one, "not upgraded".  GET /echo-chunked/N with an X-Pad header
repeats it in the response's head eight times (X-Pad-1..8) before the same
chunked body.  GET /sse streams three events, one at a time,
waiting for /sse-next between them (a broker that buffered the stream would
never let the client see the first event before asking for the next).
"""
import gzip
import http.server
import sys
import threading

from tlsserve import read_body, serve_tls

LOG = None
LOCK = threading.Lock()
COUNT = [0]
NEXT = threading.Semaphore(0)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        with LOCK:
            COUNT[0] += 1
            with open(LOG, "a") as f:
                f.write("%s %s\n" % (self.command, self.path))
                for k, v in self.headers.items():
                    f.write("%s: %s\n" % (k, v))
                f.write("body=%s\n\n" % body.decode("latin-1"))
            return COUNT[0]

    def read_body(self):
        return read_body(self)

    def answer(self):
        body = self.read_body()
        if self.path.endswith("-merged"):  # trailers merged into the head (Netty's aggregator)
            for k, v in getattr(self, "trailers", []):
                self.headers[k] = v
            self.path = self.path[:-len("-merged")]
        n = self.record(body)
        if self.path == "/upgrade-echo":
            up = self.headers.get("Upgrade", "")
            if not up or up.lower() == "websocket":
                text = b"not upgraded\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)
                return
            text = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            self.send_response(101)
            self.send_header("Upgrade", up)
            self.send_header("Connection", "Upgrade")
            self.end_headers()
            self.wfile.write(text.hex().encode() + b"\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if self.path == "/echo-body":  # the agent's bytes, ending where they end
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
            return
        if self.path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(3):
                data = ("data: event-%d\n\n" % i).encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                if i < 2:
                    NEXT.acquire()
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/sse-next":
            NEXT.release()
        if self.path in ("/echo", "/echo-unasked", "/echo-gzipped"):  # quotes the request back
            text = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            gz = "gzip" in self.headers.get("Accept-Encoding", "")
            gz |= self.path == "/echo-gzipped"  # gzip whatever was asked (a stored .gz)
            # no Accept-Encoding: any coding will do (RFC 9110 12.5.3)
            gz |= self.path == "/echo-unasked" and "Accept-Encoding" not in self.headers
            if gz:
                text = gzip.compress(text)
            self.send_response(400)
            self.send_header("X-Echo", self.headers.get("x-api-key", "-"))
            if gz:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            for i in range(0, len(text), 7):  # in small TLS records: values split
                self.wfile.write(text[i:i + 7])
                self.wfile.flush()
            return
        if self.path == "/ws" and self.headers.get("Upgrade"):  # switches, then echoes
            self.send_response(101)
            self.send_header("Upgrade", self.headers["Upgrade"])
            self.send_header("Connection", "Upgrade")
            self.end_headers()
            self.wfile.flush()
            while True:
                d = self.rfile.read1(4096)
                if not d:
                    break
                self.wfile.write(d)
                self.wfile.flush()
            self.close_connection = True
            return
        if self.path == "/echo-range":  # serves byte ranges of its echo (as caches do)
            text = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            rng = self.headers.get("Range", "")
            if rng.startswith("bytes=") and "-" in rng:
                a, b = rng[6:].split("-", 1)
                a, b = int(a), min(int(b), len(text) - 1)
                self.send_response(206)
                self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, len(text)))
                text = text[a:b + 1]
            else:
                self.send_response(200)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
            return
        if self.path == "/echo-pause":  # a pause (the network's) inside the key
            text = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            cut = text.find(b"x-api-key: ") + len(b"x-api-key: ") + 20
            self.send_response(400)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text[:cut])
            self.wfile.flush()
            NEXT.acquire(timeout=60)  # until GET /sse-next
            self.wfile.write(text[cut:])
            return
        if self.path.startswith("/echo-chunked/"):  # framing inside the key
            step = int(self.path.split("/")[2])
            text = "".join("%s: %s\n" % kv for kv in self.headers.items()).encode()
            self.send_response(400)
            for i in range(1, 9) if self.headers.get("X-Pad") else ():
                self.send_header("X-Pad-%d" % i, self.headers["X-Pad"])
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if self.command == "HEAD":
                return
            for i in range(0, len(text), step):
                part = text[i:i + step]
                self.wfile.write(b"%x;n=%d\r\n%s\r\n" % (len(part), i, part))
            self.wfile.write(b"0\r\nX-Trailer: done\r\n\r\n")
            return
        if self.path.startswith("/big/"):
            size = int(self.path[5:]) << 20
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b"\0" * 65536
            for _ in range(size // len(chunk)):
                self.wfile.write(chunk)
            return
        body = ("ok %d\n" % n).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_HEAD = answer
    # methods are case-sensitive (RFC 9110 9.1): "head" is not HEAD, and is
    # answered as any method a handler takes (Go's net/http serves it so),
    # with a body
    do_head = answer


def main():
    global LOG
    portfile, cert, key, LOG = sys.argv[1:5]
    serve_tls(Handler, portfile, cert, key)


main()
