"""libclang front end: parse translation units, read constants and operator kinds.

libclang is the C front end, so macros, typedefs and types are exactly the compiler's. The
front end (the shared library) and clang's resource headers (stddef.h, emmintrin.h, ...) must
be one version: Debian 12's clang 14 headers do not parse with a libclang 18 ("invalid
conversion between vector type '__m128i' and integer type"), which stopped the analysis of any
real server including SIMD headers. front_end() therefore picks a Debian LLVM installation that
has both, the newest first (scripts/deps.sh installs libclang1-19 and libclang-common-19-dev),
and points the Python binding (pip libclang==18.1.1, scripts/venv.sh: only its cindex.py is
used then; the C API it calls is stable) at that library. TMKIT_LIBCLANG and
TMKIT_CLANG_RESOURCE_DIR override the pair. The binding lacks a few entry points that the
library has (constant evaluation, operator kinds); they are declared here with ctypes.
"""
import ctypes
import glob
import os

import clang.cindex as ci
from clang.cindex import Cursor, CursorKind as K, conf

from .model import UserError

_lib = None
_UNARY = {}
_BINARY = {}


def _setup():
    global _lib
    if _lib is not None:
        return _lib
    front_end()
    lib = conf.lib
    sig = [("clang_Cursor_Evaluate", [Cursor], ctypes.c_void_p),
           ("clang_EvalResult_getKind", [ctypes.c_void_p], ctypes.c_int),
           ("clang_EvalResult_getAsLongLong", [ctypes.c_void_p], ctypes.c_longlong),
           ("clang_EvalResult_dispose", [ctypes.c_void_p], None),
           ("clang_getCursorUnaryOperatorKind", [Cursor], ctypes.c_int),
           ("clang_getCursorBinaryOperatorKind", [Cursor], ctypes.c_int),
           ("clang_getUnaryOperatorKindSpelling", [ctypes.c_int], ci._CXString),
           ("clang_getBinaryOperatorKindSpelling", [ctypes.c_int], ci._CXString)]
    for name, args, res in sig:
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    # CXUnaryOperatorKind runs 1..14 (PostInc..Coawait), CXBinaryOperatorKind 1..33
    # (PtrMemD..Comma) in libclang 17/18; out-of-range values abort inside libclang.
    for table, spell, last in ((_UNARY, lib.clang_getUnaryOperatorKindSpelling, 14),
                               (_BINARY, lib.clang_getBinaryOperatorKindSpelling, 33)):
        for i in range(1, last + 1):
            s = spell(i)
            text = lib.clang_getCString(s)
            lib.clang_disposeString(s)
            if text:
                table[i] = text
    _lib = lib
    return lib


def unary_op(c):
    """'&', '*', '++', '--', '!', '-', ... for a UNARY_OPERATOR cursor."""
    lib = _setup()
    return _UNARY.get(lib.clang_getCursorUnaryOperatorKind(c), "?")


def binary_op(c):
    """'=', '+=', '==', '&&', ... for a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR cursor."""
    lib = _setup()
    return _BINARY.get(lib.clang_getCursorBinaryOperatorKind(c), "?")


def const_int(c):
    """The value of an integer constant expression, or None."""
    lib = _setup()
    r = lib.clang_Cursor_Evaluate(c)
    if not r:
        return None
    try:
        return lib.clang_EvalResult_getAsLongLong(r) if lib.clang_EvalResult_getKind(r) == 1 else None
    finally:
        lib.clang_EvalResult_dispose(r)


_front = None


def front_end():
    """(libclang shared library, resource dir) of one LLVM version; the binding is pointed at
    the library before its first use."""
    global _front
    if _front is not None:
        return _front
    lib, res = os.environ.get("TMKIT_LIBCLANG"), os.environ.get("TMKIT_CLANG_RESOURCE_DIR")
    if not (lib and res):
        def version(d):
            try:
                return int(os.path.basename(d).split("-")[1])
            except (IndexError, ValueError):
                return 0
        for d in sorted(glob.glob("/usr/lib/llvm-*"), key=version, reverse=True):
            n = version(d)
            libs = glob.glob(os.path.join(d, "lib", f"libclang-{n}.so*")) + \
                glob.glob(os.path.join(d, "lib", "libclang.so*"))
            heads = [h for h in glob.glob(os.path.join(d, "lib", "clang", "*"))
                     if os.path.exists(os.path.join(h, "include", "emmintrin.h"))]
            if libs and heads:
                lib, res = lib or sorted(libs)[0], res or sorted(heads)[-1]
                break
    if not (lib and res):
        raise UserError("no libclang with clang's resource headers of the same version was found "
                        "under /usr/lib/llvm-*/ (the front end and its headers must match); run "
                        "scripts/deps.sh (Debian libclang1-19, libclang-common-19-dev) or set "
                        "TMKIT_LIBCLANG and TMKIT_CLANG_RESOURCE_DIR")
    if not conf.loaded:
        ci.Config.set_library_file(lib)
    _front = (lib, res)
    return _front


def resource_dir():
    return front_end()[1]


_index = None


def parse(path, args):
    """Parse one C file; raise UserError listing the front end's errors with their locations."""
    global _index
    _setup()
    if not os.path.isfile(path):
        raise UserError(f"{path}: no such file")
    if _index is None:
        _index = ci.Index.create()
    full = ["-x", "c", "-resource-dir", resource_dir(), "-ferror-limit=20",
            "-Wno-unknown-attributes"] + list(args)
    try:
        tu = _index.parse(path, args=full)
    except ci.TranslationUnitLoadError as e:
        raise UserError(f"{path}: libclang could not parse it ({e})")
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        lines = []
        for d in errors[:10]:
            loc = d.location
            where = f"{loc.file.name}:{loc.line}:{loc.column}" if loc.file else path
            lines.append(f"  {where}: error: {d.spelling}")
        more = f"\n  ... and {len(errors) - 10} more" if len(errors) > 10 else ""
        raise UserError(f"{path}: the C front end reports errors (flags: {' '.join(args) or 'none'}):\n"
                        + "\n".join(lines) + more)
    return tu


def strip(c):
    """Skip implicit casts, parentheses and explicit casts."""
    while True:
        k = c.kind
        if k in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
            kids = [x for x in c.get_children() if x.kind.is_expression()]
            if len(kids) != 1:
                return c
            c = kids[0]
        else:
            return c


def children(c):
    return list(c.get_children())


TM_WORDS = ("transaction_safe", "transaction_pure", "transaction_callable",
            "transaction_unsafe", "transaction_may_cancel_outer")


# include/tmkit/libc.h names each wrapper tmkit_tx_<the function it wraps>, but for these.
_WRAPPER_EXCEPTIONS = {"builtin_strlen": "__builtin_strlen", "ctype_b": "__ctype_b_loc",
                       "ctype_toupper": "__ctype_toupper_loc", "ctype_tolower": "__ctype_tolower_loc"}


def wrapped_name(decl):
    """The libc function a tmkit/libc.h wrapper (tmkit_tx_NAME, declared transaction_wrap(NAME))
    stands in for inside transactions, or None. The attribute itself is not visible to clang
    (it drops GCC's TM attributes, and this one comes from a macro), so the name tells."""
    name = decl.spelling
    if not name.startswith("tmkit_tx_"):
        return None
    rest = name[len("tmkit_tx_"):]
    return _WRAPPER_EXCEPTIONS.get(rest, rest)


def tm_attribute(decl):
    """'safe' / 'pure' / None: GCC's TM attribute on a declaration (clang drops it, so read tokens).

    Any declaration of the function counts (the one in scope at a call is usually the header's).
    """
    found = None
    for tok in decl.get_tokens():
        s = tok.spelling
        if s in ("{", ";"):
            break
        if s.startswith("transaction_") or s.startswith("__transaction_"):
            w = s.strip("_")
            if w == "transaction_pure":
                return "pure"
            if w == "transaction_safe":
                found = "safe"
    return found
