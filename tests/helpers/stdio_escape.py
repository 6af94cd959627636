"""stdio_escape.py KIND CMD...: run CMD with a stdio fd of the host's that an
agent could use to reach beyond the jail, and say what the host saw.

KIND picks the fd and what the agent tries with it (the agent's side is a
python3 program, passed to CMD as its last argument; CMD is `python3 -c` on
the host for the positive control, or `jail ... -- python3 -c` for the test):

  udp, tcp, unix     an unconnected socket as stdin: send or connect to a
                     listener of the host's (loopback, abstract unix name)
  udpconn            a connected UDP socket as stdin: connect it elsewhere
  tcpconn            a connected TCP socket as stdin: disconnect it
                     (connect AF_UNSPEC) and connect to the listener
  pipein             the host's stdin pipe: write into it through
                     /proc/self/fd/0 (what the host reads next from it)
  pipeout            the host's stdout pipe, with another process's output
                     in it: read that through /proc/self/fd/1

Prints "escaped" when the host's listener (or pipe reader) got the agent's
bytes, "held" otherwise.  Nothing waits on time: every attempt is over when
CMD exits (loopback sends, connects and pipe writes are synchronous), and the
host looks without blocking.
"""
import os
import socket
import subprocess
import sys

kind, cmd = sys.argv[1], sys.argv[2:]

AGENT_SEND = """
import socket, sys
try:
    s = socket.socket(fileno=0)
    %s
    print('sent')
except OSError as e:
    print('refused', e)
"""

DISCONNECT = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
unspec = ctypes.create_string_buffer(16)  # sa_family 0: AF_UNSPEC
libc.connect(0, unspec, 16)
"""


def run(agent, stdin=subprocess.DEVNULL, stdout=None):
    """The agent's own output goes to our stderr, for the test's log."""
    sys.stdout.flush()
    subprocess.run(cmd + [agent], stdin=stdin,
                   stdout=sys.stderr.fileno() if stdout is None else stdout)


def got_dgram(lis):
    try:
        return lis.recv(100, socket.MSG_DONTWAIT) == b"escaped"
    except BlockingIOError:
        return False


def got_stream(lis):
    lis.setblocking(False)
    try:
        c, _ = lis.accept()
    except BlockingIOError:
        return False
    c.setblocking(False)
    try:
        return c.recv(100) == b"escaped"
    except BlockingIOError:
        return False


escaped = False
if kind in ("udp", "udpconn"):
    lis = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lis.bind(("127.0.0.1", 0))
    port = lis.getsockname()[1]
    give = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if kind == "udpconn":
        other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        other.bind(("127.0.0.1", 0))
        give.connect(other.getsockname())
    run(AGENT_SEND % ("s.connect(('127.0.0.1', %d)); s.send(b'escaped')" % port),
        stdin=give.fileno())
    escaped = got_dgram(lis)
elif kind in ("tcp", "tcpconn"):
    lis = socket.socket()
    lis.bind(("127.0.0.1", 0))
    lis.listen(4)
    port = lis.getsockname()[1]
    give = socket.socket()
    agent = AGENT_SEND % ("s.connect(('127.0.0.1', %d)); s.send(b'escaped')" % port)
    if kind == "tcpconn":
        other = socket.socket()
        other.bind(("127.0.0.1", 0))
        other.listen(1)
        give.connect(other.getsockname())
        agent = DISCONNECT + agent
    run(agent, stdin=give.fileno())
    escaped = got_stream(lis)
elif kind == "unix":
    name = "\0jail-test-stdio-%d" % os.getpid()
    lis = socket.socket(socket.AF_UNIX)
    lis.bind(name)
    lis.listen(4)
    give = socket.socket(socket.AF_UNIX)
    run(AGENT_SEND % ("s.connect(%r); s.send(b'escaped')" % name), stdin=give.fileno())
    escaped = got_stream(lis)
elif kind == "pipein":
    r, w = os.pipe()
    os.write(w, b"task\n")
    run("import os, sys\nsys.stdin.readline()\n"
        "fd = os.open('/proc/self/fd/0', os.O_WRONLY | os.O_NONBLOCK)\n"
        "os.write(fd, b'escaped')\nprint('sent')", stdin=r)
    os.close(w)
    os.set_blocking(r, False)
    try:
        escaped = b"escaped" in os.read(r, 100)
    except BlockingIOError:
        escaped = False
elif kind == "pipeout":
    r, w = os.pipe()
    os.write(w, b"secret-of-another-job\n")
    run("import os\n"
        "fd = os.open('/proc/self/fd/1', os.O_RDONLY | os.O_NONBLOCK)\n"
        "try:\n    data = os.read(fd, 100)\nexcept BlockingIOError:\n    data = b''\n"
        "os.write(2, b'read: ' + data + b'\\n')\n",
        stdout=w)
    os.close(w)
    # what reached the host's reader: the other job's line must still be there
    data = os.read(r, 1000)
    escaped = not data.startswith(b"secret-of-another-job")
else:
    sys.exit("unknown kind " + kind)
print("escaped" if escaped else "held")
