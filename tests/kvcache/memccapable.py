"""memccapable.py — runs libmemcached's memccapable (ascii and binary conformance) against a
server started by kv_harness.

    python memccapable.py /usr/bin/memccapable SERVER
"""
import subprocess
import sys

from kv_harness import server


def main():
    tool, target = sys.argv[1], sys.argv[2]
    with server(target, ["-t", "2"]) as port:
        r = subprocess.run([tool, "-h", "127.0.0.1", "-p", str(port), "-t", "1"],
                           capture_output=True, text=True, timeout=50)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    ok = r.returncode == 0 and "All tests passed" in r.stdout
    print("memccapable:", "pass" if ok else f"FAIL (exit {r.returncode})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
