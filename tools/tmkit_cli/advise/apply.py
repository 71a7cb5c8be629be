"""--apply OUT: write the transactional version of the program's source tree.

OUT becomes a copy of the source tree (the directory that holds every analysed source, or
--src DIR) without build products (objects, archives, coverage notes), with the rewrite's edits
applied to sources and headers, and a file `tmkit-build.env` that the program's own build
system takes: `. ./tmkit-build.env` exports CC/CFLAGS/LDFLAGS for `./configure && make`, or
`make CFLAGS=...` from the same values. The flags are what a -fgnu-tm build of a real program
needs beyond -fgnu-tm (docs/advise.md, "Transactifying memcached 1.6 with tmkit"):
- `-fno-ipa-pure-const`: GCC 12 with -fgnu-tm at -O1 and above rejects calls to always_inline
  functions that its pure/const discovery marks const ("inlining failed in call to
  'always_inline'", with an empty reason), even in files without transactions (memcached's
  xxhash.h, zstd's FORCE_INLINE); without that discovery the calls inline;
- `-fdisable-tree-fre3`: GCC 12 stops with an internal compiler error ("in
  execute_function_todo, at passes.cc:2054", during GIMPLE pass fre) on a function that calls
  strlen (or memcmp) on a struct's char array and runs in a transaction, when the call is
  redirected to a transaction_wrap wrapper such as tmkit.h's; the late full-redundancy
  elimination (the third `fre`) is the pass that breaks, so only it is off (GCC notes it once
  per file);
- `-fprofile-update=single`: coverage builds (-fprofile-arcs) of threaded programs count with
  atomic instructions, which GCC refuses inside transactions;
- the include path of tmkit.h as a system directory (`-isystem`): the program's own warning
  flags are for its own code, and stricter ones than tmkit's headers are written for (zstd's
  -Wdeclaration-after-statement, -Wc++-compat, -Wformat=2, ...: 168 warnings from the headers
  with `-I`) must neither flood its build nor stop one with -Werror, as with any installed
  library's headers;
- tmkit's library directory as the run path: the program links
  against the system libitm (so it records no tmkit symbol version and still starts on GCC's
  libitm) and runs on tmkit without `tmkit run` (LD_LIBRARY_PATH still overrides).
"""
import os
import shutil

from .. import paths
from .model import UserError

BUILD_PRODUCTS = ("*.o", "*.obj", "*.a", "*.so", "*.so.*", "*.lo", "*.la", "*.gcno", "*.gcda",
                  "*.gcov", "*.pyc", "__pycache__")
EXTRA_CFLAGS = ("-fgnu-tm", "-fno-ipa-pure-const", "-fdisable-tree-fre3", "-fprofile-update=single")


def source_root(units, given=None):
    """The directory to copy: --src, or the deepest directory holding every analysed source."""
    if given:
        if not os.path.isdir(given):
            raise UserError(f"--src {given}: not a directory")
        return os.path.abspath(given)
    dirs = [os.path.dirname(os.path.abspath(u.file)) for u in units]
    if not dirs:
        raise UserError("--apply: no source file to copy")
    return os.path.commonpath(dirs)


def copy_tree(src, out):
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise UserError(f"--apply {out}: exists and is not an empty directory (it is never "
                        "overwritten)")
    out_abs = os.path.abspath(out)
    if out_abs == src or out_abs.startswith(src + os.sep):
        raise UserError(f"--apply {out}: inside the source tree {src}; choose a directory "
                        "outside it")
    if os.path.isdir(out):
        os.rmdir(out)
    shutil.copytree(src, out, symlinks=True, ignore=shutil.ignore_patterns(*BUILD_PRODUCTS))


def build_env(tmkit_root):
    include = paths.includedir(tmkit_root)
    lib = paths.libdir(tmkit_root)
    cflags = " ".join(EXTRA_CFLAGS + ("-isystem", include))
    # Link against the system libitm (gcc -fgnu-tm adds -litm), as the tree's own build does,
    # and find tmkit's at run time through the run path; LD_LIBRARY_PATH pointing at GCC's
    # libitm runs the same binary there, where tmkit.h falls back by design (tmkit's names carry
    # no version, so a link against tmkit's library would do as well: docs/abi.md).
    ldflags = f"-Wl,-rpath,{lib}"
    # No variable of our own: the runtime refuses unknown TMKIT_* variables in the environment
    # of every program it runs, configure's test programs included.
    return "\n".join([
        "# Written by `tmkit advise --apply`: build this tree with -fgnu-tm on tmkit.",
        "# Use: . ./tmkit-build.env && ./configure && make   (or make CFLAGS=\"$CFLAGS\" ...)",
        f'CFLAGS="${{CFLAGS:--g -O2}} {cflags}"',
        f'CXXFLAGS="${{CXXFLAGS:--g -O2}} {cflags}"',
        f'LDFLAGS="${{LDFLAGS:-}} {ldflags}"',
        'LIBS="${LIBS:-} -litm"',
        "export CFLAGS CXXFLAGS LDFLAGS LIBS",
        ""])


def write(out, patches, units, tmkit_root, src=None):
    """Copies the tree and writes the patched files into it. Returns (root copied, [files
    written relative to OUT])."""
    root = source_root(units, src)
    outside = [p.path for p in patches
               if not os.path.abspath(p.path).startswith(root + os.sep)]
    if outside:
        raise UserError(f"--apply: {outside[0]} is outside the source tree {root} (give --src)")
    copy_tree(root, out)
    written = []
    for p in patches:
        rel = os.path.relpath(os.path.abspath(p.path), root)
        with open(os.path.join(out, rel), "wb") as f:
            f.write(p.new)
        written.append(rel)
    with open(os.path.join(out, "tmkit-build.env"), "w") as f:
        f.write(build_env(tmkit_root))
    return root, written
