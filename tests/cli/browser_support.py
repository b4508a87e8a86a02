"""What the browser tests of railtune's pages share (paths_render_browser.py, sweep_compare_browser.py): running a
command as a user would, headless Chromium (the DOM it built, a screenshot), the check that a page fetches
nothing, and a PNG decoder for the screenshot (Chromium writes 8-bit RGB or RGBA, not interlaced)."""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, timeout=180, ok_codes=(0,)):
    print("+ " + " ".join(args), flush=True)
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if done.returncode not in ok_codes:  # a gate's "found something" (1) may be the expected answer
        print(done.stdout + done.stderr)
        fail("%s exited with %d" % (args[0], done.returncode))
    return done.stdout  # Chromium's stderr (D-Bus complaints in a container) is not part of the DOM


def chromium_or_skip():
    """The chromium binary; exits with SKIP (77, ctest's SKIP_RETURN_CODE) when it is not installed."""
    chromium = shutil.which("chromium")
    if chromium is None:
        print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
        sys.exit(SKIP)
    return chromium


class Browser:
    def __init__(self, chromium, work, width, height):
        self.argv = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                     "--user-data-dir=" + os.path.join(work, "chromium"), "--window-size=%d,%d" % (width, height),
                     "--hide-scrollbars"]

    def dom(self, page):
        return run(["timeout", "90", *self.argv, "--dump-dom", "file://" + page], timeout=120)

    def screenshot(self, page, png):
        run(["timeout", "90", *self.argv, "--screenshot=" + png, "file://" + page], timeout=120)


def check_self_contained(page, needles=("<link", "src=", "@import", "url(")):
    """The page must fetch nothing: the only URLs allowed are the SVG and XHTML namespace names."""
    with open(page) as f:
        text = f.read()
    urls = set(re.findall(r"https?://[^\s\"'<>)]*", text))
    foreign = urls - {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml"}
    if foreign:
        fail("the page names URLs it would fetch or link: %s" % sorted(foreign))
    for needle in needles:
        if needle in text:
            fail("the page contains %r" % needle)


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA non-interlaced PNG into (width, height, channels, rows of bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail("unexpected PNG layout %s" % (header,))
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows
