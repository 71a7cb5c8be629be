#!/usr/bin/env python3
"""The docs describe the present and every result they quote can be found.

Checks, over README.md, docs/*.md, bench/README.md, apps/*/README.md, tests/**/README.md and
every Markdown file under bench/results/:
  1. every relative link `[text](target)` resolves to a file or folder of the tree, and a
     `#fragment` into a Markdown file names one of its headings (GitHub's anchor rules);
  2. every `bench/results/...` path written in the text (outside links too) exists;
  3. no heading carries a date (YYYY-MM-DD): docs are fixed in place, history lives in git
     and in the results' records; outside bench/results/ no text carries one either
     (bench/results/*/ READMEs record runs and may);
  4. bench/results/README.md (the index) links every experiment folder, and each folder has a
     README.md and a context.json with the keys bench/results/CONVENTIONS.md names;
  5. at most one level of folders under bench/results/ holds results (no dated subfolders);
  6. every `bench/results/...` path named in our code's comments and strings exists.

Usage: doc_links.py ROOT. Prints one line per problem and exits 1 if there is any."""
import glob
import json
import os
import re
import sys

LINK = re.compile(r"(?<!\!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
RESULTS_PATH = re.compile(r"bench/results/[A-Za-z0-9._/-]*[A-Za-z0-9_/-]")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
FENCE = re.compile(r"^\s*(```|~~~)")
CONTEXT_KEYS = ("experiment", "command", "date", "commit", "machine")


def pages(root):
    pats = ["README.md", "docs/*.md", "bench/README.md", "apps/*/README.md", "tests/**/README.md",
            "bench/results/**/*.md"]
    out = []
    for p in pats:
        out += glob.glob(os.path.join(root, p), recursive=True)
    return sorted(set(os.path.relpath(p, root) for p in out))


def anchors(path, cache={}):
    """GitHub's heading anchors of a Markdown file: lower case, punctuation other than '-' and
    '_' dropped, spaces to '-', repeated headings numbered -1, -2, ..."""
    if path not in cache:
        seen, out, fenced = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if not m:
                    continue
                text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # link text only
                slug = re.sub(r"[^\w\- ]", "", text.lower().replace("`", "")).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                out.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = out
    return cache[path]


def check_page(root, rel, problems):
    path = os.path.join(root, rel)
    here = os.path.dirname(path)
    in_results = rel.startswith("bench/results/")
    fenced = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines, 1):
        where = f"{rel}:{i}"
        if FENCE.match(line):
            fenced = not fenced
        if line.startswith("#") and not fenced and DATE.search(line):
            problems.append(f"{where}: a dated heading: {line.strip()}")
        elif not in_results and DATE.search(line):
            problems.append(f"{where}: a date in the text ({DATE.search(line).group(0)}); "
                            "say it in the results' record or leave it to git")
        for m in LINK.finditer(line):
            target = m.group(1) or m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                continue  # http:, https:, mailto:
            file_part, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append(f"{where}: link to a missing path: {target}")
                continue
            if frag and dest.endswith(".md") and os.path.isfile(dest) and \
                    frag.lower() not in anchors(dest):
                problems.append(f"{where}: link to a missing heading: {target}")
        for m in RESULTS_PATH.finditer(line):
            p = m.group(0).rstrip("/.")
            if "<" in line[max(0, m.start() - 1):m.end() + 1] or "*" in p:
                continue  # a pattern such as bench/results/<experiment>/
            if not os.path.exists(os.path.join(root, p)):
                problems.append(f"{where}: names a missing results path: {p}")


def check_results(root, problems):
    base = os.path.join(root, "bench", "results")
    if not os.path.isdir(base):
        return
    index = os.path.join(base, "README.md")
    listed = ""
    if os.path.isfile(index):
        with open(index, encoding="utf-8") as f:
            listed = f.read()
    else:
        problems.append("bench/results/README.md: the index is missing")
    for name in sorted(os.listdir(base)):
        folder = os.path.join(base, name)
        if not os.path.isdir(folder):
            continue
        rel = f"bench/results/{name}"
        if f"]({name}/)" not in listed and f"]({name})" not in listed and \
                f"]({name}/README.md)" not in listed:
            problems.append(f"{rel}: not linked from the index bench/results/README.md")
        if not os.path.isfile(os.path.join(folder, "README.md")):
            problems.append(f"{rel}: no README.md (what it measures, the claims it backs)")
        ctx = os.path.join(folder, "context.json")
        if not os.path.isfile(ctx):
            problems.append(f"{rel}: no context.json (command, date, commit, machine)")
        else:
            try:
                with open(ctx, encoding="utf-8") as f:
                    data = json.load(f)
                missing = [k for k in CONTEXT_KEYS if not data.get(k)]
                if missing:
                    problems.append(f"{rel}/context.json: missing {', '.join(missing)}")
            except (ValueError, OSError) as e:
                problems.append(f"{rel}/context.json: not JSON: {e}")
        for sub in os.listdir(folder):
            if os.path.isdir(os.path.join(folder, sub)) and DATE.search(sub):
                problems.append(f"{rel}/{sub}: a dated run folder (keep the latest run only)")


CODE_DIRS = ("runtime", "include", "tools", "tests", "apps", "bench", "scripts")
CODE_EXT = (".c", ".h", ".S", ".py", ".sh", ".lua", ".txt", ".cmake")


def check_code(root, problems):
    """`bench/results/...` named in a comment or string of our code must exist too: a comment
    that sends the reader to a deleted run is as stale as a doc that does."""
    for top in CODE_DIRS:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("results", "__pycache__")]
            for n in names:
                if not n.endswith(CODE_EXT) and n != "Makefile":
                    continue
                path = os.path.join(d, n)
                rel = os.path.relpath(path, root)
                if rel in ("tests/unit/doc_links.py", "tests/unit/test_doc_links.sh",
                           "tests/unit/test_tree_guard.sh"):  # their made-up trees
                    continue
                try:
                    with open(path, encoding="utf-8") as f:
                        lines = f.read().splitlines()
                except (OSError, UnicodeDecodeError):
                    continue
                for i, line in enumerate(lines, 1):
                    for m in RESULTS_PATH.finditer(line):
                        p = m.group(0).rstrip("/.")
                        around = line[m.start():m.end() + 1]
                        if any(c in around for c in "<{*") or "NAME" in p or p == "bench/results":
                            continue  # a pattern: bench/results/<experiment>/, {name}
                        if not os.path.exists(os.path.join(root, p)):
                            problems.append(f"{rel}:{i}: names a missing results path: {p}")


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else ".")
    problems = []
    for rel in pages(root):
        check_page(root, rel, problems)
    check_results(root, problems)
    check_code(root, problems)
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print(f"doc_links: {len(problems)} problem(s)")
        return 1
    print(f"doc_links: {len(pages(root))} pages, every link resolves, no dated heading")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
