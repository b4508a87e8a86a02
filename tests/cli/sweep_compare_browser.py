#!/usr/bin/env python3
"""`railtune sweep compare` seen through a real browser.

Renders a sweep dataset's comparison to HTML (with the given tuner rules, or the dataset's own winners),
opens the page in headless Chromium and checks what the browser built, per collective and shape: one
<svg>, one `polyline.series` per choice measured, one row per measured size and one `circle.chosen` per
row, ringed on a series of its own plot. The expected numbers come from the dataset itself (read here with
python's json, independently of railtune's reader and aggregation). Then it takes a screenshot and checks
that it is a real picture (a PNG, not blank, with NCCL default's dark line in it).

    sweep_compare_browser.py RAILTUNE WORKDIR DATASET [RULES]
Exit status: 0 passed, 1 failed, 77 skipped (no chromium).
"""
import collections
import html.parser
import json
import os
import shutil
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
from browser_support import Browser, check_self_contained, chromium_or_skip, fail, png_pixels, run  # noqa: E402

DEFAULT_RGB = (0x1A, 0x1A, 0x1A)  # the default series' stroke (render_svg.cc)
FIRST_CHOICE_RGB = (0x1F, 0x77, 0xB4)  # the first forced choice's stroke






def group_key(collective, shape):
    """What a group of the report is: the collective and the whole communicator shape."""
    return (collective, int(shape.get("ranks", 0)), int(shape.get("hosts", 0)), int(shape.get("nodes", 0)),
            int(shape.get("nvl_domains", 0)), int(shape.get("ranks_per_domain", 0)))


def expected_groups(dataset):
    """Per group, the measured sizes and choices, from the rows the rules would use: valid (#wrong zero),
    forcing one choice (no "unusable"), a known shape, a size and a busbw in either half."""
    sizes, choices = collections.defaultdict(set), collections.defaultdict(set)
    with open(dataset) as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            choice = row.get("choice", {})
            busbw = [row.get(half, {}).get("busbw") for half in ("out_of_place", "in_place")]
            if not row.get("valid", False) or "unusable" in choice or row["shape"].get("ranks", 0) <= 0:
                continue
            if row["size"] <= 0 or all(b is None for b in busbw):
                continue
            key = group_key(row["collective"], row["shape"])
            sizes[key].add(int(row["size"]))
            choices[key].add(json.dumps(choice, sort_keys=True))
    return {key: (sizes[key], len(choices[key])) for key in sizes}


class Group:
    def __init__(self, key):
        self.key = key
        self.svgs = 0
        self.series = []  # data-label of each polyline.series
        self.chosen = []  # (data-size, data-label, measured) of each circle.chosen
        self.rows = []  # data-size of each tr.point


class DomSummary(html.parser.HTMLParser):
    """What the browser's DOM holds, per <section class="group">."""

    def __init__(self):
        super().__init__()
        self.groups = []
        self.current = None
        self.outside = 0  # plots, series or rows outside any group

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "section" and "group" in classes:
            self.current = Group(group_key(a.get("data-collective"), {
                "ranks": a.get("data-ranks", 0), "hosts": a.get("data-hosts", 0), "nodes": a.get("data-nodes", 0),
                "nvl_domains": a.get("data-nvl-domains", 0), "ranks_per_domain": a.get("data-ranks-per-domain", 0)}))
            self.groups.append(self.current)
            return
        counted = tag == "svg" or (tag == "polyline" and "series" in classes) or \
            (tag == "circle" and "chosen" in classes) or (tag == "tr" and "point" in classes)
        if not counted:
            return
        if self.current is None:
            self.outside += 1
        elif tag == "svg":
            self.current.svgs += 1
        elif tag == "polyline":
            self.current.series.append(a.get("data-label"))
        elif tag == "circle":
            self.current.chosen.append((a.get("data-size"), a.get("data-label"), "unmeasured" not in classes))
        else:
            self.current.rows.append(a.get("data-size"))

    def handle_endtag(self, tag):
        if tag == "section":
            self.current = None


def check_dom(dom, expected):
    summary = DomSummary()
    summary.feed(dom)
    print("DOM: %d groups, %d svg, %d series, %d rows, %d chosen marks" % (
        len(summary.groups), sum(g.svgs for g in summary.groups), sum(len(g.series) for g in summary.groups),
        sum(len(g.rows) for g in summary.groups), sum(len(g.chosen) for g in summary.groups)))
    if summary.outside:
        fail("%d plots, series or rows outside a <section class=\"group\">" % summary.outside)
    drawn = {g.key: g for g in summary.groups}
    if len(drawn) != len(summary.groups):
        fail("two sections for one collective and shape")
    if set(drawn) != set(expected):
        fail("sections %s, groups in the dataset %s" % (sorted(drawn), sorted(expected)))
    for key, (sizes, choices) in sorted(expected.items()):
        g = drawn[key]
        name = "%s, %d ranks" % (key[0], key[1])
        if g.svgs != 1:
            fail("%s: expected one <svg>, found %d" % (name, g.svgs))
        if len(g.series) != choices:
            fail("%s: expected %d polyline.series (one per choice measured), found %d" % (name, choices, len(g.series)))
        if len(set(g.series)) != len(g.series):
            fail("%s: two series with one label: %s" % (name, g.series))
        rows = sorted(int(s) for s in g.rows)
        if rows != sorted(sizes):
            fail("%s: table rows at sizes %s, sizes in the dataset %s" % (name, rows, sorted(sizes)))
        if sorted(int(s) for s, _, _ in g.chosen) != rows:
            fail("%s: circle.chosen at sizes %s, table rows at %s" % (name, sorted(s for s, _, _ in g.chosen), rows))
        for size, label, measured in g.chosen:
            # A choice the rules make but the sweep never measured has no series: its mark says "unmeasured".
            if measured and label not in g.series:
                fail("%s: the choice marked at %s bytes, %r, has no series in the plot %s" % (name, size, label, g.series))
    print("every group: one plot, one series per choice, one row and one chosen mark per size")
    return summary.groups






def check_screenshot(path, first_group_has_choices):
    size = os.path.getsize(path)
    width, height, channels, rows = png_pixels(path)
    non_white = dark = blue = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            rgb = (row[x], row[x + 1], row[x + 2])
            if rgb != (255, 255, 255):
                non_white += 1
            if all(abs(c - v) <= 24 for c, v in zip(rgb, DEFAULT_RGB)):
                dark += 1
            if all(abs(c - v) <= 24 for c, v in zip(rgb, FIRST_CHOICE_RGB)):
                blue += 1
    share = non_white / float(width * height)
    print("screenshot %s: %d bytes, %dx%d, %.1f%% not white, %d default-dark and %d first-choice-blue pixels" % (
        path, size, width, height, 100 * share, dark, blue))
    if size < 20000:
        fail("screenshot is only %d bytes" % size)
    if share < 0.02:
        fail("screenshot is nearly blank")
    if dark < 200:
        fail("screenshot shows no default series in its dark stroke")
    if first_group_has_choices and blue < 50:
        fail("screenshot shows no forced choice's series in the first colour of the palette")


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__)
        return 2
    railtune, work, dataset = (os.path.abspath(a) for a in sys.argv[1:4])
    rules = os.path.abspath(sys.argv[4]) if len(sys.argv) == 5 else None
    chromium = chromium_or_skip()
    expected = expected_groups(dataset)
    if not expected:
        fail("the dataset %s holds no usable row: nothing to check" % dataset)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    page = os.path.join(work, "report.html")
    print(run([railtune, "sweep", "compare", dataset, *(["--rules", rules] if rules else []), "-o", page]))
    check_self_contained(page, ("<link", "<script", "src=", "@import", "url("))
    browser = Browser(chromium, work, 1400, 1000)
    dom = browser.dom(page)
    groups = check_dom(dom, expected)
    png = os.path.join(work, "report.png")
    browser.screenshot(page, png)
    check_screenshot(png, len(groups[0].series) > 1)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
