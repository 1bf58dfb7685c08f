#!/usr/bin/env python3
"""Checks that calls in Sources/garaged go one way: a file may use what its own folder and the
folders below it declare, never what a folder above declares. The layers, lowest first:

  Runtime      threads, wake-ups, the log, systemd, the history's writer, services
  Transport    sockets, connections, listeners, the door loop's inbox
  Drives Sensors MQTT Bluetooth HomeKit Config   what moves the door, its lines and the channels
  Daemon       the door loop and the wiring
  Doctor Commands   the checks, and the command line (garaged run, garaged doctor)

Prints each use of a higher layer's name (file:line: name, declared in FOLDER) and exits 1 if
there is any. Usage: scripts/layers.py [SOURCES_DIR]"""
import os, re, sys

LAYERS = [["Runtime"], ["Transport"], ["Drives", "Sensors", "MQTT", "Bluetooth", "HomeKit", "Config"], ["Daemon"], ["Doctor", "Commands"]]
root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources", "garaged")
level = {folder: i for i, group in enumerate(LAYERS) for folder in group}

# Types only (a type's name starts with a capital): the few top-level functions are helpers
# whose names also serve as variable names.
DECL = re.compile(r"^(?:@\w+\s+)*(?:(?:public|internal|final|indirect)\s+)*"
                  r"(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)", re.M)

def folder_of(path):
    rel = os.path.relpath(path, root)
    return rel.split(os.sep)[0] if os.sep in rel else "."

files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".swift")]
declared = {}
for path in files:
    text = open(path).read()
    for name in DECL.findall(text):
        declared.setdefault(name, set()).add(folder_of(path))

bad = 0
for path in sorted(files):
    here = folder_of(path)
    if here not in level:
        print(f"{path}: folder {here} is not in a layer (scripts/layers.py)"); bad += 1; continue
    for n, line in enumerate(open(path), 1):
        code = line.split("//")[0]
        code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
        for name in set(re.findall(r"\b[A-Z]\w*\b", code)):
            homes = declared.get(name)
            if not homes or here in homes:
                continue
            if all(level.get(h, 99) > level[here] for h in homes):
                print(f"{os.path.relpath(path)}:{n}: {name}, declared in {', '.join(sorted(homes))}, above {here}")
                bad += 1
print(f"layers: {'OK' if bad == 0 else f'{bad} use(s) of a higher layer'} ({len(files)} files)")
sys.exit(1 if bad else 0)
