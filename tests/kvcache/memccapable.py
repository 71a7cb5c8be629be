"""memccapable.py — runs libmemcached's memccapable (ascii and binary conformance) against a
server started by kv_harness.

    python memccapable.py /usr/bin/memccapable SERVER

The ascii tests (-a) and the binary tests (-b) run at the same time, each against its own server
(both flush what they stored): most of memccapable's time is waiting out the quiet and noreply
forms, which send no answer (~2.5 s each, 5 s one after the other).
"""
import subprocess
import sys

from kv_harness import server


def main():
    tool, target = sys.argv[1], sys.argv[2]
    ok = True
    with server(target, ["-t", "2"]) as port_a, server(target, ["-t", "2"]) as port_b:
        runs = [(proto, subprocess.Popen([tool, "-h", "127.0.0.1", "-p", str(port), "-t", "1", flag],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
                for proto, port, flag in (("ascii", port_a, "-a"), ("binary", port_b, "-b"))]
        for proto, p in runs:
            try:
                out, err = p.communicate(timeout=50)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                err += f"\n{proto}: memccapable timed out\n"
            sys.stdout.write(out)
            sys.stderr.write(err)
            passed = p.returncode == 0 and "All tests passed" in out and f"{proto} " in out
            print(f"memccapable {proto}:", "pass" if passed else f"FAIL (exit {p.returncode})")
            ok = ok and passed
    print("memccapable:", "pass" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
