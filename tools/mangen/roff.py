"""The few man(7) pieces the generators share: escaping, the page header, paragraphs of text
with `code` marked bold, and preformatted blocks."""
import re


def esc(text):
    """Plain text as roff: backslashes and hyphens escaped, no line starting with . or '."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"(?m)^([.'])", r"\\&\1", text)


def inline(text):
    """esc() plus `code` in bold."""
    parts = re.split(r"`([^`]+)`", text)
    return "".join(f"\\fB{esc(p)}\\fR" if i % 2 else esc(p) for i, p in enumerate(parts))


def header(name, section, version, manual, summary):
    return (f'.TH "{name.upper()}" "{section}" "" "tmkit {version}" "{manual}"\n'
            f".SH NAME\n{esc(name)} \\- {esc(summary)}\n")


def para(text):
    return ".PP\n" + inline(" ".join(text.split())) + "\n"


def pre(lines):
    body = "\n".join(esc(line) if line.strip() else "" for line in lines)
    return f".PP\n.RS 4\n.nf\n{body}\n.fi\n.RE\n"


def see_also(refs):
    """refs: ["tmkit(1)", ...] -> a SEE ALSO section."""
    items = []
    for r in refs:
        m = re.fullmatch(r"([\w.-]+)\((\w+)\)", r)
        items.append(f".BR {esc(m.group(1))} ({m.group(2)})")
    return ".SH SEE ALSO\n" + ",\n".join(items) + "\n"
