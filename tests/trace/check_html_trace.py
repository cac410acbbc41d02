#!/usr/bin/env python3
"""The HTML trace (MINICUDA_TRACE_FORMAT=html) of a program, opened in headless Chromium.

    check_html_trace.py PROGRAM OUT_DIR

Runs PROGRAM (vector_add: two copies in, a kernel, a copy out) with the HTML trace, checks that
the page is self-contained (nothing loaded from elsewhere), then opens it in headless Chromium:
the page, once its script has run, must have drawn a track for the host thread and each engine
used, a rectangle per device span (2 on ce0, 1 on compute, 1 on ce1), an arrow from each span's
call, and a tree row per call and note. Saves OUT_DIR/html_trace.png, a screenshot, as the test's
output. Exit 77 (skipped) when no Chromium is installed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main(program, out_dir):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    os.makedirs(out_dir, exist_ok=True)
    page = os.path.join(out_dir, "html_trace.html")
    env = dict(os.environ, MINICUDA_TRACE="1", MINICUDA_TRACE_FORMAT="html", MINICUDA_TRACE_FILE=page)
    subprocess.run([program], env=env, check=True, stdout=subprocess.DEVNULL, timeout=120)
    html = open(page, encoding="utf-8").read()
    failures = []
    # Self-contained: no script, style or image from a URL (the SVG namespace is a name, not a load).
    if re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html) or "@import" in html:
        failures.append("the page loads something from elsewhere")
    spans = html.count('"k":"s"')
    if spans != 4:
        failures.append(f"the data holds {spans} device spans, not 4")
    if browser is None:
        for f in failures:
            print("FAIL:", f)
        if failures:
            return 1
        print("no Chromium: skipping the drawing")
        return 77
    with tempfile.TemporaryDirectory() as profile:
        common = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                  "--hide-scrollbars", "--window-size=1280,800"]
        dom = subprocess.run(common + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120).stdout
        subprocess.run(common + [f"--screenshot={os.path.join(out_dir, 'html_trace.png')}", "file://" + page],
                       capture_output=True, timeout=120)
    drawn = re.search(r'data-drawn="([^"]*)"', dom)
    if not drawn:
        failures.append("the page's script did not finish drawing (no data-drawn)")
    elif drawn.group(1) != "4 tracks, 6 calls, 4 spans":
        failures.append(f"drawn: {drawn.group(1)} (expected 4 tracks, 6 calls, 4 spans)")
    tracks = re.findall(r'<g class="track" data-name="([^"]*)"', dom)
    if tracks != ["host thread 1", "compute", "ce0", "ce1"]:
        failures.append(f"tracks: {tracks}")
    units = re.findall(r'class="gpu-span ([a-z0-9]+)"', dom)
    if sorted(units) != ["ce0", "ce0", "ce1", "compute"]:
        failures.append(f"device spans drawn: {units}")
    if len(re.findall(r'class="arrow"', dom)) != 4:
        failures.append("not one arrow per device span")
    rows = len(re.findall(r'class="row L-', dom))
    if rows < 300:
        failures.append(f"only {rows} tree rows")
    if not os.path.exists(os.path.join(out_dir, "html_trace.png")):
        failures.append("no screenshot")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"PASS: {drawn.group(1)}, {rows} tree rows; screenshot {os.path.join(out_dir, 'html_trace.png')}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
