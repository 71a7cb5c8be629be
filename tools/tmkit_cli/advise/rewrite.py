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


_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(\w+)")
_OPENER = re.compile(r"__transaction_|tm_atomic_retry \{")   # condvars.py's waiting sections


def include_point(text):
    """Where `#include <tmkit.h>` goes: after the file's leading block of preprocessor lines, at
    the end of its last top-level #include (or of the #endif closing a conditional that holds
    one), so that feature-test macros such as _GNU_SOURCE, whether defined in the file or in a
    header it includes first (memcached's config.h), precede the C library headers tmkit.h
    includes. 0 if the file includes nothing."""
    pos, depth, best, has_inc = 0, 0, 0, [False]
    in_comment = False
    lines = text.split(b"\n")
    for i, line in enumerate(lines):
        end = pos + len(line) + (1 if i + 1 < len(lines) else 0)
        stripped = line.strip()
        if in_comment:
            in_comment = b"*/" not in stripped
            pos = end
            continue
        if stripped.startswith(b"/*"):
            in_comment = b"*/" not in stripped
            pos = end
            continue
        if not stripped or stripped.startswith(b"//"):
            pos = end
            continue
        m = _DIRECTIVE.match(line)
        if not m:
            break                                   # the first line of C: the block ends
        word = m.group(1)
        if word in (b"if", b"ifdef", b"ifndef"):
            depth += 1
            has_inc.append(False)
        elif word == b"endif":
            depth = max(0, depth - 1)
            inner = has_inc.pop() if len(has_inc) > 1 else False
            if depth == 0 and inner:
                best = end
            elif inner:
                has_inc[-1] = True
        elif word == b"include":
            if depth == 0:
                best = end
            else:
                has_inc[-1] = True
        pos = end
    return best


def _line(text, off):
    return text.count(b"\n", 0, off) + 1


def build(sections, read, extra=None):
    """FilePatch per file with eligible sections or program-wide edits (`extra`, tmedits.Edits,
    with --apply); sets s.new_lines = (open, close) lines."""
    by_file = {}
    for s in sections:
        if s.patch and s.patch.get("eligible"):
            by_file.setdefault(s.file, []).append(s)
    more = extra.by_file if extra is not None else {}
    out = []
    ngroups = max([s.patch.get("groups", 0) for ss in by_file.values() for s in ss] +
                  [getattr(extra, "groups_total", 0)])
    group_files = getattr(extra, "group_files", set())   # lock groups' calls (lockgroups.py)
    for path in sorted(set(by_file) | set(more)):
        old = read(path)
        secs = by_file.get(path, [])
        edits = [e + (1,) for s in secs for e in s.patch["edits"]] + list(more.get(path, []))
        head = ""
        if any(s.patch.get("groups") for s in secs) or path in group_files:
            # the lock groups, one per colour (classify.py): a weak definition in every file
            # that uses them, so that each program a build links from some of the files (a
            # server and its test tools) has the array once
            decl = (f"__attribute__((weak)) tm_group_t {GROUPS_ARRAY}[{ngroups}] = {{"
                    + ", ".join(["TM_GROUP_INITIALIZER"] * ngroups) + "};")
            head = "#include <tmkit.h> /* tmkit advise: lock groups */\n" + decl + "\n"
        elif extra is not None and (secs or path in extra.include):
            head = "#include <tmkit.h> /* tmkit advise: transaction-safe libc, clones, reads */\n"
        if head:
            at = include_point(old)
            edits.append((at, at, head, -1))
        edits = [e[:3] for e in sorted(edits, key=lambda e: (e[0], e[1], e[3]))]
        new = apply(old, edits)
        if new == old and not secs:
            continue  # program-wide edits that came to nothing here: no file to write or count
        for s in secs:
            opener = next((e for e in s.patch["edits"] if _OPENER.search(e[2])), None)
            if opener is None:  # a non-revocable section holding its groups: no transaction
                s.new_lines = None
                continue
            closer = next(e for e in s.patch["edits"] if e[2] == "}" or e[2].startswith("} tm_group_exit"))
            o = new_offset(edits, opener[0]) + _OPENER.search(opener[2]).start()
            c = new_offset(edits, closer[0])
            s.new_lines = (_line(new, o), _line(new, c))
        out.append(FilePatch(path, old, new, secs))
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
