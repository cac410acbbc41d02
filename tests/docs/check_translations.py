#!/usr/bin/env python3
"""The Chinese pages keep up with the English ones: every walkthrough has a twin, linked both ways.

Pairs checked, each an English page and its Chinese twin under docs/zh/:

    docs/README.md                  <->  docs/zh/README.md
    docs/walkthroughs/NAME.md       <->  docs/zh/walkthroughs/NAME.md   (every NAME on either side)

A pair is complete when both files exist and each one links to the other within its first
LINK_LINES lines (the reader finds the other language at the top, not at the end). A link is a
Markdown link "[text](relative/path.md)" or "[text](relative/path.md#anchor)" whose path, taken
relative to the page's folder, is the other file.

    check_translations.py ROOT         check the pairs under ROOT
    check_translations.py --self-test  plant each kind of gap in a scratch tree; fail unless every
                                       one is reported and the complete tree passes
Exit status: 0 when every pair is complete, 1 otherwise (each finding on stderr as file: what).
"""
import os
import pathlib
import re
import sys

import check_cli
import tempfile

LINK = re.compile(r"\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)")
LINK_LINES = 6  # the title, a blank line, the link line, with room for a short note


def pairs(root):
    """(English page, Chinese twin) for README and every walkthrough found on either side."""
    docs = root / "docs"
    result = [(docs / "README.md", docs / "zh" / "README.md")]
    names = {p.name for p in (docs / "walkthroughs").glob("*.md")}
    names |= {p.name for p in (docs / "zh" / "walkthroughs").glob("*.md")}
    for name in sorted(names):
        result.append((docs / "walkthroughs" / name, docs / "zh" / "walkthroughs" / name))
    return result


def links_to(page, target):
    """True if one of page's first LINK_LINES lines links to target."""
    head = page.read_text(encoding="utf-8").split("\n")[:LINK_LINES]
    for line in head:
        for m in LINK.finditer(line):
            if m.group(1).startswith(("http://", "https://")):
                continue
            if os.path.normpath(page.parent / m.group(1)) == os.path.normpath(target):
                return True
    return False


def check(root):
    root = pathlib.Path(root)
    findings = []
    for english, chinese in pairs(root):
        rel_en, rel_zh = english.relative_to(root), chinese.relative_to(root)
        if not english.is_file():
            findings.append(f"{rel_zh}: no English page {rel_en}")
            continue
        if not chinese.is_file():
            findings.append(f"{rel_en}: no Chinese twin {rel_zh}")
            continue
        if not links_to(english, chinese):
            findings.append(f"{rel_en}: no link to {rel_zh} in its first {LINK_LINES} lines")
        if not links_to(chinese, english):
            findings.append(f"{rel_zh}: no link back to {rel_en} in its first {LINK_LINES} lines")
    return findings


def self_test():
    def english(name):
        return f"# {name}\n\n中文: [{name}](../zh/walkthroughs/{name}.md)\n\nText.\n"

    def chinese(name):
        return f"# {name}\n\nEnglish: [{name}](../../walkthroughs/{name}.md#top)\n\n正文。\n"

    complete = {
        "docs/README.md": "# docs\n\n中文: [zh/README.md](zh/README.md)\n",
        "docs/zh/README.md": "# 文档\n\nEnglish: [docs/README.md](../README.md)\n",
        "docs/walkthroughs/a.md": english("a"),
        "docs/walkthroughs/b.md": english("b"),
        "docs/zh/walkthroughs/a.md": chinese("a"),
        "docs/zh/walkthroughs/b.md": chinese("b"),
    }
    planted = {  # what is changed: path -> new text (None: the file is removed)
        "missing Chinese page": {"docs/zh/walkthroughs/b.md": None},
        "missing English page": {"docs/walkthroughs/a.md": None},
        "English page without the link": {"docs/walkthroughs/a.md": "# a\n\nText only.\n"},
        "Chinese page without the link back": {"docs/zh/walkthroughs/b.md": "# b\n\n正文。\n"},
        "link to the wrong page": {"docs/walkthroughs/b.md": english("a")},
        "link only at the end": {"docs/walkthroughs/a.md": "# a\n\n" + "Text.\n\n" * 6 + "[a](../zh/walkthroughs/a.md)\n"},
        "README without the link": {"docs/README.md": "# docs\n"},
        "missing Chinese README": {"docs/zh/README.md": None},
    }
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)

        def write(files):
            for path in root.rglob("*.md"):
                path.unlink()
            for path, text in files.items():
                if text is not None:
                    (root / path).parent.mkdir(parents=True, exist_ok=True)
                    (root / path).write_text(text, encoding="utf-8")

        write(complete)
        if check(root):
            failures.append(f"the complete tree was flagged: {check(root)}")
        for what, change in planted.items():
            write({**complete, **change})
            if not check(root):
                failures.append(f"not flagged: {what}")
    return failures



if __name__ == "__main__":
    sys.exit(check_cli.run(sys.argv, __doc__, check, self_test, ()))
