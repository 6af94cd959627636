"""serve_tls: a threaded HTTPS server on 127.0.0.1 for the broker tests' upstreams.

    serve_tls(Handler, PORTFILE, CERT, KEY)

Listens at a free port, written to PORTFILE (atomically) once it listens, and
serves Handler over TLS with CERT and KEY until killed.  TLS_LISTEN=ADDR:PORT
in the environment listens there instead (the SNI gate's tests: a "public"
server on port 443 in the test's own network).
"""
import http.server
import os
import ssl


def serve_tls(handler, portfile, cert, key):
    addr, port = "127.0.0.1", 0
    if os.environ.get("TLS_LISTEN"):
        addr, _, p = os.environ["TLS_LISTEN"].rpartition(":")
        port = int(p)
    httpd = http.server.ThreadingHTTPServer((addr, port), handler)
    httpd.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(httpd.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    httpd.serve_forever()


def read_body(handler):
    """The request body of an http.server handler: chunked or Content-Length."""
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        out = b""
        while True:
            size = int(handler.rfile.readline().split(b";")[0], 16)
            if size == 0:  # the trailers, kept for a handler that merges them
                handler.trailers = []
                while (line := handler.rfile.readline()) not in (b"\r\n", b"\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    handler.trailers.append((name.strip(), value.strip()))
                return out
            out += handler.rfile.read(size)
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
