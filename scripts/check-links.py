#!/usr/bin/env python3
"""Checks that every relative link in the project's Markdown resolves: the file or folder it
names exists, and an anchor (`page.md#a-heading`, `#a-heading`) names a heading of that page as
GitHub spells it (lower case, punctuation dropped, spaces to hyphens, -1, -2... for repeats) or
an explicit `<a id="...">`. Links to the web (http:, https:, mailto:, man:, file:) are not
followed. Code (fenced, indented, `inline`) is skipped, so a `[door left]` in an example is no
link. The files are those git tracks (*.md), or the ones given.

Prints each broken link as FILE:LINE: TARGET: why, and exits 1 if there is any.
Usage: scripts/check-links.py [FILE.md ...]"""
import os
import re
import subprocess
import sys
import unicodedata

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")          # http:, mailto:, man:...
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HTML_TARGET = re.compile(r"<(?:a|img)\s[^>]*?(?:href|src)=\"([^\"]+)\"", re.I)
HTML_ANCHOR = re.compile(r"<a\s[^>]*?(?:id|name)=\"([^\"]+)\"", re.I)
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def fenced_lines(text):
    """(line number, line, whether it is in fenced code, its fences included) for each line:
    the one reading of fences that links and anchors share."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        if fence:
            if line.strip().startswith(fence):
                fence = None
            yield number, line, True
            continue
        m = FENCE.match(line)
        if m:
            fence = m.group(1)[0] * 3
        yield number, line, bool(m)


def prose_lines(text):
    """(line number, line) for each line outside code blocks, with inline code blanked."""
    previous_blank = True
    in_indented = False
    for number, line, fenced in fenced_lines(text):
        if fenced:
            previous_blank = False
            continue
        blank = not line.strip()
        # An indented code block starts after a blank line and lasts while lines stay indented
        # (or blank); a list item's indented continuation is not one, but holds no code here.
        if not blank and line.startswith("    ") and (previous_blank or in_indented):
            in_indented = True
            previous_blank = False
            continue
        if not blank:
            in_indented = False
        previous_blank = blank
        yield number, CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link counts as its text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML
    text = text.replace("`", "").lower()
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch in " -_" or category[0] in "LN" or category == "Mn":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


_anchors = {}


def anchors(path):
    """Every anchor a Markdown page offers."""
    if path not in _anchors:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen = set(), {}
        for _, line, fenced in fenced_lines(text):
            if fenced:
                continue
            found.update(HTML_ANCHOR.findall(line))
            h = HEADING.match(line)
            if not h:
                continue
            base = slug(h.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        _anchors[path] = found
    return _anchors[path]


def check(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(path)
    for number, line in prose_lines(text):
        targets = INLINE_LINK.findall(line) + HTML_TARGET.findall(line)
        m = REFERENCE_DEF.match(line)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if not target or EXTERNAL.match(target):
                continue
            name, _, anchor = target.partition("#")
            where = os.path.normpath(os.path.join(here, name)) if name else path
            if name.startswith("/"):
                problems.append((number, target, "an absolute path; link relative to this page"))
                continue
            if not os.path.exists(where):
                problems.append((number, target, f"{os.path.relpath(where, ROOT)} does not exist"))
                continue
            if anchor and where.endswith(".md") and anchor not in anchors(where):
                problems.append((number, target, f"no heading or anchor '{anchor}' in {os.path.relpath(where, ROOT)}"))
    return problems


def main():
    files = sys.argv[1:]
    if not files:
        listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "*.md"], check=True,
                                capture_output=True).stdout.decode()
        files = [os.path.join(ROOT, f) for f in listed.split("\0") if f]
    failed = 0
    for path in files:
        path = os.path.abspath(path)
        for number, target, why in check(path):
            print(f"{os.path.relpath(path, ROOT)}:{number}: {target}: {why}")
            failed += 1
    if failed:
        print(f"check-links.py: {failed} broken link(s) in {len(files)} file(s)", file=sys.stderr)
        return 1
    print(f"check-links.py: every relative link and anchor in {len(files)} Markdown file(s) resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
