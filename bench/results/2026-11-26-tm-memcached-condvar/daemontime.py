#!/usr/bin/env python3
"""Times t/daemonize.t's steps for one configuration: start memcached-debug -d -P FILE, time to the
first accepted connection; SIGKILL the daemon, time until connect is refused.
Usage: daemontime.py PORT REPS (environment chooses the runtime)"""
import os, signal, socket, subprocess, sys, tempfile, time
port, reps = int(sys.argv[1]), int(sys.argv[2])
for r in range(reps):
    pidf = tempfile.mktemp()
    t0 = time.time()
    subprocess.run(["./memcached-debug", "-d", "-P", pidf, "-p", str(port), "-U", "0", "-u", "root"], check=True)
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
        except OSError:
            if time.time() - t0 > 30: print("no start"); sys.exit(1)
            time.sleep(0.005)
    up = time.time() - t0
    while not (os.path.exists(pidf) and os.path.getsize(pidf)): time.sleep(0.005)
    pid = int(open(pidf).read()); os.unlink(pidf)
    t1 = time.time(); os.kill(pid, signal.SIGKILL)
    first = None
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            if first is None: first = True
        except OSError:
            break
        if first is None: first = False
        time.sleep(0.001)
    print("start %.3f s, refused %.3f s after SIGKILL, immediate connect after kill %s" % (up, time.time() - t1, "succeeded" if first else "refused"))
    time.sleep(0.2)
