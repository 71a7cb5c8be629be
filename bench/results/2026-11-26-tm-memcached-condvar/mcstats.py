#!/usr/bin/env python3
"""Print a memcached server's 'stats' (and optional subcommand) reply. Usage: mcstats.py PORT [sub]"""
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"stats %s\r\n" % sys.argv[2].encode() if len(sys.argv) > 2 else b"stats\r\n")
d = b""
while not d.endswith(b"END\r\n"):
    x = s.recv(65536)
    if not x:
        break
    d += x
sys.stdout.write(d.decode(errors="replace"))
