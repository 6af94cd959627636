#!/usr/bin/env python3
"""A tiny HTTP server for the network tests and the benchmark.

    http_server.py PORTFILE BIND_ADDR DIR [PORT]

Serves DIR on BIND_ADDR (127.0.0.1 or ::1) at PORT or a free port, written to
PORTFILE once it listens.
"""
import functools
import http.server
import os
import socket
import sys


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


class V6Server(Server):
    address_family = socket.AF_INET6


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    portfile, bind, root = sys.argv[1], sys.argv[2], sys.argv[3]
    cls = V6Server if ":" in bind else Server
    port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    httpd = cls((bind, port), functools.partial(Quiet, directory=root))
    with open(portfile + ".tmp", "w") as f:
        f.write(str(httpd.server_address[1]))
    os.rename(portfile + ".tmp", portfile)
    httpd.serve_forever()


main()
