#!/usr/bin/env python3
"""udp_echo.py PORTFILE ADDR LOGFILE [PORT]: a UDP server on ADDR that logs
each datagram it gets (one line) and answers it with b"echo:" + datagram.
Writes its port to PORTFILE once bound (PORT 0 or absent: any free port)."""
import os
import socket
import sys

portfile, addr, logfile = sys.argv[1], sys.argv[2], sys.argv[3]
port = int(sys.argv[4]) if len(sys.argv) > 4 else 0
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, port))
tmp = portfile + ".tmp"
with open(tmp, "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(tmp, portfile)
while True:
    data, peer = s.recvfrom(2048)
    with open(logfile, "ab") as f:
        f.write(data + b"\n")
    s.sendto(b"echo:" + data, peer)
