#!/usr/bin/env python3
"""mkvariants.py TRANSMEM: make our check variants next to the originals in a transmem copy:
benchmarks/ubench_chk (prints the number of keys before and after the run) and
tests/tmcondvar_chk (bounded-buffer checks the items left in the buffer against the sums of
the items put and taken). Our edits only; the programs are not in this repository."""
import shutil
import sys
from pathlib import Path

root = Path(sys.argv[1])


def edit(path, pairs):
    s = path.read_text()
    for old, new, count in pairs:
        if s.count(old) != count:
            sys.exit(f"{path}: expected {count} of {old!r}")
        s = s.replace(old, new)
    path.write_text(s)


def variant(src, dst):
    src, dst = root / src, root / dst
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("obj32", "obj64"))
    return dst


ub = variant("benchmarks/ubench", "benchmarks/ubench_chk")
edit(ub / "bmharness.h", [
    ("    /// warm up the data structure in a repeatable way",
     "    /// ubench_chk: count the keys in [0, elements] with sequential lookups\n"
     "    /// (not for Counter, whose lookup increments)\n"
     "    long count_keys() {\n"
     "        if (Config::CFG.bmname == \"Counter\") return -1;\n"
     "        long n = 0;\n"
     "        for (uint32_t k = 0; k <= Config::CFG.elements; k++)\n"
     "            if (set->lookup(k)) n++;\n"
     "        return n;\n"
     "    }\n\n"
     "    /// warm up the data structure in a repeatable way", 1),
    ("        // kick off the threads (this thread runs too...)",
     "        // ubench_chk (tmkit check variant): count the keys before the run\n"
     "        long keys_before = count_keys();\n"
     "        // kick off the threads (this thread runs too...)", 1),
    ("        std::cout << \"Verification: \" << (v ? \"Passed\" : \"Failed\") << \"\\n\";",
     "        std::cout << \"Verification: \" << (v ? \"Passed\" : \"Failed\") << \"\\n\";\n"
     "        // ubench_chk: keys after the run; the run script checks\n"
     "        // after == before + successful inserts - successful removes\n"
     "        long keys_after = count_keys();\n"
     "        std::cout << \"Keys before: \" << keys_before << \" after: \" << keys_after << \"\\n\";", 1),
])

bb = variant("tests/tmcondvar_validation", "tests/tmcondvar_chk")
edit(bb / "bounded-buffer.cc", [
    ("/// this is the code each producer will run",
     "/// tmcondvar_chk: sums of the items produced and consumed (outside transactions)\n"
     "std::atomic<long> chk_put_sum(0), chk_get_sum(0), chk_puts(0), chk_gets(0);\n\n"
     "/// this is the code each producer will run", 1),
    ("buffer->put(rand_r(&seed));",
     "{ int v = rand_r(&seed); chk_put_sum += v; chk_puts++; buffer->put(v); }", 2),
    ("tmp = buffer->get();",
     "{ tmp = buffer->get(); chk_get_sum += tmp; chk_gets++; }", 2),
    ("        printf(\"%s, Running time (s): %.3f\\n\", bench_name, time_end - time_begin);",
     "        printf(\"%s, Running time (s): %.3f\\n\", bench_name, time_end - time_begin);\n"
     "        // tmcondvar_chk: what is left in the buffer must be what was put in\n"
     "        // (preload included) minus what was taken out\n"
     "        buffer_t* b = NULL;\n"
     "        switch (bench) {\n"
     "          case 0: b = &static_cast<pthread_buffer_t*>(buffer)->buffer; break;\n"
     "          case 1: b = &static_cast<lock_sem_buffer_t*>(buffer)->buffer; break;\n"
     "          case 2: b = &static_cast<tm_sem_buffer_t*>(buffer)->buffer; break;\n"
     "          case 3: b = &static_cast<lock_tmcondvar_buffer_t*>(buffer)->buffer; break;\n"
     "          case 4: b = &static_cast<tm_tmcondvar_buffer_t*>(buffer)->buffer; break;\n"
     "        }\n"
     "        long pre = (long)floor(bb.size * bb.preload_factor);\n"
     "        long left = 0;\n"
     "        for (int k = 0; k < b->size; k++)\n"
     "            left += b->buf[(b->use + k) % b->capacity];\n"
     "        bool ok = b->size == pre + chk_puts - chk_gets\n"
     "            && (b->use + b->size) % b->capacity == b->fill\n"
     "            && pre * (long)~0 + chk_put_sum == chk_get_sum + left;\n"
     "        printf(\"Check %s: %s (size %d, puts %ld, gets %ld)\\n\", bench_name,\n"
     "               ok ? \"ok\" : \"BAD\", b->size, (long)chk_puts, (long)chk_gets);\n"
     "        chk_put_sum = 0; chk_get_sum = 0; chk_puts = 0; chk_gets = 0;", 1),
])
print("made", ub, bb)
