#!/usr/bin/env python3
"""`railtune paths render` seen through a real browser.

Runs an emulated 16-rank job over 2 racks with one rank's NIC misbound (as `railtune demo` does), renders
its path logs to HTML, opens the page in headless Chromium and checks what the browser built: one <svg>,
the legend, one `.link` per connection and `violation` on exactly the misbound connections, each violation
red from its sending GPU to its receiving GPU (send and receive side alike, one path), and the heading's
counts (hosts that logged, connections, connection ends, violations) equal to those of the logs and to
what `railtune paths check --json` prints. The expected numbers come from the path logs themselves (read
here, independently of railtune's reader). Then it takes a screenshot and checks that it is a real picture
(a PNG, not blank, with the violations' red). Last, a job written by `railtune paths synth` on a rail map
whose names sort differently as text (racks rack2/rack10, hosts node2/node11, NICs mlx5_2/mlx5_11) must
list racks, hosts and NICs in natural order, in the picture and in `paths check`'s NIC table.

    paths_render_browser.py RAILTUNE WORKDIR
Exit status: 0 passed, 1 failed, 77 skipped (no chromium).
"""
import collections
import glob
import html.parser
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from browser_support import Browser, check_self_contained, chromium_or_skip, fail, png_pixels, run  # noqa: E402

FAULT_RANK = 0
FAULT = "RAILTUNE_NET_FAULT_MISBIND=mlx5_0:mlx5_1"  # rank 0 is GPU 0 of its tray: mlx5_0 is its NIC
VIOLATION_RGB = (0xD0, 0x00, 0x00)






def connect_records(log_dir):
    records = []
    for path in sorted(glob.glob(os.path.join(log_dir, "**", "*.jsonl"), recursive=True)):
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                if record.get("schema") == "railtune.path_log.v1" and record.get("record") == "connect":
                    records.append(record)
    return records


def process_ranks(records):
    """(host, pid) -> rank: a send record carries its writer's rank, a receive record its sender's."""
    ranks = {}
    for r in records:
        if r["direction"] == "send" and r.get("rank", -1) >= 0:
            ranks[(r["host"], r["pid"])] = r["rank"]
        if r["direction"] == "recv" and r["remote"]["rank"] >= 0:
            ranks[(r["remote"]["host"], r["remote"]["pid"])] = r["remote"]["rank"]
    return ranks


def expected_links(records):
    """Per (sender, receiver) process pair: how many connections, and which are misbound.

    Both ends log a connection (the sender as "send", the receiver as "recv"), so a pair of processes
    has max(sends, recvs) connections. A connection is misbound when either end says rail_match: false
    or its two ends sit on different rails (all-reduce and tree keep every hop on one rail).
    Returns (count, Counter of violating (host, rank, peer host, peer rank) as the sender logged them)."""
    sends, recvs = collections.Counter(), collections.Counter()
    bad_pairs = set()
    bad_sends = collections.Counter()
    for r in records:
        me, peer = (r["host"], r["pid"]), (r["remote"]["host"], r["remote"]["pid"])
        key = (me, peer) if r["direction"] == "send" else (peer, me)
        (sends if r["direction"] == "send" else recvs)[key] += 1
        if r["rail_match"] is False or r["local"]["rail"] != r["remote"]["rail"]:
            bad_pairs.add(key)
    count = sum(max(sends[k], recvs[k]) for k in set(sends) | set(recvs))
    rank_of = process_ranks(records)
    for r in records:
        me, peer = (r["host"], r["pid"]), (r["remote"]["host"], r["remote"]["pid"])
        if r["direction"] == "send" and (me, peer) in bad_pairs:
            bad_sends[(r["host"], rank_of.get(me, -1), r["remote"]["host"], rank_of.get(peer, -1))] += 1
    return count, bad_sends


class DomSummary(html.parser.HTMLParser):
    """What the browser's DOM holds: <svg> elements, the legend, links and their attributes, each GPU's box,
    racks, hosts and NICs in document order, and the heading's text."""

    def __init__(self):
        super().__init__()
        self.svgs = 0
        self.legends = 0
        self.links = []  # (classes, attributes)
        self.gpus = {}  # (host, gpu index) -> (x, y, width, height)
        self.racks, self.hosts, self.nics = [], collections.defaultdict(list), collections.defaultdict(list)
        self.heading = ""
        self._gpu = None
        self._rack = None
        self._in_heading = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs += 1
        if a.get("id") == "legend":
            self.legends += 1
        classes = (a.get("class") or "").split()
        if "link" in classes:
            self.links.append((classes, a))
        if "rack" in classes:
            self._rack = a["data-rack"]
            self.racks.append(self._rack)
        if "host" in classes and tag == "g":
            self.hosts[self._rack].append(a["data-host"])
        if "nic" in classes:
            self.nics[a["data-host"]].append(a["data-nic"])
        if "gpu" in classes:
            self._gpu = (a["data-host"], int(a["data-gpu"]))
        elif tag == "rect" and self._gpu is not None:
            self.gpus[self._gpu] = tuple(float(a[k]) for k in ("x", "y", "width", "height"))
            self._gpu = None
        self._in_heading = "heading" in classes

    def handle_data(self, data):
        if self._in_heading:
            self.heading += data

    def handle_endtag(self, tag):
        self._in_heading = False


def path_points(d):
    """The first and the last point of an SVG path's `d` (M, L and C commands with absolute numbers)."""
    numbers = [float(n) for n in re.findall(r"-?[0-9.]+", d)]
    return (numbers[0], numbers[1]), (numbers[-2], numbers[-1])


def inside(point, box, slack=6):
    x, y, w, h = box
    return x - slack <= point[0] <= x + w + slack and y - slack <= point[1] <= y + h + slack


def check_red_end_to_end(summary, dom):
    """Each violation is one red path from the sending GPU to the receiving GPU: its send side and its receive
    side, whichever end was misbound; no part of it drawn in a rail's colour."""
    if "link-wired-end" in dom:
        fail("a violation has a part drawn in its rail's colour (link-wired-end)")
    checked = 0
    for classes, a in summary.links:
        if "violation" not in classes:
            continue
        if a.get("stroke", "").lower() != "#d00000":
            fail("violation %s is drawn %s, not red" % (a.get("data-conn"), a.get("stroke")))
        start, end = path_points(a["d"])
        sender = summary.gpus.get((a["data-host"], int(a["data-gpu"])))
        receiver = summary.gpus.get((a["data-peer-host"], int(a["data-peer-gpu"])))
        if sender is None or receiver is None:
            fail("violation %s: a GPU of its ends is not drawn (%s)" % (a.get("data-conn"), a))
        if not inside(start, sender) or not inside(end, receiver):
            fail("violation %s is not red from GPU to GPU: path %s..%s, sender GPU %s, receiver GPU %s"
                 % (a.get("data-conn"), start, end, sender, receiver))
        checked += 1
    print("violations: %d red from the sending GPU to the receiving GPU" % checked)


def check_heading(summary, expected):
    """The heading: "railtune paths: job J: H hosts logged, C connections, E connection ends, V violations"."""
    m = re.search(r"(\d+) hosts? logged, (\d+) connections?, (\d+) connection ends?, (\d+) violations?", summary.heading)
    if not m:
        fail("heading %r does not say hosts, connections, connection ends and violations" % summary.heading)
    got = tuple(int(g) for g in m.groups())
    if got != expected:
        fail("heading counts %s (hosts, connections, ends, violations), expected %s" % (got, expected))
    if "rails unknown" in summary.heading:
        fail("heading says rails unknown for a job whose logs name every rail: %r" % summary.heading)
    print("heading: %s" % summary.heading.strip())


def check_dom(dom, count, bad_sends):
    summary = DomSummary()
    summary.feed(dom)
    print("DOM: %d svg, %d legend, %d links" % (summary.svgs, summary.legends, len(summary.links)))
    if summary.svgs != 1:
        fail("expected one <svg>, found %d" % summary.svgs)
    if summary.legends != 1:
        fail("expected one #legend, found %d" % summary.legends)
    if len(summary.links) != count:
        fail("expected %d .link elements (one per connection in the path logs), found %d" % (count, len(summary.links)))
    drawn_bad = collections.Counter()
    for classes, a in summary.links:
        if "violation" in classes:
            drawn_bad[(a["data-host"], int(a["data-rank"]), a["data-peer-host"], int(a["data-peer-rank"]))] += 1
    if drawn_bad != bad_sends:
        fail("violations drawn %s, misbound connections in the logs %s" % (dict(drawn_bad), dict(bad_sends)))
    print("violations: %d links, exactly the misbound connections" % sum(drawn_bad.values()))
    check_red_end_to_end(summary, dom)
    return summary


def natural_key(name):
    return [int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", name)]


def natural_rail_map(path):
    """Two racks whose names, hosts and NICs sort differently as text and as numbers. Rail 0 is served by
    mlx5_11 (GPU 0) and mlx5_2 (GPU 1), rail 1 by mlx5_10 and mlx5_3: within a rail, natural order puts
    mlx5_2 before mlx5_11."""
    hcas = [("mlx5_11", 0), ("mlx5_2", 0), ("mlx5_10", 1), ("mlx5_3", 1)]
    hosts = []
    for rack, names in (("rack10", ("node10", "node9")), ("rack2", ("node11", "node2"))):
        for name in names:
            gpus = [{"index": g, "bus_id": "0000:%02x:00.0" % (0x10 + g),
                     "nics": [{"hca": hca, "netdev": "ib%d" % g, "bus_id": "0000:%02x:00.0" % (0x20 + g), "port": 1,
                               "rail": rail, "plane": -1, "speed_mbps": 400000}]}
                    for g, (hca, rail) in enumerate(hcas)]
            hosts.append({"name": name, "domain": rack, "gpus": gpus})
    with open(path, "w") as f:
        json.dump({"schema": "railtune.rail_map.v1", "cluster": "natural", "rails": 2, "planes": 1, "hosts": hosts}, f)


def check_natural_order(railtune, chromium, work):
    rail_map, logs, page = (os.path.join(work, n) for n in ("natural-map.json", "natural", "natural.html"))
    natural_rail_map(rail_map)
    run([railtune, "paths", "synth", "--ranks", "16", "--rail-map", rail_map, "--no-mnnvl", "--out", logs,
         "--truth", os.path.join(work, "natural-truth.json"), "--collectives", "4", "--connections-per-rank", "4",
         "--stragglers", "0", "--slow-trays", "0", "--slow-racks", "0", "--cross-rail", "1"])
    print(run([railtune, "paths", "render", logs, "--rail-map", rail_map, "-o", page]))
    summary = DomSummary()
    summary.feed(Browser(chromium, work, 1600, 1100).dom(page))
    lists = [("racks", summary.racks)] + [("hosts of " + r, summary.hosts[r]) for r in summary.racks]
    lists += [("NICs of %s rail %d" % (h, rail), [n for n in summary.nics[h] if n in names])
              for h in sorted(summary.nics) for rail, names in ((0, ("mlx5_2", "mlx5_11")), (1, ("mlx5_3", "mlx5_10")))]
    for what, names in lists:
        if names != sorted(names, key=natural_key) or len(names) < 2:
            fail("%s drawn in the order %s, not natural order" % (what, names))
    print("picture: racks %s, hosts %s, NICs of node2 %s" % (summary.racks, dict(summary.hosts), summary.nics["node2"]))
    report = json.loads(run([railtune, "paths", "check", logs, "--rail-map", rail_map, "--json"], ok_codes=(0, 1)))
    nics = [(n["host"], n["hca"]) for n in report["jobs"][0]["nics"]]
    if nics != sorted(nics, key=lambda n: (natural_key(n[0]), natural_key(n[1]))):
        fail("paths check lists NICs in the order %s, not natural order" % nics)
    print("paths check: NICs %s" % nics[:4])






def check_screenshot(path):
    size = os.path.getsize(path)
    width, height, channels, rows = png_pixels(path)
    non_white = red = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            rgb = (row[x], row[x + 1], row[x + 2])
            if rgb != (255, 255, 255):
                non_white += 1
            if all(abs(c - v) <= 24 for c, v in zip(rgb, VIOLATION_RGB)):
                red += 1
    share = non_white / float(width * height)
    print("screenshot %s: %d bytes, %dx%d, %.1f%% not white, %d violation-red pixels" % (path, size, width, height, 100 * share, red))
    if size < 20000:
        fail("screenshot is only %d bytes" % size)
    if share < 0.02:
        fail("screenshot is nearly blank")
    if red < 200:
        fail("screenshot shows no violation in red")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    railtune, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    chromium = chromium_or_skip()
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    logs, page, rail_map = os.path.join(work, "paths"), os.path.join(work, "paths.html"), os.path.join(work, "rail-map.json")
    run([railtune, "emu", "net-job", "--ranks", "16", "--racks", "2", "--collectives", "all-reduce,tree",
         "--bytes", "262147", "--path-log-dir", logs, "--fault-rank", str(FAULT_RANK), "--fault", FAULT])
    run([railtune, "topo", "rail-map", "--out", rail_map])
    print(run([railtune, "paths", "render", logs, "--rail-map", rail_map, "-o", page]))
    check_self_contained(page)
    count, bad_sends = expected_links(connect_records(logs))
    if not bad_sends:
        fail("the emulated job logged no misbound connection; the fault was not injected")
    browser = Browser(chromium, work, 1600, 1100)
    dom = browser.dom(page)
    summary = check_dom(dom, count, bad_sends)
    records = connect_records(logs)
    expected = (len({r["host"] for r in records}), count, len(records), sum(bad_sends.values()))
    check_heading(summary, expected)
    report = json.loads(run([railtune, "paths", "check", logs, "--rail-map", rail_map, "--json"], ok_codes=(1,)))
    job = report["jobs"][0]
    printed = (job["hosts"], job["connections"], job["connection_ends"], job["violations"])
    if printed != expected:
        fail("paths check prints %s (hosts, connections, ends, violations), render %s" % (printed, expected))
    png = os.path.join(work, "paths.png")
    browser.screenshot(page, png)
    check_screenshot(png)
    check_natural_order(railtune, chromium, work)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
