"""serve_tls: a threaded HTTPS server on 127.0.0.1 for the broker tests' upstreams.

    serve_tls(Handler, PORTFILE, CERT, KEY)

Listens at a free port, written to PORTFILE (atomically) once it listens, and
serves Handler over TLS with CERT and KEY until killed.
"""
import http.server
import os
import ssl


def serve_tls(handler, portfile, cert, key):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
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
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return out
            out += handler.rfile.read(size)
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
