"""What each CFG node does: calls, shared-memory accesses, volatile/_Atomic accesses, asm.

Shared memory is named by abstract locations: a global `g`, a global array `g[]`, a struct
field by type `struct item::refcount` (any object of that type), a pointer target by type
`*char`. Locals (non-static) and parameters are private to the thread; members and elements
of a local struct or array are private too. Pointer dereferences are shared (approximate: a
local pointer to a private object is still counted as shared).
"""
from clang.cindex import CursorKind as K, TypeKind as T, StorageClass

from .model import Event
from .parse import binary_op, strip, unary_op

_ASSIGN = "="
_SCALAR = (T.BOOL, T.CHAR_U, T.UCHAR, T.USHORT, T.UINT, T.ULONG, T.ULONGLONG, T.CHAR_S, T.SCHAR,
           T.SHORT, T.INT, T.LONG, T.LONGLONG, T.ENUM, T.POINTER)
_LVALUE_PASS = (K.PAREN_EXPR, K.UNEXPOSED_EXPR)


def _is_global(var):
    if var.storage_class in (StorageClass.STATIC, StorageClass.EXTERN):
        return True
    p = var.semantic_parent
    return p is not None and p.kind == K.TRANSLATION_UNIT


def type_name(t):
    t = t.get_canonical()
    s = t.spelling
    for q in ("volatile ", "const ", "restrict ", "_Atomic "):
        s = s.replace(q, "")
    return s


def _record_name(field):
    rec = field.semantic_parent
    if rec is None:
        return "?"
    name = type_name(rec.type)
    if "(unnamed" in name or "(anonymous" in name:
        return f"{rec.kind == K.UNION_DECL and 'union' or 'struct'} <anonymous at {rec.location.line}>"
    return name


class Extractor:
    """Turns the expression tree of one statement into a list of Events."""

    def __init__(self, func_name, file, body=None):
        self.func, self.file, self.body = func_name, file, body
        self._escaped = None

    def escaped(self, var):
        """True if the function takes the address of local `var` (or of one of its fields):
        then the struct may be shared with other threads (e.g. handed to pthread_create)."""
        if self._escaped is None:
            self._escaped = set()
            if self.body is not None:
                for x in self.body.walk_preorder():
                    if x.kind == K.UNARY_OPERATOR and unary_op(x) == "&":
                        y = strip(next(iter(x.get_children())))
                        while y.kind == K.MEMBER_REF_EXPR:
                            kids = list(y.get_children())
                            if not kids or kids[0].type.get_canonical().kind == T.POINTER:
                                break
                            y = strip(kids[0])
                        if y.kind == K.DECL_REF_EXPR and y.referenced is not None:
                            self._escaped.add(y.referenced.location.offset)
        return var.location.offset in self._escaped

    def run(self, c):
        self.out = []
        self.cond = 0
        self.walk(c, "r")
        return self.out

    def emit(self, kind, what, c, **kw):
        ev = Event(kind, what, c.location.line, self.file, cursor=c, **kw)
        ev.conditional = self.cond > 0
        self.out.append(ev)

    def branches(self, first, rest):
        """Walk `first` always, `rest` as evaluated only sometimes."""
        self.walk(first, "r")
        self.cond += 1
        for x in rest:
            self.walk(x, "r")
        self.cond -= 1

    def _check_qual(self, c, mode=None):
        t = c.type
        if t.is_volatile_qualified():
            self.emit("volatile", f"volatile access ({c.spelling or 'lvalue'})", c, mode=mode)
            if strip(c).kind == K.DECL_REF_EXPR and t.get_canonical().kind in _SCALAR:
                self.out[-1].loc = self.location(c)   # a global scalar: tm_volatile_read fits
        if t.kind == T.ATOMIC or t.get_canonical().kind == T.ATOMIC:
            self.emit("atomic", f"_Atomic access ({c.spelling or 'lvalue'})", c)

    def location(self, c):
        """(abstract location or None if private, is_array) for an lvalue expression."""
        c = strip(c)
        k = c.kind
        if k == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is None or ref.kind != K.VAR_DECL:
                return None
            if not _is_global(ref):
                return None
            p = ref.semantic_parent
            if p is not None and p.kind == K.FUNCTION_DECL:
                return f"{p.spelling}::{ref.spelling}"
            return ref.spelling
        if k == K.MEMBER_REF_EXPR:
            ref = c.referenced
            base = next(iter(c.get_children()), None)
            if base is not None and base.type.get_canonical().kind != T.POINTER:
                sb = strip(base)
                if self.location(base) is None and sb.kind == K.DECL_REF_EXPR and \
                        not (sb.referenced is not None and self.escaped(sb.referenced)):
                    return None                      # field of a local struct
            if ref is None:
                return "?"
            return f"{_record_name(ref)}::{ref.spelling}"
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            base = next(iter(c.get_children()))
            sb = strip(base)
            if sb.type.get_canonical().kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY):
                inner = self.location(sb)
                return None if inner is None else inner + "[]"
            return "*" + type_name(c.type)
        if k == K.UNARY_OPERATOR and unary_op(c) == "*":
            return "*" + type_name(c.type)
        return None

    def access(self, c, mode):
        if mode is None:
            return
        self._check_qual(c, mode)
        loc = self.location(c)
        if loc is not None:
            self.emit("access", loc, c, mode=mode)

    def walk(self, c, mode):
        k = c.kind
        if k == K.CALL_EXPR:
            return self.call(c)
        if k == K.DECL_REF_EXPR:
            return self.access(c, mode)
        if k == K.MEMBER_REF_EXPR:
            self.access(c, mode)
            base = next(iter(c.get_children()), None)
            if base is not None:
                arrow = base.type.get_canonical().kind == T.POINTER
                self.walk(base, "r" if arrow else None)
            return
        if k == K.ARRAY_SUBSCRIPT_EXPR:
            self.access(c, mode)
            ch = list(c.get_children())
            arr = strip(ch[0]).type.get_canonical().kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY,
                                                              T.VARIABLEARRAY)
            self.walk(ch[0], None if arr else "r")
            for x in ch[1:]:
                self.walk(x, "r")
            return
        if k == K.UNARY_OPERATOR:
            op = unary_op(c)
            ch = next(iter(c.get_children()), None)
            if ch is None:
                return
            if op == "*":
                self.access(c, mode)
                return self.walk(ch, "r")
            if op == "&":
                return self.walk(ch, None)
            if op in ("++", "--"):
                return self.walk(ch, "rw")
            return self.walk(ch, "r")
        if k in (K.IF_STMT, K.WHILE_STMT, K.FOR_STMT, K.SWITCH_STMT):   # inside ({ ... })
            ch = list(c.get_children())
            return self.branches(ch[0], ch[1:])
        if k == K.CONDITIONAL_OPERATOR:
            ch = list(c.get_children())
            return self.branches(ch[0], ch[1:])
        if k == K.BINARY_OPERATOR:
            ch = list(c.get_children())
            op = binary_op(c)
            if op in ("&&", "||"):
                return self.branches(ch[0], ch[1:])
            if op == _ASSIGN:
                self.walk(ch[0], "w")
            else:
                self.walk(ch[0], "r")
            return self.walk(ch[1], "r")
        if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
            ch = list(c.get_children())
            self.walk(ch[0], "rw")
            return self.walk(ch[1], "r")
        if k in _LVALUE_PASS:
            ch = list(c.get_children())
            if k == K.UNEXPOSED_EXPR and len(ch) >= 2 and ch[0].type.get_canonical().kind == T.POINTER:
                self.emit("atomic", "atomic builtin (__atomic_*/atomic_*)", c)
                for x in ch:
                    self.walk(x, "r")
                return
            for x in ch:
                self.walk(x, mode)
            return
        if k == K.CSTYLE_CAST_EXPR:
            for x in c.get_children():
                if x.kind.is_expression():
                    self.walk(x, mode if x.kind != K.TYPE_REF else None)
            return
        if k in (K.ASM_STMT, K.MS_ASM_STMT):
            return self.emit("asm", "inline asm", c)
        if k == K.VAR_DECL:
            if c.type.is_volatile_qualified():
                self.emit("volatile", f"volatile local '{c.spelling}'", c)
            if c.storage_class == StorageClass.STATIC:
                return                                # initialised once, before any thread
            for x in c.get_children():
                if x.kind.is_expression():
                    self.walk(x, "r")
            return
        if k in (K.TYPE_REF, K.INTEGER_LITERAL, K.STRING_LITERAL, K.CHARACTER_LITERAL,
                 K.FLOATING_LITERAL, K.LABEL_REF):
            return
        for x in c.get_children():
            self.walk(x, "r")

    def call(self, c):
        ch = list(c.get_children())
        ref = c.referenced
        if ref is not None and ref.kind == K.FUNCTION_DECL:
            name = ref.spelling
            if name.startswith(("__atomic_", "__sync_", "__c11_atomic")):
                self.emit("atomic", f"atomic builtin {name}", c)
            else:
                self.emit("call", name, c, usr=ref.get_usr(), decl=ref, args=ch[1:])
        else:
            callee = strip(ch[0]) if ch else None
            what = callee.spelling if callee is not None and callee.spelling else "function pointer"
            self.emit("call", what, c, indirect=True, args=ch[1:],
                      fntype=fn_type_key(ch[0].type) if ch else None)
            if ch:
                self.walk(ch[0], "r")
        for a in ch[1:]:
            self.walk(a, "r")


def fn_type_key(t):
    """The canonical spelling of a function type, or of the function a pointer points to (the
    key that matches an indirect call with the functions whose address is taken); None if T is
    neither."""
    t = t.get_canonical()
    if t.kind == T.POINTER:
        t = t.get_pointee().get_canonical()
    if t.kind in (T.FUNCTIONPROTO, T.FUNCTIONNOPROTO):
        return t.spelling
    return None


def noreturn_stmt(c):
    """True if the statement is a direct call to a function that never returns."""
    from .cfg import NORETURN
    s = strip(c)
    if s.kind != K.CALL_EXPR:
        return False
    ref = s.referenced
    return ref is not None and ref.spelling in NORETURN


def pointee_location(arg, ex):
    """(location, mode) of what a pointer argument points to, for calls without source."""
    s = strip(arg)
    if s.kind in (K.STRING_LITERAL, K.INTEGER_LITERAL):
        return None
    if s.kind == K.UNARY_OPERATOR and unary_op(s) == "&":
        inner = next(iter(s.get_children()))
        loc = ex.location(inner)
        return (loc, "rw") if loc else None
    t = s.type.get_canonical()
    if t.kind in (T.CONSTANTARRAY, T.INCOMPLETEARRAY):
        loc = ex.location(s)
        return (loc + "[]", "rw") if loc else None
    if t.kind == T.POINTER:
        p = t.get_pointee()
        if p.kind in (T.VOID, T.FUNCTIONPROTO, T.FUNCTIONNOPROTO) and not p.is_const_qualified():
            return ("*void", "rw") if p.kind == T.VOID else None
        return ("*" + type_name(p), "r" if p.is_const_qualified() else "rw")
    return None
