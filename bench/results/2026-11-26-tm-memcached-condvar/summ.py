#!/usr/bin/env python3
"""Table rows from suite.sh / stressrun.sh summaries. Usage: summ.py DIR suite|stress"""
import os, re, sys

base, kind = sys.argv[1], sys.argv[2]


def g(m, i, dflt="?"):
    return m.group(i) if m else dflt


for d in sorted(os.listdir(base)):
    p = os.path.join(base, d, "summary")
    if not os.path.exists(p):
        continue
    s = open(p).read()
    if kind == "suite":
        ta = re.search(r"testapp rc=(\d+) ok=(\d+)", s)
        pr = re.search(r"prove rc=(\d+) Files=(\d+), Tests=(\d+).*Result: (\w+)", s)
        fails = [l.split()[0] for l in s.splitlines() if l.startswith("t/")]
        real = [f for f in fails if f != "t/whitespace.t"]
        verdict = "pass" if (ta and ta.group(1) == "0" and pr and not real and "sizes rc=0" in s) else "FAIL"
        print(f"| {d} | {verdict} | sizes {'ok' if 'sizes rc=0' in s else 'FAIL'} | testapp {g(ta,2)}/47"
              f"{'' if g(ta,1)=='0' else ' (rc '+g(ta,1)+')'} | prove {g(pr,4)} {g(pr,3)} tests"
              f"{(' failing: '+', '.join(fails)) if fails else ''} |")
    else:
        st = re.findall(r"stress \d+ rc=(\d+) (\w+)", s)
        ms = re.findall(r"memcslap (\w+) rc=(\d+)", s)
        ca = re.search(r"memcaslap rc=(\d+) get_misses: (\d+) verify_misses: (\d+) verify_failed: (\d+)", s)
        alive = re.search(r"server after load: (\w+), exit status (\d+)", s)
        hs = re.search(r"hash_power_level (\d+).*slabs_moved (\d+)", s)
        prof = re.search(r"commits (\d+) starts (\d+) serial_attempts (\d+) irrevocable_switches (\d+) epochs (\{[^}]*\}|None)", s)
        ep = ""
        if prof and prof.group(5) != "None":
            e = eval(prof.group(5))
            ep = " epochs " + ", ".join(f"{k} {v}" for k, v in e.items() if v)
        pf = f"{prof.group(1)} commits / {prof.group(2)} starts, {prof.group(3)} serial{ep}" if prof else "-"
        ok = (len(st) == 3 and all(r == "0" and q == "PASS" for r, q in st) and ca and ca.group(1) == "0"
              and ca.group(4) == "0" and len(ms) == 3 and all(r == "0" for _, r in ms) and alive
              and alive.group(1) == "alive" and alive.group(2) == "0")
        print(f"| {d} | {'pass' if ok else 'FAIL'} | stress {sum(1 for r,q in st if r=='0' and q=='PASS')}/{len(st)}"
              f" | memcaslap rc {g(ca,1)}, {g(ca,4)} failed, {g(ca,2)} misses | memcslap "
              f"{' '.join(n+('' if r=='0' else '!rc'+r) for n,r in ms)} | {g(alive,1)}, exit {g(alive,2)}"
              f"{(' | hashpower '+hs.group(1)+', slabs_moved '+hs.group(2)) if hs else ''} | {pf} |")
