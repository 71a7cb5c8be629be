"""Lock operations: the pthread/C11 lock API, wrapper functions, lock names and lock states.

A lock is named twice: by `key`, the lock expression as written in the function (`it->lock`,
`*m`, `cache_lock`), which matches acquisitions to releases inside one function; and by an
abstract `name` shared by the whole program (`cache_lock`, `struct item::lock`, `locks[]`,
`f::*m` for a pointer nobody resolves).

A wrapper is a function that leaves a lock held that is rooted at a parameter or a global
(acquire), releases one it did not take (release), or returns a trylock's result (try). A call
to it is then that lock operation on the caller's argument; this propagates through wrappers of
wrappers. Macros need nothing: libclang sees their expansion.
"""
from clang.cindex import CursorKind as K, StorageClass

from .parse import binary_op, const_int, strip, unary_op

#        name: (op, kind, mode, index of the lock argument)
API = {
    "pthread_mutex_lock": ("acquire", "mutex", "exclusive", 0),
    "pthread_mutex_trylock": ("try", "mutex", "exclusive", 0),
    "pthread_mutex_timedlock": ("try", "mutex", "exclusive", 0),
    "pthread_mutex_clocklock": ("try", "mutex", "exclusive", 0),
    "pthread_mutex_unlock": ("release", "mutex", None, 0),
    "pthread_spin_lock": ("acquire", "spinlock", "exclusive", 0),
    "pthread_spin_trylock": ("try", "spinlock", "exclusive", 0),
    "pthread_spin_unlock": ("release", "spinlock", None, 0),
    "pthread_rwlock_rdlock": ("acquire", "rwlock", "read", 0),
    "pthread_rwlock_wrlock": ("acquire", "rwlock", "write", 0),
    "pthread_rwlock_tryrdlock": ("try", "rwlock", "read", 0),
    "pthread_rwlock_trywrlock": ("try", "rwlock", "write", 0),
    "pthread_rwlock_timedrdlock": ("try", "rwlock", "read", 0),
    "pthread_rwlock_timedwrlock": ("try", "rwlock", "write", 0),
    "pthread_rwlock_unlock": ("release", "rwlock", None, 0),
    "mtx_lock": ("acquire", "mutex", "exclusive", 0),
    "mtx_trylock": ("try", "mutex", "exclusive", 0),
    "mtx_timedlock": ("try", "mutex", "exclusive", 0),
    "mtx_unlock": ("release", "mutex", None, 0),
    "pthread_cond_wait": ("wait", "mutex", None, 1),
    "pthread_cond_timedwait": ("wait", "mutex", None, 1),
    "pthread_cond_clockwait": ("wait", "mutex", None, 1),
    "cnd_wait": ("wait", "mutex", None, 1),
    "cnd_timedwait": ("wait", "mutex", None, 1),
}


class LockOp:
    __slots__ = ("op", "kind", "mode", "key", "name", "root", "template", "via", "success")

    def __init__(self, op, kind, mode, key, name, root, template, via=None):
        self.op, self.kind, self.mode, self.key, self.name = op, kind, mode, key, name
        self.root, self.template, self.via = root, template, via
        self.success = None      # for 'try' in a branch condition: the edge label of success


def render(c):
    """Canonical text of a (lock) expression."""
    s = strip(c)
    k = s.kind
    if k == K.DECL_REF_EXPR:
        return s.spelling
    if k == K.MEMBER_REF_EXPR:
        base = next(iter(s.get_children()), None)
        if base is None:
            return s.spelling
        arrow = base.type.get_canonical().spelling.endswith("*")
        return render(base) + ("->" if arrow else ".") + s.spelling
    if k == K.ARRAY_SUBSCRIPT_EXPR:
        ch = list(s.get_children())
        return render(ch[0]) + "[" + render(ch[1]) + "]"
    if k == K.UNARY_OPERATOR:
        op = unary_op(s)
        inner = render(next(iter(s.get_children())))
        if op in ("&", "*"):
            return op + (inner if inner.replace("_", "").isalnum() or op == "&" else f"({inner})")
        return "?"
    if k == K.INTEGER_LITERAL:
        return str(const_int(s))
    if k == K.CALL_EXPR:
        return (s.spelling or "?") + "()"
    return "?"


def deref(text):
    """The lock object named by a pointer expression's text."""
    if text.startswith("&"):
        return text[1:]
    return "*" + (text if text.replace("_", "").isalnum() else f"({text})")


def _root(obj_cursor, func_params):
    s = strip(obj_cursor)
    while True:
        k = s.kind
        if k == K.DECL_REF_EXPR:
            ref = s.referenced
            if ref is not None and ref.kind == K.PARM_DECL and s.spelling in func_params:
                return ("param", func_params.index(s.spelling))
            if ref is not None and ref.kind == K.VAR_DECL and (
                    ref.storage_class in (StorageClass.STATIC, StorageClass.EXTERN)
                    or ref.semantic_parent.kind == K.TRANSLATION_UNIT):
                return ("global",)
            return ("local",)
        kids = list(s.get_children())
        if not kids:
            return ("local",)
        s = strip(kids[0])


def _local_init(decl_ref):
    """The initializer of a local pointer variable, if it has one."""
    ref = decl_ref.referenced
    if ref is None or ref.kind != K.VAR_DECL:
        return None
    return next((x for x in ref.get_children() if x.kind.is_expression()), None)


def abstract(arg, func, ex, depth=0):
    """Program-wide name of the lock a pointer argument designates."""
    s = strip(arg)
    if s.kind == K.UNARY_OPERATOR and unary_op(s) == "&":
        obj = next(iter(s.get_children()))
        so = strip(obj)
        if so.kind == K.MEMBER_REF_EXPR and so.referenced is not None:
            # a lock field is named by its struct type even in a local struct: the struct is
            # usually shared through pointers (threads get its address)
            from .events import _record_name
            return f"{_record_name(so.referenced)}::{so.spelling}"
        loc = ex.location(obj)
        if loc is None:
            return f"{func.name}::{render(obj)}"
        return loc
    if s.kind == K.DECL_REF_EXPR:
        init = _local_init(s)
        if init is not None and depth < 4 and s.referenced.kind == K.VAR_DECL:
            return abstract(init, func, ex, depth + 1)
        loc = ex.location(s)
        if loc is not None:                 # global pointer to a lock
            return "*" + loc
        return f"{func.name}::*{s.spelling}"
    if s.kind == K.ARRAY_SUBSCRIPT_EXPR or s.kind == K.MEMBER_REF_EXPR:
        loc = ex.location(s)
        return "*" + loc if loc else f"{func.name}::*{render(s)}"
    return f"{func.name}::{render(s)}"


def _template(key, root, params):
    """Wrapper key as a template over the parameter: ('*', '') for *m, ('', '->lock') for it->lock."""
    if root[0] != "param":
        return None
    p = params[root[1]]
    if key == "*" + p:
        return (root[1], True, "")
    if key.startswith(p):
        return (root[1], False, key[len(p):])
    return None


def instantiate(template, arg_text):
    i, is_deref, suffix = template
    if is_deref:
        return deref(arg_text)
    if suffix.startswith("->") and arg_text.startswith("&"):
        return arg_text[1:] + "." + suffix[2:]
    return arg_text + suffix


def success_label(cond, call_cursor):
    """Edge label ('T'/'F') on which a trylock in branch condition `cond` succeeded, or None."""
    s = strip(cond)
    neg = False
    while s.kind == K.UNARY_OPERATOR and unary_op(s) == "!":
        neg = not neg
        s = strip(next(iter(s.get_children())))
    if s.kind == K.CALL_EXPR and s == call_cursor:
        return "T" if neg else "F"          # nonzero (true) means failure
    if s.kind == K.BINARY_OPERATOR and binary_op(s) in ("==", "!="):
        a, b = [strip(x) for x in s.get_children()]
        if b == call_cursor:
            a, b = b, a
        if a != call_cursor:
            return None
        v = const_int(b)
        if v is None:
            return None
        eq = (binary_op(s) == "==") != neg
        ok_when_true = eq if v == 0 else not eq
        return "T" if ok_when_true else "F"
    return None
