"""Shared data types of the analysis (no libclang here)."""


class UserError(Exception):
    """Bad input: reported as one message, exit status 2, never a traceback."""


class Loc:
    """A source position: file (as given to the compiler) and 1-based line."""
    __slots__ = ("file", "line")

    def __init__(self, file, line):
        self.file, self.line = file, line

    def __str__(self):
        return f"{self.file}:{self.line}"


class Event:
    """One thing a statement does, in source order.

    kind: 'call' (name, usr, decl, args, indirect, fntype), 'access' (what = abstract location,
    mode 'r'/'w'/'rw'), 'volatile' (mode, loc), 'atomic', 'asm' (what = a description).
    Lock operations are calls; locks.py recognises them and sets `lockop`.
    """
    __slots__ = ("kind", "what", "mode", "line", "file", "usr", "decl", "args", "indirect",
                 "fntype", "loc", "lockop", "cursor", "conditional")

    def __init__(self, kind, what, line, file, mode=None, usr=None, decl=None, args=(),
                 indirect=False, cursor=None, fntype=None):
        self.kind, self.what, self.line, self.file, self.mode = kind, what, line, file, mode
        self.usr, self.decl, self.args, self.indirect = usr, decl, args, indirect
        self.fntype = fntype      # an indirect call: the pointed-to function type (events.py)
        self.loc = None           # 'volatile': the abstract location accessed (a global's name)
        self.lockop = None
        self.cursor = cursor
        self.conditional = False  # only on some evaluations of its statement (?:, &&, ||)


class Func:
    """A function with a body in some translation unit."""

    def __init__(self, name, usr, file, line, tu, cursor, params, static, system):
        self.name, self.usr, self.file, self.line = name, usr, file, line
        self.tu, self.cursor, self.params = tu, cursor, params
        self.static, self.system = static, system
        self.cfg = None           # cfg.CFG, built on demand
        self.summary = None       # safety.Summary
        self.wrapper = []         # locks.WrapperOp list: what a call to this function does to locks
        self.decl = None          # its defining FUNCTION_DECL cursor
