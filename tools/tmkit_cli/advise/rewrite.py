"""Apply the planned edits per file: new text, unified diff, and each section's new lines."""
import difflib
import os
import re

from .patch import apply, new_offset
from .classify import GROUPS_ARRAY
from .program import display


class FilePatch:
    def __init__(self, path, old, new, sections):
        self.path, self.old, self.new, self.sections = path, old, new, sections

    def diff(self):
        name = display(self.path)
        a = self.old.decode(errors="replace").splitlines(keepends=True)
        b = self.new.decode(errors="replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, "a/" + name, "b/" + name))


def _first_include(text):
    """Where the file's first #include line starts (0 if none): the lock-group include goes
    there, after feature-test macros such as _GNU_SOURCE that must precede every header."""
    m = re.search(rb"^[ \t]*#[ \t]*include\b", text, re.M)
    return m.start() if m else 0


def _line(text, off):
    return text.count(b"\n", 0, off) + 1


def build(sections, read):
    """FilePatch per file with eligible sections; sets s.new_lines = (open, close) lines."""
    by_file = {}
    for s in sections:
        if s.patch and s.patch.get("eligible"):
            by_file.setdefault(s.file, []).append(s)
    out = []
    ngroups = max([s.patch.get("groups", 0) for ss in by_file.values() for s in ss] or [0])
    defined = False
    for path in sorted(by_file):
        old = read(path)
        edits = []
        for s in by_file[path]:
            edits += s.patch["edits"]
        if any(s.patch.get("groups") for s in by_file[path]):
            # the lock groups, one per colour (classify.py): defined in the first file that
            # uses them, declared in the others
            decl = (f"tm_group_t {GROUPS_ARRAY}[{ngroups}] = {{"
                    + ", ".join(["TM_GROUP_INITIALIZER"] * ngroups) + "};") if not defined else \
                f"extern tm_group_t {GROUPS_ARRAY}[{ngroups}];"
            defined = True
            at = _first_include(old)
            edits.append((at, at, "#include <tmkit.h> /* tmkit advise: lock groups */\n" + decl + "\n"))
        new = apply(old, edits)
        for s in by_file[path]:
            opener = next((e for e in s.patch["edits"] if "__transaction_" in e[2]), None)
            if opener is None:  # a non-revocable section holding its groups: no transaction
                s.new_lines = None
                continue
            closer = next(e for e in s.patch["edits"] if e[2] == "}" or e[2].startswith("} tm_group_exit"))
            o = new_offset(sorted(edits), opener[0]) + opener[2].index("__transaction_")
            c = new_offset(sorted(edits), closer[0])
            s.new_lines = (_line(new, o), _line(new, c))
        out.append(FilePatch(path, old, new, by_file[path]))
    return out


def source_reader():
    cache = {}

    def read(path):
        if path not in cache:
            with open(path, "rb") as f:
                cache[path] = f.read()
        return cache[path]
    return read


def write_tree(patches, root):
    """Write patched files under root keeping their base names; returns {path: new path}."""
    out = {}
    for p in patches:
        dst = os.path.join(root, os.path.basename(p.path))
        with open(dst, "wb") as f:
            f.write(p.new)
        out[p.path] = dst
    return out
