"""--apply: a lock that one or a few sections keep becomes a lock group of the same identity.

Without this, one section the rewrite cannot restructure (a release in another block or
function, a lock call inside an expression, a section held across a return) keeps its lock and
every other section of it as pthread code. Here such a lock L becomes a group, `tm_group_t`
(include/tmkit/group.h), and
- every lock and unlock call of L that no transaction replaces becomes, call for call and in
  place, tm_group_lock / tm_group_unlock of L's group (`(tm_group_lock(g), 0)` where the call's
  int result is used): those sections stay plain code and exclude each other exactly as the
  mutex did, and they exclude L's transactions;
- the sections of L that the rewrite can restructure become transactions that enter L's group
  (tm_group_enter, shared) before they begin: they wait while a plain section holds it and run
  speculatively among themselves.
A lock array (`locks[i]`) becomes a group only with --group-arrays, and then one group for the
whole array: it keeps the groups' one order (a thread never holds two groups of one array in an
order the runtime would refuse; a group per element would need a proof that no thread holds two
elements at once), but it is coarser than the mutexes, since a plain section of one element
excludes the transactions of every element. Without the option the array stays a mutex array:
memcached's `lru_locks[]` as one group, whose plain `lru_pull_tail` took it exclusively about
127,000 times a second under a get/set load, ran the server at 0.51-0.70x the lock build's
throughput (docs/advise.md).

L qualifies (candidates()) when it is a global variable or array, every operation on it is a
lock or unlock (no trylock, no condition-variable wait with it), each call names `&L` or
`&L[i]` (i without side effects) directly or through a wrapper whose own call does, the call is
spelled as itself or as a macro that passes its argument through, and L's name appears nowhere
else but in its declarations, init and destroy (its address goes nowhere else).
settle() then decides which candidates become groups, against three rules (docs/groups.md):
1. no section of L runs inside a transaction (L in no transaction's `acquires`): a transaction
   that waits for L's group may be irrevocable, holding the serial lock, while a plain section
   that holds the group begins a transaction; a transaction of another grouped lock that takes
   L inside stays plain code instead, else L stays a mutex;
2. groups are taken in one order (their index in tmkit_groups): lock groups come before the
   colours' groups, and in a topological order of the plain sections' nesting; a cycle, or a
   group-lock section (holding colours) that takes L, keeps L a mutex;
3. the other --apply rules (planning._keep_for_serial_lock) hold with L's plain sections as
   code that is no transaction; a section they would keep stays plain code instead.
"""
import re

from clang.cindex import CursorKind as K

from .lockflow import lockops
from .parse import binary_op, strip, unary_op
from .program import display

ARRAY = "tmkit_groups"     # classify.GROUPS_ARRAY: lock groups take its first entries
_NAME = re.compile(r"[A-Za-z_]\w*(\[\])?")
_COMMENT = re.compile(rb"/\*.*?\*/|//[^\n]*", re.S)


class Candidate:
    def __init__(self, name, ops):
        self.name, self.ops = name, ops      # ops: [(func, node, ev, lk)]
        self.spans = {}                      # file -> [(a, b)] of the calls written in place


def _text(read, c):
    f = c.extent.start.file
    return (f.name, c.extent.start.offset, c.extent.end.offset) if f else None


def _side_effects(c):
    for x in c.walk_preorder():
        if x.kind == K.CALL_EXPR or x.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
            return True
        if x.kind == K.UNARY_OPERATOR and unary_op(x) in ("++", "--"):
            return True
        if x.kind == K.BINARY_OPERATOR and binary_op(x) == "=":
            return True
    return False


def _direct(prog, base, is_array, n, ev, read):
    """None if this pthread call on the lock can be written in place, else why not."""
    if not ev.args:
        return "no argument"
    arg = strip(ev.args[0])
    if arg.kind != K.UNARY_OPERATOR or unary_op(arg) != "&":
        return "the call names the lock through a pointer"
    obj = strip(next(iter(arg.get_children())))
    if is_array:
        if obj.kind != K.ARRAY_SUBSCRIPT_EXPR:
            return "the call names the array, not an element"
        kids = list(obj.get_children())
        if strip(kids[0]).kind != K.DECL_REF_EXPR or strip(kids[0]).spelling != base:
            return "the element is not named by the array"
        if _side_effects(kids[1]):
            return "the element's index has side effects"
    elif obj.kind != K.DECL_REF_EXPR or obj.spelling != base:
        return "the call does not name the lock itself"
    call, a_ = _text(read, ev.cursor), _text(read, ev.args[0])
    if call is None or a_ is None or call[0] != a_[0] or not (call[1] <= a_[1] and a_[2] <= call[2]):
        return "the call is spelled inside a macro"
    src = read(call[0])
    if not (re.fullmatch(rb"\s*\w+\s*\(\s*", src[call[1]:a_[1]])
            and re.fullmatch(rb"\s*\)\s*", src[a_[2]:call[2]])):
        return "the call is spelled inside a macro that does more"
    for other in n.events:
        c = other.cursor
        if other is ev or c is None or _text(read, c) is None:
            continue
        t = _text(read, c)
        if t[0] == call[0] and call[1] <= t[1] and t[2] <= call[2] and \
                not (other.kind == "access" and other.mode == "r"):
            return "the macro around the call does more than lock"
    return None


ARRAY_REFUSED = ("a lock array: one group for the whole array would make each element's plain "
                 "sections exclude the transactions of every element, and a group per element "
                 "needs a proof that no thread holds two at once (--group-arrays: one group)")


def candidates(prog, read, arrays=False):
    """({name: Candidate}, {name: why not}) over every lock the program operates on; lock
    arrays only with `arrays` (--group-arrays)."""
    ops = {}
    for f in prog.user_funcs():
        g = prog.graph(f)
        for n in g.nodes:
            for ev, lk in lockops(n):
                ops.setdefault(lk.name, []).append((f, n, ev, lk))
    out, refused = {}, {}
    for name, lst in sorted(ops.items()):
        why = _check(prog, name, lst, read)
        if not why and name.endswith("[]") and not arrays:
            why = ARRAY_REFUSED
        if why:
            refused[name] = why
        else:
            out[name] = Candidate(name, lst)
    scan = {u.file for u in prog.units} | set(prog.files)
    for name in list(out):
        why = _escapes(out[name], scan, read)
        if why:
            refused[name] = why
            del out[name]
    return out, refused


def _check(prog, name, lst, read):
    if not _NAME.fullmatch(name):
        return ("a field, a local or a lock behind a pointer: a group per object is not "
                "written" if "::" in name or name.startswith("*") else "not a global lock")
    base, is_array = name.rstrip("[]"), name.endswith("[]")
    for f, n, ev, lk in lst:
        if lk.op not in ("acquire", "release"):
            return (f"a {'trylock' if lk.op == 'try' else 'condition-variable wait'} at "
                    f"{display(ev.file)}:{ev.line}")
    for f, n, ev, lk in lst:
        where = f"{display(ev.file)}:{ev.line}"
        if lk.via:
            callee = prog.callee(ev)
            if callee is None or any(w.template is not None for w in callee.wrapper):
                return f"the wrapper {lk.via} ({where}) takes the lock from its caller"
            continue
        if lk.root != ("global",):
            return f"the call at {where} names it through a pointer"
        why = _direct(prog, base, is_array, n, ev, read)
        if why:
            return f"{why} ({where})"
    return None


def _escapes(cand, files, read):
    """Why the lock's name appears elsewhere than in its lock calls, declarations, init and
    destroy (its address could reach code that locks it as a mutex), or None."""
    base = cand.name.rstrip("[]")
    spans = {}
    for f, n, ev, lk in cand.ops:
        if lk.via is None:
            t = _text(read, ev.cursor)
            spans.setdefault(t[0], []).append((t[1], t[2]))
    cand.spans = spans
    word = re.compile(rb"\b" + re.escape(base.encode()) + rb"\b")
    ok = re.compile(rb"(pthread_mutex_t|pthread_spinlock_t|pthread_rwlock_t|mtx_t)\s+$|"
                    rb"(pthread_mutex_init|pthread_mutex_destroy|pthread_spin_init|"
                    rb"pthread_spin_destroy|pthread_rwlock_init|pthread_rwlock_destroy|mtx_init|"
                    rb"mtx_destroy)\s*\(\s*&\s*$")
    for path in sorted(files):
        try:
            src = read(path)
        except OSError:
            continue
        if base.encode() not in src:
            continue
        text = _COMMENT.sub(lambda m: b" " * len(m.group(0)), src)
        for m in word.finditer(text):
            a = m.start()
            if any(x <= a < y for x, y in spans.get(path, ())):
                continue
            head = text[max(0, a - 64):a]
            if ok.search(head):
                continue
            line = src.count(b"\n", 0, a) + 1
            return f"its name is used outside its lock calls at {display(path)}:{line}"
    return None


def merge(res, extra, sections):
    """The plain sections' calls, written in place, join --apply's other edits; their files get
    the groups array (rewrite.build)."""
    for path, edits in sorted(res.edits.items()):
        for a, b, text in edits:
            extra.add(path, a, b, text, prio=1)
    extra.group_files = set(res.edits)
    extra.groups_total = res.total


def to_json(res, sections, refused, kept):
    """JSON `lock_groups`: each lock that became a group, its plain sections with file:line and
    why each stays plain code, its transactions; `left`: the locks that stay mutexes and why a
    group could not replace them."""
    groups, left = [], []
    order = res.order if res is not None else []
    by_id = {s.id: s for s in sections}
    for L in order:
        mine = [s for s in sections if s.lock.name == L]
        groups.append({
            "lock": L, "group": res.group(L),
            "plain": [{"id": s.id, "function": s.func.name, "file": display(s.file),
                       "line": s.line, "why": res.plain[s.id]} for s in mine if s.id in res.plain],
            "transactions": [s.id for s in mine if s.patch and s.patch.get("eligible")]})
    names = sorted({s.lock.name for s in sections})
    for L in names:
        if L in order or L not in kept:
            continue
        why = (res.dropped.get(L) if res is not None else None) or refused.get(L)
        if why:
            left.append({"lock": L, "reason": why})
    del by_id
    return {"groups": groups, "left": left}


def to_text(doc, w):
    g = doc.get("lock_groups")
    if not g or not (g["groups"] or g["left"]):
        return
    w(f"\nLock groups (--apply: {len(g['groups'])} kept lock(s) become groups; sections that "
      "cannot be transactions stay plain code under them)\n")
    for x in g["groups"]:
        w(f"  {x['lock']} -> {x['group']}: transactions "
          f"{', '.join('#%d' % i for i in x['transactions']) or '-'}\n")
        for p in x["plain"]:
            w(f"    plain #{p['id']} {p['function']} {p['file']}:{p['line']}: {p['why']}\n")
    for x in g["left"]:
        w(f"  {x['lock']} stays a lock: {x['reason']}\n")
