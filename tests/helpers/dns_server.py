#!/usr/bin/env python3
"""A tiny authoritative DNS server for the network tests, on the host's loopback.

    dns_server.py PORTFILE LOGFILE NAME=ADDR[@TTL]... [ALIAS=>TARGET...]

Binds UDP and TCP on 127.0.0.1 (a free port, written to PORTFILE once ready),
answers A/AAAA for the NAME=ADDR pairs (TTL 300 unless given; a name given
several times gets all its addresses, in order), CNAMEs for ALIAS=>TARGET,
NXDOMAIN for the rest, and appends every queried name (and "udp" or "tcp",
and the query's bytes in hex) to LOGFILE (so a test can check that a refused
name never left the jail, and what exactly did).
"""
import ipaddress
import socket
import struct
import sys
import threading

records = {}   # name -> list of (type, rdata bytes)
cnames = {}


def parse_args(args):
    for a in args:
        if "=>" in a:
            alias, target = a.split("=>", 1)
            cnames[alias.lower()] = target.lower()
        else:
            name, addr = a.split("=", 1)
            addr, _, ttl = addr.partition("@")
            ip = ipaddress.ip_address(addr)
            rtype = 1 if ip.version == 4 else 28
            records.setdefault(name.lower(), []).append((rtype, ip.packed, int(ttl or 300)))


def encode_name(name):
    out = b""
    for label in name.split("."):
        if label:
            out += bytes([len(label)]) + label.encode()
    return out + b"\0"


def read_name(pkt, off):
    labels = []
    while pkt[off]:
        n = pkt[off]
        labels.append(pkt[off + 1:off + 1 + n].decode("latin-1"))
        off += 1 + n
    return ".".join(labels).lower(), off + 1


def rr(name, rtype, rdata, ttl=300):
    return encode_name(name) + struct.pack("!HHIH", rtype, 1, ttl, len(rdata)) + rdata


def answer(pkt, log, via):
    qid, flags = struct.unpack("!HH", pkt[:4])
    name, off = read_name(pkt, 12)
    qtype, = struct.unpack("!H", pkt[off:off + 2])
    question = pkt[12:off + 4]
    with open(log, "a") as f:
        f.write(name + " " + via + " " + pkt.hex() + "\n")
    answers = []
    cur = name
    for _ in range(8):
        if cur in cnames:
            answers.append(rr(cur, 5, encode_name(cnames[cur])))
            cur = cnames[cur]
    for rtype, rdata, ttl in records.get(cur, []):
        if rtype == qtype:
            answers.append(rr(cur, rtype, rdata, ttl))
    known = cur in records or name in cnames
    rcode = 0 if known else 3
    head = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, len(answers), 0, 0)
    return head + question + b"".join(answers)


def serve_udp(sock, log):
    while True:
        pkt, addr = sock.recvfrom(4096)
        try:
            sock.sendto(answer(pkt, log, "udp"), addr)
        except Exception as e:  # a malformed query: no answer
            print("dns_server:", e, file=sys.stderr)


def serve_tcp(sock, log):
    while True:
        conn, _ = sock.accept()
        with conn:
            try:
                n, = struct.unpack("!H", conn.recv(2, socket.MSG_WAITALL))
                reply = answer(conn.recv(n, socket.MSG_WAITALL), log, "tcp")
                conn.sendall(struct.pack("!H", len(reply)) + reply)
            except Exception as e:
                print("dns_server:", e, file=sys.stderr)


def main():
    portfile, log = sys.argv[1], sys.argv[2]
    parse_args(sys.argv[3:])
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    port = udp.getsockname()[1]
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    tcp.bind(("127.0.0.1", port))
    tcp.listen(8)
    threading.Thread(target=serve_tcp, args=(tcp, log), daemon=True).start()
    with open(portfile + ".tmp", "w") as f:
        f.write(str(port))
    import os
    os.rename(portfile + ".tmp", portfile)
    serve_udp(udp, log)


main()
