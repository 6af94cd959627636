#!/usr/bin/env python3
"""A TLS smart-HTTP git server for the secrets-broker tests (on loopback).

    GIT_SERVER_ROOT=DIR GIT_SERVER_TOKEN=TOKEN git_https.py PORTFILE CERT KEY LOG

Listens on 127.0.0.1 at a free port (written to PORTFILE) and hands every
request to `git http-backend` (CGI) for the bare repositories below DIR, as
GitHub does: only a request whose "Authorization: Basic" password is TOKEN
gets through, any other gets 401 with "WWW-Authenticate: Basic".  Every
request is appended to LOG as one record: "METHOD PATH", its headers, the
decoded Basic credentials as "auth=USER:PASSWORD", the body as
"body=<repr>", and "status=N", then a blank line.
"""
import base64
import http.server
import os
import subprocess
import sys
import threading

from tlsserve import read_body, serve_tls

LOG = None
LOCK = threading.Lock()
ROOT = os.environ["GIT_SERVER_ROOT"]
TOKEN = os.environ["GIT_SERVER_TOKEN"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def read_body(self):
        return read_body(self)

    def credentials(self):
        """(user, password) of a Basic Authorization header, or None."""
        v = self.headers.get("Authorization", "")
        if not v.lower().startswith("basic "):
            return None
        try:
            user, _, password = base64.b64decode(v[6:].strip()).decode().partition(":")
        except ValueError:
            return None
        return user, password

    def record(self, body, cred, status):
        with LOCK, open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path))
            for k, v in self.headers.items():
                f.write("%s: %s\n" % (k, v))
            f.write("auth=%s\n" % (":".join(cred) if cred else "-"))
            f.write("body=%r\nstatus=%d\n\n" % (body, status))

    def reply(self, status, headers, body):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def cgi(self, body, user):
        path, _, query = self.path.partition("?")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": ROOT,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": user,
            "REMOTE_ADDR": "127.0.0.1",
        }
        # gzip request bodies and the protocol version reach the backend as
        # the CGI variables of their headers
        for h in ("Content-Encoding", "Git-Protocol"):
            if h in self.headers:
                env["HTTP_" + h.upper().replace("-", "_")] = self.headers[h]
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             stdout=subprocess.PIPE, check=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = out.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            else:
                headers.append((k, v.strip()))
        return status, headers, payload

    def answer(self):
        body = self.read_body()
        cred = self.credentials()
        if cred is None or cred[1] != TOKEN:
            self.record(body, cred, 401)
            self.reply(401, [("WWW-Authenticate", 'Basic realm="git"')], b"auth\n")
            return
        status, headers, payload = self.cgi(body, cred[0])
        self.record(body, cred, status)
        self.reply(status, headers, payload)

    do_GET = do_POST = answer


def main():
    global LOG
    portfile, cert, key, LOG = sys.argv[1:5]
    serve_tls(Handler, portfile, cert, key)


main()
