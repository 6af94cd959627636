"""fakeapi.py PORT LOG READY — a fake model API for the agent tests.

Listens on 127.0.0.1:PORT of the network namespace it runs in (the jail's own
loopback, never the host's: a fixed port cannot collide with another suite's),
creates READY once it listens, writes "METHOD PATH" of each request to LOG, and
answers 401 with x-should-retry: false, so that an agent stops after its first
call instead of retrying.
"""
import http.server
import sys

log = open(sys.argv[2], "a", buffering=1)
BODY = b'{"error":{"type":"authentication_error","message":"fake api: bad key","code":401}}'


class Handler(http.server.BaseHTTPRequestHandler):
    def handle_one_request(self):
        try:
            super().handle_one_request()
        except OSError:
            pass

    def answer(self):
        log.write("%s %s\n" % (self.command, self.path))
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("x-should-retry", "false")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    do_GET = do_POST = do_PUT = answer

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
open(sys.argv[3], "w").close()
server.serve_forever()
