#!/usr/bin/env python3
"""sensor-edge.py [DEBOUNCE_MS ...]: how long a limit switch's edge takes to become a reaction the
daemon shows, on the host with a simulated switch and a simulated light: the closed switch opens
(a file renamed over sim:FILE, stamped CLOCK_MONOTONIC just before the rename), and the light's
trace records the moment garaged switched it on (the door started to move). Prints the median
and the maximum of 15 edges per debounce. Uses the release build if there is one."""
import os, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
binary = next(p for p in (f"{root}/.build/release/garaged", f"{root}/.build/debug/garaged") if os.path.exists(p))
tool = binary.replace("garaged", "garage-pins")

def run(debounce, edges=15):
    with tempfile.TemporaryDirectory(prefix="garaged-edge.") as d:
        p = lambda name: os.path.join(d, name)
        subprocess.run([tool, "init", "--pins", p("pins"), "--master", "12345"], check=True, stdout=subprocess.DEVNULL)
        open(p("closed"), "w").write("1\n")
        open(p("open"), "w").write("0\n")
        daemon = subprocess.Popen([binary, "--pins", p("pins"), "--socket", p("sock"), "--relay", f"sim:{p('trace')}", "--no-ble",
                                   "--sensor-closed", f"sim:{p('closed')}", "--sensor-open", f"sim:{p('open')}",
                                   "--light", f"sim:{p('light')}", "--light-s", "1", "--sensor-debounce-ms", str(debounce),
                                   "--travel-s", "300", "--auto-close-s", "0"], stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(p("sock")):
                if time.monotonic() > deadline: sys.exit("garaged did not start")
                time.sleep(0.01)
            lines = lambda: open(p("light")).read().split("\n")[:-1]
            latencies = []
            for i in range(edges * 2):
                n = len(lines())
                open(p("closed.new"), "w").write("0\n" if i % 2 == 0 else "1\n")
                t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
                os.rename(p("closed.new"), p("closed"))
                if i % 2 == 0:
                    deadline = time.monotonic() + 5
                    while len(lines()) == n:
                        if time.monotonic() > deadline: sys.exit("the light never came on")
                        time.sleep(0.0005)
                    latencies.append((int(lines()[n].split()[0]) - t0) / 1e6)
                time.sleep(1.2)  # the light goes off again (light-s 1) before the next edge
            return latencies
        finally:
            daemon.terminate()
            daemon.wait()

for debounce in [int(a) for a in sys.argv[1:]] or [0, 100]:
    lat = run(debounce)
    print(f"debounce {debounce} ms: switch edge -> light on: median {statistics.median(lat):.2f} ms, max {max(lat):.2f} ms ({len(lat)} edges, {os.path.basename(os.path.dirname(binary))} build)")
