"""Apply the planned edits per file: new text, unified diff, and each section's new lines."""
import difflib
import os

from .patch import apply, new_offset
from .program import display


class FilePatch:
    def __init__(self, path, old, new, sections):
        self.path, self.old, self.new, self.sections = path, old, new, sections

    def diff(self):
        name = display(self.path)
        a = self.old.decode(errors="replace").splitlines(keepends=True)
        b = self.new.decode(errors="replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, "a/" + name, "b/" + name))


def _line(text, off):
    return text.count(b"\n", 0, off) + 1


def build(sections, read):
    """FilePatch per file with eligible sections; sets s.new_lines = (open, close) lines."""
    by_file = {}
    for s in sections:
        if s.patch and s.patch.get("eligible"):
            by_file.setdefault(s.file, []).append(s)
    out = []
    for path in sorted(by_file):
        old = read(path)
        edits = []
        for s in by_file[path]:
            edits += s.patch["edits"]
        new = apply(old, edits)
        for s in by_file[path]:
            opener = next(e for e in s.patch["edits"] if "__transaction_" in e[2])
            closer = next(e for e in s.patch["edits"] if e[2] == "}")
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
