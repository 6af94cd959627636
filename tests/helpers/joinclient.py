#!/usr/bin/env python3
"""joinclient.py SOCKET CWD CMD... — speak jail exec's protocol (src/join.c) to
a session's exec.sock directly, as a program of another user could: the
request header, the words, the working directory, three stdio fds (/dev/null).
Prints one line and exits: 0 "exit N" (the command ran), 2 "error: TEXT" (the
jail refused), 3 "closed" (no answer), 4 "connect: ERROR"."""
import os
import socket
import struct
import sys

JOIN_MAGIC = 0x6A6F696E
JOIN_EXIT, JOIN_ERROR = 2, 3
MSG_LEN = 4 + 4 + 400  # struct join_msg


def main():
    path, cwd, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.connect(path)
    except OSError as e:
        print("connect: %s" % e.strerror)
        return 4
    words = b"".join(w.encode() + b"\0" for w in cmd) + cwd.encode() + b"\0"
    # struct join_req: magic, tty_mask, argc, len (u32), rows, cols (u16)
    head = struct.pack("=IIIIHH", JOIN_MAGIC, 0, len(cmd), len(words), 0, 0)
    null = os.open("/dev/null", os.O_RDWR)
    try:
        socket.send_fds(s, [head + words], [null, null, null])
    except OSError:
        pass  # refused already: its answer is still there to read
    while True:
        try:
            m = s.recv(MSG_LEN)
        except OSError:
            m = b""
        if len(m) < MSG_LEN:
            print("closed")
            return 3
        kind, value = struct.unpack("=Ii", m[:8])
        if kind == JOIN_ERROR:
            print("error: %s" % m[8:].split(b"\0")[0].decode(errors="replace"))
            return 2
        if kind == JOIN_EXIT:
            print("exit %d" % value)
            return 0


if __name__ == "__main__":
    sys.exit(main())
