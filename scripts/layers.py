#!/usr/bin/env python3
"""Checks that calls between the folders of a module go one way, in Sources/garaged and in
Sources/DoorCore: a file may use what its own folder declares, what the folders of a lower
layer declare, and, of the folders in its own layer, only those SAME_LAYER says it may; never
what a folder above declares.

Sources/garaged, lowest first:
  Runtime      threads, wake-ups, the log, systemd, the history's writer, services, errors
  Transport    sockets, connections, listeners, the door loop's inbox
  Drives Sensors MQTT Bluetooth HomeKit Config   what moves the door, its lines and the channels
               (within: Sensors and Config read Drives' line specs; Bluetooth and MQTT their
               settings from Config)
  Daemon       the door loop and the wiring
  Doctor Commands   the checks, and the command line (Commands lists Doctor)

Sources/DoorCore, lowest first:
  Time Text JSON Wiring   instants, hex and printable text, JSON, the Pi's pins
  Throttle     the wrong-PIN budgets
  Access Bluetooth Door Labels Opener PinTable Protocol Status Storage
               the knot of the book's codecs, the door, the table and its stores: within it,
               exactly the uses that exist (SAME_LAYER), so no new one slips in unseen
  SecPlus Events Import   the openers' wires, the history, the EEPROM import
  Controller   the judging of requests
  HomeKit MQTT   the channels' pure sessions and views

Prints each use the layers forbid (file:line: name, declared in FOLDER, why) and exits 1 if
there is any. Usage: scripts/layers.py [--self-test]  (the self-test shows a tree with an
upward use and a same-layer use not allowed failing, and the same tree without them passing)"""
import os
import re
import shutil
import sys
import tempfile

SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")

MODULES = {
    "garaged": {
        "layers": [["Runtime"], ["Transport"], ["Drives", "Sensors", "MQTT", "Bluetooth", "HomeKit", "Config"],
                   ["Daemon"], ["Doctor", "Commands"]],
        "same_layer": {
            "Sensors": ["Drives"],
            "Config": ["Drives"],
            "Bluetooth": ["Config"],
            "MQTT": ["Config"],
            "Commands": ["Doctor"],
        },
    },
    "DoorCore": {
        "layers": [["Time", "Text", "JSON", "Wiring"], ["Throttle"],
                   ["Access", "Bluetooth", "Door", "Labels", "Opener", "PinTable", "Protocol", "Status", "Storage"],
                   ["SecPlus", "Events", "Import"], ["Controller"], ["HomeKit", "MQTT"]],
        "same_layer": {
            "Access": ["Labels", "PinTable", "Protocol", "Storage"],
            "Bluetooth": ["Labels", "Protocol"],
            "Door": ["Opener", "Protocol", "Status"],
            "Labels": ["PinTable", "Storage"],
            "Opener": ["Door"],
            "PinTable": ["Protocol"],
            "Protocol": ["Access", "Bluetooth", "Door", "Labels"],
            "Status": ["Door", "Opener", "Protocol"],
            "Storage": ["Access", "Labels", "PinTable"],
        },
    },
}

# Types only (a type's name starts with a capital): the few top-level functions are helpers
# whose names also serve as variable names.
DECL = re.compile(r"^(?:@\w+\s+)*(?:(?:public|internal|final|indirect)\s+)*"
                  r"(?:class|struct|enum|protocol|typealias|actor)\s+([A-Z]\w*)", re.M)


def check(root, layers, same_layer, out=print):
    """The forbidden uses in the module at `root`, each printed; how many there are."""
    level = {folder: i for i, group in enumerate(layers) for folder in group}
    for folder, allowed in same_layer.items():
        for other in allowed:
            assert level.get(other) == level.get(folder), f"SAME_LAYER: {folder} and {other} are not in one layer"

    def folder_of(path):
        rel = os.path.relpath(path, root)
        return rel.split(os.sep)[0] if os.sep in rel else "."

    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".swift"))
    declared = {}
    for path in files:
        with open(path, encoding="utf-8") as f:
            for name in DECL.findall(f.read()):
                declared.setdefault(name, set()).add(folder_of(path))

    def may_use(here, home):
        return level.get(home, 99) < level[here] or (level.get(home) == level[here] and home in same_layer.get(here, []))

    bad = 0
    for path in files:
        here = folder_of(path)
        if here not in level:
            out(f"{path}: folder {here} is not in a layer (scripts/layers.py)")
            bad += 1
            continue
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            code = line.split("//")[0]
            code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
            for name in sorted(set(re.findall(r"\b[A-Z]\w*\b", code))):
                homes = declared.get(name)
                if not homes or here in homes or any(may_use(here, h) for h in homes):
                    continue
                where = ", ".join(sorted(homes))
                if all(level.get(h, 99) > level[here] for h in homes):
                    why = f"above {here}"
                else:
                    why = f"in {here}'s layer, which {here} may not use (scripts/layers.py, same_layer)"
                out(f"{os.path.relpath(path)}:{n}: {name}, declared in {where}, {why}")
                bad += 1
    return bad, len(files)


def self_test():
    """A small module: clean it passes; an upward use and a same-layer use not listed each fail."""
    layers = [["Low"], ["Left", "Right"], ["High"]]
    same_layer = {"Right": ["Left"]}
    tree = {
        "Low/Clock.swift": "struct Clock {}\n",
        "Left/Valve.swift": "struct Valve { let c = Clock() }\n",
        "Right/Pump.swift": "struct Pump { let v = Valve() }  // Right may use Left\n",
        "High/Plant.swift": "struct Plant { let p = Pump(); let v = Valve() }\n",
    }
    broken = {
        "Left/Valve.swift": "struct Valve { let p = Pump() }\n",      # Left may not use Right
        "Low/Clock.swift": "struct Clock { let p: Plant? = nil }\n",  # upward
    }
    root = tempfile.mkdtemp(prefix="layers-")
    try:
        def write(files):
            for rel, text in files.items():
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
        write(tree)
        said = []
        clean, _ = check(root, layers, same_layer, said.append)
        assert clean == 0, f"the clean tree failed: {said}"
        write(broken)
        said = []
        bad, _ = check(root, layers, same_layer, said.append)
        assert bad == 2, f"expected 2 uses refused, got {said}"
        assert any("Pump, declared in Right, in Left's layer, which Left may not use" in s for s in said), said
        assert any("Plant, declared in High, above Low" in s for s in said), said
    finally:
        shutil.rmtree(root)
    print("layers: self-test OK (a clean tree passes; an upward use and a same-layer use not allowed fail)")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if sys.argv[1:]:
        print(__doc__.split("Usage: ")[1].split("\n")[0], file=sys.stderr)
        return 2
    failed = 0
    for module, rules in MODULES.items():
        bad, count = check(os.path.normpath(os.path.join(SOURCES, module)), rules["layers"], rules["same_layer"])
        print(f"layers: {module}: {'OK' if bad == 0 else f'{bad} use(s) the layers forbid'} ({count} files)")
        failed += bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
