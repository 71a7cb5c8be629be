#!/usr/bin/env python3
"""Nothing third-party in the tree: the project's rule is that code fetched from elsewhere is
never committed, neither its lines (a patch carries them) nor a script or recipe that builds it,
and that no package mirror's host name is written into the tree (tests take the mirror from the
machine's apt configuration: tests/debsrc_sources.py).

Fails, naming file and line, when a tracked file
  1. is a patch: a `.patch`/`.diff` file, or any file holding a unified or context diff (a
     `--- ` line, then `+++ `, then an `@@ -a,b +c,d @@` hunk header). Diffs of our own files
     have no business in the tree either (git holds our history), so there is no exception
     list to keep honest;
  2. is a script (shell, Python, Make, CMake, or a file with a `#!` line) that clones, downloads
     or reads a fetched repository: `git clone`, `git fetch`, `git archive --remote`, `svn
     checkout`, `hg clone`, `curl`, `wget`, a code host's address (GitHub, GitLab, Bitbucket,
     SourceForge), or the session mirror's directory. Registry packages are allowed (`apt-get
     source`, `apt-get install`, `pip install`);
  3. names a Debian or Ubuntu package mirror's host;
  4. is a script inside bench/results/ (results folders hold data; the commands that reproduce
     them are `tmkit bench` or scripts under bench/).

Usage: tree_guard.py ROOT   (tracked files from `git ls-files`; outside a git checkout, every
file below ROOT except build*/, .venv/ and .git/)."""
import os
import re
import subprocess
import sys

# The guard and its own test, whose made-up tree spells every pattern it must catch.
SELF = ("tests/unit/tree_guard.py", "tests/unit/test_tree_guard.sh")

SCRIPT_EXT = (".sh", ".bash", ".py", ".mk", ".cmake", ".pl", ".rb")
SCRIPT_NAMES = ("Makefile", "CMakeLists.txt", "GNUmakefile")

FETCH = [
    (re.compile(r"\bgit\s+(-C\s+\S+\s+)?(clone|fetch|pull|archive\s+--remote)\b"), "runs git to fetch a repository"),
    (re.compile(r"\b(svn\s+(co|checkout)|hg\s+clone)\b"), "checks out a repository"),
    (re.compile(r"(^|[\s;|&(`$])(curl|wget)\s"), "downloads with curl/wget"),
    (re.compile(r"\b(github\.com|gitlab\.com|bitbucket\.org|sourceforge\.net)\b"), "names a code host"),
    (re.compile(r"/\.mirror\b|\bwork/\.mirror"), "reads the fetched-repository mirror"),
]
# The hosts of Debian's and Ubuntu's package mirrors.
MIRROR = re.compile(r"\b(deb|snapshot|security|httpredir|ftp(\.[a-z]{2})?)\.debian\.org\b|"
                    r"\b(archive|security|ports|[a-z]{2}\.archive)\.ubuntu\.com\b")
DIFF_HUNK = re.compile(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@")


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout.decode()
        return [p for p in out.split("\0") if p and os.path.isfile(os.path.join(root, p))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not (x.startswith("build") or x in (".venv", ".git"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def read_text(path):
    try:
        with open(path, "rb") as f:
            data = f.read(2_000_000)
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None  # binary (plots)
    return data.decode("utf-8", "replace")


def is_script(rel, text):
    base = os.path.basename(rel)
    return rel.endswith(SCRIPT_EXT) or base in SCRIPT_NAMES or text.startswith("#!")


def diff_line(lines):
    """The 1-based line of the first diff in LINES, or 0."""
    for i in range(len(lines) - 2):
        if (lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")
                and DIFF_HUNK.match(lines[i + 2])):
            return i + 1
        if lines[i].startswith("*** ") and lines[i + 1].startswith("--- ") and \
                lines[i + 2].startswith("***************"):
            return i + 1
    return 0


def check(root):
    problems = []
    for rel in tracked(root):
        if rel in SELF:
            continue
        text = read_text(os.path.join(root, rel))
        if rel.endswith((".patch", ".diff", ".rej", ".orig")):
            problems.append(f"{rel}: a patch file")
            continue
        if text is None:
            continue
        lines = text.splitlines()
        n = diff_line(lines)
        if n:
            problems.append(f"{rel}:{n}: holds a diff")
        script = is_script(rel, text)
        if rel.startswith("bench/results/") and script:
            problems.append(f"{rel}: a script inside bench/results/ (move it under bench/ or "
                            "make it a `tmkit bench` subcommand)")
        for i, line in enumerate(lines, 1):
            if script:
                for rx, what in FETCH:
                    if rx.search(line):
                        problems.append(f"{rel}:{i}: {what}: {line.strip()[:100]}")
            m = MIRROR.search(line)
            if m:
                problems.append(f"{rel}:{i}: names a package mirror ({m.group(0)}); take it from "
                                "the machine's apt configuration")
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else "."
    problems = check(root)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print(f"tree_guard: {len(problems)} problem(s): nothing third-party in the tree "
              "(tests/unit/tree_guard.py says what and why)")
        return 1
    print("tree_guard: no patch, fetching script or mirror host in the tracked files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
