#!/usr/bin/env python3
"""`railtune paths render` seen through a real browser.

Runs an emulated 16-rank job over 2 racks with one rank's NIC misbound (as `railtune demo` does), renders
its path logs to HTML, opens the page in headless Chromium and checks what the browser built: one <svg>,
the legend, one `.link` per connection and `violation` on exactly the misbound connections. The expected
numbers come from the path logs themselves (read here, independently of railtune's reader). Then it
takes a screenshot and checks that it is a real picture (a PNG, not blank, with the violations' red).

    paths_render_browser.py RAILTUNE WORKDIR
Exit status: 0 passed, 1 failed, 77 skipped (no chromium).
"""
import collections
import glob
import html.parser
import json
import os
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
    """Counts what the browser's DOM holds: <svg> elements, the legend, links and their attributes."""

    def __init__(self):
        super().__init__()
        self.svgs = 0
        self.legends = 0
        self.links = []  # (classes, attributes)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self.svgs += 1
        if a.get("id") == "legend":
            self.legends += 1
        classes = (a.get("class") or "").split()
        if "link" in classes:
            self.links.append((classes, a))


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
    check_dom(dom, count, bad_sends)
    png = os.path.join(work, "paths.png")
    browser.screenshot(page, png)
    check_screenshot(png)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
