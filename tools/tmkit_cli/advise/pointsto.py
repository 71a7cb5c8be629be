"""Which functions an indirect call may reach: type-based points-to for function pointers.

A call through a pointer of function type F can reach any function of type F whose address the
program takes somewhere (assigned, passed, stored in an initializer), and any function whose
address is converted to a pointer to F by a cast. This is the usual type-based answer (as in
call-graph builders that resolve function pointers by signature); it is sound for programs that
do not launder function pointers through `void *` or integers, which C does not define anyway,
and precise enough that one call through a logger callback no longer counts as touching every
datum of the program (before, an indirect call shared '?' with everything, and in memcached 224
of 229 sections merged into one lock group through it).

The analysis of a section (safety.py) follows every candidate's body as it follows a direct
call. The call stays a blocker (GCC does not run an indirect call inside __transaction_atomic),
but the section's shared locations are the candidates' own. A type with a candidate that has no
source (a libc function), or with no candidate at all, keeps the old answer: '?'.
"""
from clang.cindex import CursorKind as K

from .events import fn_type_key

_PASS = (K.UNEXPOSED_EXPR, K.PAREN_EXPR)


class Targets:
    def __init__(self):
        self.by_type = {}        # function type key -> set of usr whose address is taken
        self._seen = set()       # (file, offset) of top-level declarations already walked

    def add_tu(self, tu):
        """Collects the address-taken functions of one translation unit's own code (system
        headers skipped; a header's declarations are walked once for the whole program)."""
        for top in tu.cursor.get_children():
            loc = top.location
            if loc.file is None or loc.is_in_system_header:
                continue
            key = (loc.file.name, loc.offset)
            if key in self._seen:
                continue
            self._seen.add(key)
            self._walk(top)

    def _note(self, ref, cast_key=None):
        if ref is None or ref.kind != K.FUNCTION_DECL:
            return
        usr = ref.get_usr()
        for key in (fn_type_key(ref.type), cast_key):
            if key:
                self.by_type.setdefault(key, set()).add(usr)

    def _walk(self, root):
        # (cursor, is the callee of a direct call, the function type a cast converts it to)
        stack = [(root, False, None)]
        while stack:
            c, callee, cast_key = stack.pop()
            k = c.kind
            if k == K.DECL_REF_EXPR:
                if not callee:
                    self._note(c.referenced, cast_key)
                continue
            kids = list(c.get_children())
            if k == K.CALL_EXPR and kids:
                stack.append((kids[0], True, None))
                stack += [(x, False, None) for x in kids[1:]]
            elif k in _PASS:
                stack += [(x, callee, cast_key) for x in kids]
            elif k == K.CSTYLE_CAST_EXPR:
                key = fn_type_key(c.type)
                stack += [(x, False, key or cast_key) for x in kids]
            elif k == K.UNARY_OPERATOR:   # &f keeps the cast's type, if any
                stack += [(x, False, cast_key) for x in kids]
            else:
                stack += [(x, False, None) for x in kids]

    def address_taken(self):
        """The usrs of every function whose address the program takes."""
        out = set()
        for usrs in self.by_type.values():
            out |= usrs
        return out

    def candidates(self, fntype):
        """The usrs an indirect call through FNTYPE may reach (empty: unknown)."""
        return sorted(self.by_type.get(fntype, ())) if fntype else []
