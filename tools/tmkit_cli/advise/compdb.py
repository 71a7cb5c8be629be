"""Inputs: a compile_commands.json or files plus compiler flags, as a list of Units."""
import json
import os
import shlex

from .model import UserError

# Flags that take a separate argument.
_WITH_ARG = {"-o", "-MF", "-MT", "-MQ", "-I", "-D", "-U", "-include", "-isystem", "-iquote",
             "-idirafter", "-imacros", "-x", "-Xlinker", "-L", "-l"}
# Flags kept for the C front end (they change what the preprocessor and parser see).
_CLANG_PREFIX = ("-I", "-D", "-U", "-std=", "-isystem", "-iquote", "-idirafter", "-include",
                 "-imacros", "-O", "-m32", "-m64", "-funsigned-char", "-fsigned-char", "-pthread")
_DROP_FOR_GCC = {"-c", "-MD", "-MMD", "-MP", "-M", "-MM"}


class Unit:
    """One translation unit: the source, the directory the compiler runs in, its flags."""

    def __init__(self, file, directory, flags):
        self.file = os.path.normpath(os.path.join(directory, file))
        self.directory = directory
        self.flags = flags       # compiler flags without -c, -o, dependency flags and the source
        self.variants = []       # the -D flags of the file's other entries (not analysed)

    def clang_args(self):
        out, it = [], iter(self.flags)
        for a in it:
            if a in _WITH_ARG:
                v = next(it, "")
                if a in ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros"):
                    out += [a, os.path.join(self.directory, v)]
                elif a in ("-D", "-U"):
                    out += [a, v]
                continue
            if a.startswith(("-I", "-isystem", "-iquote", "-idirafter")) and not a.startswith("-include"):
                flag = next(p for p in ("-isystem", "-iquote", "-idirafter", "-I") if a.startswith(p))
                out.append(flag + os.path.join(self.directory, a[len(flag):]))
            elif a.startswith(_CLANG_PREFIX):
                out.append(a)
        return out

    def gcc_args(self):
        return list(self.flags)


def _split(args, source, directory):
    """Compiler argv (without the compiler) minus output/dependency flags and the source."""
    src = os.path.realpath(os.path.join(directory, source))
    out, it = [], iter(args)
    for a in it:
        if a in ("-o", "-MF", "-MT", "-MQ"):
            next(it, None)
        elif a in _DROP_FOR_GCC:
            continue
        elif not a.startswith("-") and os.path.realpath(os.path.join(directory, a)) == src:
            continue
        elif a in _WITH_ARG:
            out += [a, next(it, "")]
        else:
            out.append(a)
    return out


def from_compdb(path, only=(), match=None):
    if os.path.isdir(path):
        path = os.path.join(path, "compile_commands.json")
    try:
        with open(path) as f:
            entries = json.load(f)
    except OSError as e:
        raise UserError(f"{path}: cannot read the compilation database ({e.strerror})")
    except json.JSONDecodeError as e:
        raise UserError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})")
    if not isinstance(entries, list):
        raise UserError(f"{path}: a compilation database is a JSON list of entries")
    units, seen = [], set()
    wanted = {os.path.realpath(p) for p in only}
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or "file" not in e or "directory" not in e or \
                not ("arguments" in e or "command" in e):
            raise UserError(f"{path}: entry {i} lacks 'directory', 'file' and 'arguments'/'command'")
        argv = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        if match and not any(match in a for a in argv + [e.get("output", "")]):
            continue
        if not e["file"].endswith(".c"):
            continue                       # C only: C++ sources are skipped
        u = Unit(e["file"], e["directory"], _split(argv[1:], e["file"], e["directory"]))
        if wanted and os.path.realpath(u.file) not in wanted:
            continue
        if u.file in seen:
            # built more than once (memcached: memcached with -DNDEBUG, memcached-debug
            # without): analyse the build with assertions on, whose code is a superset of the
            # other's, so that a rewrite planned on it holds for both (the report says so)
            i = next(j for j, x in enumerate(units) if x.file == u.file)
            if _ndebug(units[i]) and not _ndebug(u):
                u.variants = units[i].variants + [_brief(units[i])]
                units[i] = u
            else:
                units[i].variants.append(_brief(u))
            continue
        seen.add(u.file)
        units.append(u)
    if not units:
        raise UserError(f"{path}: no C sources" + (" matching the files given" if only else "")
                        + (f" in entries matching '{match}'" if match else ""))
    return units


def _ndebug(u):
    return "-DNDEBUG" in u.flags or any(a == "-D" and b == "NDEBUG"
                                        for a, b in zip(u.flags, u.flags[1:]))


def _brief(u):
    """The other build of a file, as the report names it: the -D flags that differ."""
    return " ".join(a for a in u.flags if a.startswith("-D")) or "(no -D flags)"


def from_files(files, flags):
    units = []
    for f in files:
        if not os.path.isfile(f):
            raise UserError(f"{f}: no such file")
        units.append(Unit(os.path.abspath(f), os.getcwd(), list(flags)))
    return units
