# walk.py: gdb script (source it in a gdb attached to a TreeBench process): walks the red-black
# tree in memory from SET.set->sentinel and reports cycles, wrong parent pointers or IDs.
import gdb
s = gdb.parse_and_eval("SET.set")
sent = s["sentinel"]
out = []
seen = {}
def walk(n, parent, depth, path):
    if int(n) == 0: return
    a = int(n)
    if a in seen:
        out.append("CYCLE/shared node %#x at %s (first at %s)" % (a, path, seen[a])); return
    seen[a] = path
    v = n.dereference()
    if int(v["m_parent"]) != int(parent):
        out.append("bad parent at %s: node %#x val %d m_parent %#x expected %#x" % (path, a, int(v["m_val"]), int(v["m_parent"]), int(parent)))
    if depth > 64: out.append("too deep at " + path); return
    for i in (0, 1):
        c = v["m_child"][i]
        if int(c) and int(c["m_ID"]) != i:
            out.append("bad ID at %s/%d" % (path, i))
        walk(c, n, depth + 1, path + str(i))
walk(sent["m_child"][0], sent, 0, "r")
print("nodes %d; keys %s" % (len(seen), sorted(int(gdb.Value(k).cast(sent.type).dereference()["m_val"]) for k in seen)))
for l in out[:20]: print(l)
