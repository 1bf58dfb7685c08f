#!/usr/bin/env python3
"""Checks that the names docs/architecture.md gives for the code exist, so the reader's map stays
true when files move or members are renamed:

  - a path in `code` (`Daemon/DoorLoop+Door.swift`, `CGpio/output.c`, `Tests/GaragedTests`,
    `HAPSession+Routes.swift`) names a file or folder git tracks, matched from its end (so
    `Door/Door+Gate.swift` is Sources/DoorCore/Door/Door+Gate.swift);
  - a folder drawn in the overview's picture (`Transport/`, `PinTable/`) is a tracked folder;
  - a member in `code` (`Controller.judge`, `DoorLoop.admit`, `Outcome.refusal(...)`) is a
    func, var, let or case declared in a file that declares or extends that type in Sources/.

Names that are not paths or members (`EVENT/1.0`, `S OPENING`) are not checked. Prints each
missing name as FILE:LINE: NAME: why, and exits 1 if there is any.
Usage: scripts/check-names.py [FILE.md ...]   (docs/architecture.md when none is given)"""
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SOURCE_FILE = re.compile(r"\.(swift|c|h|py|sh|md|toml|json)$")
PATH = re.compile(r"^[A-Za-z_][\w+-]*(?:/[\w+.-]+)*/?$|^[\w+-]+\.[a-z]+$")
MEMBER = re.compile(r"^([A-Z]\w*)\.([a-z_]\w*)(?:\(.*\))?$")
DRAWN_FOLDER = re.compile(r"(?<![\w/.])([A-Z]\w+)/(?=\s|$)")


def tracked():
    """Every tracked file, and every folder holding one."""
    out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout.decode()
    files = [f for f in out.split("\0") if f]
    folders = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    return files, folders


def exists(name, paths):
    name = name.rstrip("/")
    return any(p == name or p.endswith("/" + name) for p in paths)


def member_exists(type_name, member, sources):
    home = re.compile(r"\b(?:class|struct|enum|protocol|extension|actor)\s+(?:\w+\.)*" + type_name + r"\b")
    declared = re.compile(r"\b(?:func|var|let|case)\s+`?" + member + r"\b"
                          r"|\bcase\s+(?:\w+(?:\([^)]*\))?\s*,\s*)+" + member + r"\b")
    return any(home.search(text) and declared.search(text) for text in sources.values())


def check(path, files, folders, sources):
    problems = []
    fence = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence:
                fence = None
                continue
            for folder in DRAWN_FOLDER.findall(line):
                if not exists(folder, folders):
                    problems.append((number, folder + "/", "no such folder"))
            continue
        if m:
            fence = m.group(1)[0]
            continue
        for span in SPAN.findall(line):
            name = span.strip()
            m = MEMBER.match(name)
            if m and not SOURCE_FILE.search(name):
                if not member_exists(m.group(1), m.group(2), sources):
                    problems.append((number, name, f"no member {m.group(2)} declared with {m.group(1)} in Sources/"))
            elif PATH.match(name) and ("/" in name or SOURCE_FILE.search(name)) and not re.search(r"/\d", name):
                if not exists(name, files) and not exists(name, folders):
                    problems.append((number, name, "no such file or folder"))
    return problems


def main():
    docs = sys.argv[1:] or [os.path.join(ROOT, "docs", "architecture.md")]
    files, folders = tracked()
    sources = {}
    for f in files:
        if f.startswith("Sources/") and f.endswith(".swift"):
            with open(os.path.join(ROOT, f), encoding="utf-8") as s:
                sources[f] = s.read()
    failed = 0
    for doc in docs:
        for number, name, why in check(os.path.abspath(doc), files, folders, sources):
            print(f"{os.path.relpath(os.path.abspath(doc), ROOT)}:{number}: {name}: {why}")
            failed += 1
    if failed:
        print(f"check-names.py: {failed} name(s) that do not exist", file=sys.stderr)
        return 1
    print(f"check-names.py: every file, folder and member named in {len(docs)} file(s) exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
