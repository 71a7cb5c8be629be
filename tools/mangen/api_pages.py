"""Section 3 pages for the header's API, written from the headers' own leading comments (the
documentation each header carries: what the calls do, an example, the fallback on GCC's libitm),
so a page cannot say something the header does not. Each page adds a synopsis (PAGES below;
tests/install/test_man.sh checks that every name in it is defined in include/) and links pages
for its other names (.so)."""
import os
import re

from roff import esc, header, inline, pre, see_also

# page -> (header, the comment's first line to keep (None: all of it), summary, synopsis)
PAGES = {
    "tm_retry": ("tmkit/wait.h", None, "wait inside a transaction until what it read changes", [
        "tm_atomic_retry { ... }",
        "void tm_retry(void);",
        "void tm_retry_until(tm_deadline_t deadline);",
        "tm_deadline_t tm_deadline_in(uint64_t ns);",
        "TM_MAY_RETRY void f(...);  /* a function that may wait for its caller */"]),
    "tm_cond_wait": ("tmkit/wait.h", None, "condition variables for transactions", [
        "tm_cond_t c = TM_COND_INITIALIZER;",
        "void tm_cond_wait(tm_cond_t *c);",
        "void tm_cond_wait_until(tm_cond_t *c, tm_deadline_t deadline);",
        "void tm_cond_signal(tm_cond_t *c);",
        "void tm_cond_broadcast(tm_cond_t *c);"]),
    "tm_counter_add": ("tmkit/counter.h", None, "counters that transactions add to without conflicts", [
        "tm_counter_t c = TM_COUNTER_INITIALIZER;",
        "void tm_counter_add(tm_counter_t *c, long delta);",
        "long tm_counter_read(tm_counter_t *c);",
        "void tm_counter_snapshot(tm_counter_t *const *c, long *values, int n);"]),
    "tm_group_lock": ("tmkit/group.h", None, "lock groups for sections that must stay irrevocable", [
        "tm_group_t g = TM_GROUP_INITIALIZER;",
        "void tm_group_lock(tm_group_t *g, ...);",
        "void tm_group_unlock(tm_group_t *g, ...);",
        "void tm_group_enter(tm_group_t *g, ...);",
        "void tm_group_exit(tm_group_t *g, ...);"]),
    "tm_atomic_fetch_add": ("tmkit/atomic.h", None, "atomics that work inside and outside transactions", [
        "T tm_atomic_load(T *p);",
        "void tm_atomic_store(T *p, T v);",
        "T tm_atomic_exchange(T *p, T v);",
        "int tm_atomic_compare_exchange(T *p, T *expected, T desired);",
        "T tm_atomic_fetch_add(T *p, T v);",
        "T tm_atomic_fetch_sub(T *p, T v);",
        "T tm_atomic_fetch_and(T *p, T v);",
        "T tm_atomic_fetch_or(T *p, T v);"]),
    "tm_on_commit": ("tmkit.h", "Commit and abort handlers", "run code after a transaction commits or rolls back", [
        "tm_on_commit(captures...) { body }",
        "tm_on_abort(captures...) { body }",
        "void tmkit::on_commit(F f);   /* C++ */",
        "void tmkit::on_abort(F f);    /* C++ */"]),
}

SEE = ["tmkit(1)", "tmkit(7)"]


def names(page):
    """The API names a page documents (its synopsis' identifiers starting tm_ or TM_)."""
    out = []
    for line in PAGES[page][3]:
        line = re.sub(r"/\*.*?\*/", "", line)
        for n in re.findall(r"\b((?:tmkit::)?(?:tm|TM)_\w+|tmkit::\w+)\b", line):
            if n not in out and not n.endswith("_t"):
                out.append(n)
    return out


def comment(path, start):
    """The header's first comment as text lines, from the paragraph starting with `start`."""
    text = open(path).read()
    body = text[text.index("/*") + 2:text.index("*/")]
    lines = [re.sub(r"^ ?\* ?", "", line) for line in body.splitlines()]
    if " — " in lines[0]:  # "x.h — title (included by tmkit.h)." up to the first blank line
        lines = lines[next(i for i, line in enumerate(lines) if not line.strip()) + 1:]
    if start:
        lines = lines[next(i for i, line in enumerate(lines) if line.startswith(start)):]
    return lines


def description(lines):
    """Comment lines as roff: indented lines are examples, '- ' starts a list item."""
    out, buf, code = [], [], []

    def flush():
        if buf:
            text = " ".join(" ".join(buf).split())
            if text.startswith("- "):
                out.append(".IP \\(bu 2\n" + inline(text[2:]) + "\n")
            else:
                out.append(".PP\n" + inline(text) + "\n")
            buf.clear()
        if code:
            while code and not code[-1].strip():
                code.pop()
            out.append(pre(code))
            code.clear()
    for line in lines:
        if line.startswith("    ") or (code and not line.strip()):
            if buf:
                flush()
            code.append(line[4:])
        elif not line.strip():
            flush()
        else:
            if code or line.startswith("- "):
                flush()
            buf.append(line)
    flush()
    return "".join(out)


def page(name, include_dir, version):
    hdr, start, summary, synopsis = PAGES[name]
    others = [f"{p}(3)" for p in PAGES if p != name]
    return "".join([
        header(name, 3, version, "tmkit Library Functions", summary).replace(
            f".SH NAME\n{esc(name)} ", ".SH NAME\n" + esc(", ".join(names(name))) + " ", 1),
        ".SH SYNOPSIS\n.nf\n" + esc("#include <tmkit.h>") + "\n\n",
        "\n".join(f"\\fB{esc(s)}\\fR" for s in synopsis) + "\n.fi\n",
        ".PP\nCompile with \\fB\\-fgnu\\-tm\\fR (\\fBpkg\\-config \\-\\-cflags tmkit\\fR); "
        f"<tmkit.h> includes <{hdr}>.\n" if hdr != "tmkit.h" else "\n",
        ".SH DESCRIPTION\n", description(comment(os.path.join(include_dir, hdr), start)),
        see_also(others + SEE)])


def aliases(name):
    """{alias page name: .so line} for the other names a page documents."""
    return {n: f".so man3/{name}.3\n" for n in names(name)
            if n != name and "::" not in n and n.startswith("tm_")}
