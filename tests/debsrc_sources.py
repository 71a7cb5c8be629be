#!/usr/bin/env python3
"""Print a deb822 `deb-src` source list built from this machine's own apt configuration.

The tests that download Debian source packages (tests/debsrc.sh) must work behind whatever
mirror the machine uses, so the mirror is never written into the tree: this reads the `deb`
entries of /etc/apt/sources.list and /etc/apt/sources.list.d/*.list|*.sources (the files apt
itself reads; others, such as `*.disabled`, are ignored as apt ignores them), keeps those whose
suite belongs to the running release (VERSION_CODENAME in /etc/os-release, e.g. bookworm and
bookworm-updates), and prints the same URIs, suites, components and keys as `deb-src`.

Usage: debsrc_sources.py [APT_ETC_DIR] [OS_RELEASE]   (defaults /etc/apt, /etc/os-release)
Exit status 1 with a message on stderr when no entry qualifies."""
import glob
import os
import sys


def codename(os_release):
    try:
        with open(os_release) as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                if key == "VERSION_CODENAME":
                    return value.strip('"')
    except OSError:
        pass
    return None


def one_line_entries(path):
    """`deb [opts] URI SUITE COMP...` lines of a .list file."""
    out = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) < 3 or words[0] != "deb":
                continue
            opts = {}
            if words[1].startswith("["):
                end = next(i for i, w in enumerate(words) if w.endswith("]"))
                for o in " ".join(words[1:end + 1]).strip("[]").split():
                    k, _, v = o.partition("=")
                    opts[k] = v
                words = [words[0]] + words[end + 1:]
            if len(words) < 3:
                continue
            out.append({"URIs": [words[1]], "Suites": [words[2]], "Components": words[3:],
                        "Signed-By": opts.get("signed-by")})
    return out


def deb822_entries(path):
    """Stanzas of a .sources file with `deb` among their Types (continuation lines and
    comments handled; an inline Signed-By key block is not supported and is skipped)."""
    out, cur, last = [], {}, None
    with open(path) as f:
        lines = f.read().splitlines() + [""]
    for line in lines:
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                out.append(cur)
            cur, last = {}, None
            continue
        if line[0] in " \t" and last:
            cur[last] += " " + line.strip()
            continue
        key, _, value = line.partition(":")
        last = key.strip()
        cur[last] = value.strip()
    entries = []
    for s in out:
        if "deb" not in s.get("Types", "").split() or s.get("Enabled", "yes") == "no":
            continue
        key = s.get("Signed-By", "")
        if key and not key.startswith("/"):
            continue  # an inline key: rare, not worth parsing here
        entries.append({"URIs": s.get("URIs", "").split(), "Suites": s.get("Suites", "").split(),
                        "Components": s.get("Components", "").split(), "Signed-By": key or None})
    return entries


def main(argv):
    etc = argv[1] if len(argv) > 1 else "/etc/apt"
    rel = codename(argv[2] if len(argv) > 2 else "/etc/os-release")
    if not rel:
        sys.exit("debsrc_sources: no VERSION_CODENAME in os-release: cannot tell the release")
    files = [os.path.join(etc, "sources.list")] + sorted(
        glob.glob(os.path.join(etc, "sources.list.d", "*.list")) +
        glob.glob(os.path.join(etc, "sources.list.d", "*.sources")))
    entries = []
    for path in files:
        if not os.path.isfile(path):
            continue
        entries += deb822_entries(path) if path.endswith(".sources") else one_line_entries(path)
    stanzas = []
    for e in entries:
        suites = [s for s in e["Suites"] if s == rel or s.startswith(rel + "-")]
        if not suites or not e["URIs"] or not e["Components"]:
            continue
        st = ["Types: deb-src", "URIs: " + " ".join(e["URIs"]), "Suites: " + " ".join(suites),
              "Components: " + " ".join(e["Components"])]
        if e["Signed-By"]:
            st.append("Signed-By: " + e["Signed-By"])
        stanzas.append("\n".join(st))
    if not stanzas:
        sys.exit(f"debsrc_sources: no `deb` entry for {rel} in {etc}/sources.list or "
                 f"{etc}/sources.list.d/: cannot tell which mirror to fetch sources from")
    print("\n\n".join(stanzas))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
