# gdb -batch -p PID -x check.py : for each slab class, how many of its slab_list entries [0, slabs)
# are not page pointers (a page is item_size_max = 1 MiB, malloc'd: 16 bytes past a 4 KiB boundary)
import gdb
n = int(gdb.parse_and_eval("power_largest"))
bad_total = 0
for i in range(1, n + 1):
    c = gdb.parse_and_eval("slabclass[%d]" % i)
    slabs, size = int(c["slabs"]), int(c["list_size"])
    if slabs == 0:
        continue
    lst = c["slab_list"]
    bad = [j for j in range(slabs) if (int(lst[j]) & 0xfff) != 0x010]
    bad_total += len(bad)
    print("class %d slabs %d list_size %d bad %d %s" % (i, slabs, size, len(bad),
          " ".join("%d:%#x" % (j, int(lst[j])) for j in bad[:4])))
print("BAD_TOTAL", bad_total)
