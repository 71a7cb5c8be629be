#!/usr/bin/env python3
"""Count write barriers (_ITM_W*) in transactional clones whose address argument is the
clone's own stack (rdi set from rsp just before the call): GCC's pattern that a redo log breaks
when the same slot is then read with a plain load."""
import re, subprocess, sys, collections
for path in sys.argv[1:]:
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True).stdout
    fn = None; last_rdi = None; hits = collections.Counter()
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1); last_rdi = None; continue
        if fn is None or "\t" not in line:
            continue
        ins = line.split("\t", 1)[1].strip()
        if re.search(r"(lea\s+(-?0x[0-9a-f]+)?\(%rsp\),%rdi|mov\s+%rsp,%rdi)$", ins):
            last_rdi = "stack"; continue
        if re.search(r",%rdi$|,%edi$", ins):
            last_rdi = None
        if ins.startswith("call") and "<_ITM_W" in ins and last_rdi == "stack":
            hits[fn] += 1
        if ins.startswith("call"):
            last_rdi = None
    total = sum(hits.values())
    print(f"{path}: {total} stack write barriers in {len(hits)} functions")
    for f, n in hits.most_common(5):
        print(f"   {n} {f[:110]}")
