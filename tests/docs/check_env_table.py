#!/usr/bin/env python3
"""One table of every environment variable (docs/README.md, "Environment variables").

Collects the variables the code reads: std::getenv("NAME") and the nvcc driver's
environment_words("NAME") in the libraries and tools, and the MINICUDA_* ones the tests read.
Fails when one is missing from the table, or when the table lists one that nothing reads.

    check_env_table.py ROOT         check ROOT's sources against ROOT/docs/README.md
    check_env_table.py --self-test  plant a missing row and a stale row; fail unless both are reported
"""
import pathlib
import re
import sys

import check_cli
import tempfile

READ = re.compile(r'(?:getenv|environment_words)\("([A-Z][A-Z0-9_]*)"\)')
ROW = re.compile(r"^\|\s*((?:`[A-Z][A-Z0-9_]*`(?:,\s*)?)+)\s*\|")
LIBRARIES = ("runtime", "driver", "device_sim", "trace", "fault", "tools", "hw")
NOT_OURS = {"TMPDIR", "HOME", "PATH"}  # the system's, not minicuda's settings


def variables_read(root):
    found = set()
    for top in LIBRARIES + ("tests",):
        for path in (root / top).rglob("*"):
            if path.suffix not in (".cpp", ".h", ".cu", ".cuh") or not path.is_file():
                continue
            for name in READ.findall(path.read_text(encoding="utf-8", errors="replace")):
                if top == "tests" and not name.startswith("MINICUDA_"):
                    continue
                found.add(name)
    return found - NOT_OURS


def variables_listed(readme):
    text = readme.read_text(encoding="utf-8")
    start = text.find("## Environment variables")
    if start < 0:
        return None
    end = text.find("\n## ", start + 1)
    listed = set()
    for line in text[start:end if end > 0 else len(text)].split("\n"):
        m = ROW.match(line)
        if m:
            listed.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", m.group(1)))
    return listed


def check(root):
    root = pathlib.Path(root)
    listed = variables_listed(root / "docs" / "README.md")
    if listed is None:
        return ["docs/README.md has no \"## Environment variables\" section"]
    read = variables_read(root)
    return [f"docs/README.md: {name} is read by the code but not in the table" for name in sorted(read - listed)] + \
           [f"docs/README.md: {name} is in the table but nothing reads it" for name in sorted(listed - read)]


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        (root / "docs").mkdir()
        (root / "runtime").mkdir()
        (root / "runtime" / "a.cpp").write_text('auto a = std::getenv("MINICUDA_A");\n', encoding="utf-8")
        table = "## Environment variables\n\n| variable | effect |\n| --- | --- |\n{rows}\n## Next\n"
        (root / "docs" / "README.md").write_text(table.format(rows="| `MINICUDA_A` | a |"), encoding="utf-8")
        if check(root):
            failures.append(f"the faithful table was flagged: {check(root)}")
        (root / "runtime" / "b.cpp").write_text('auto b = std::getenv("MINICUDA_B");\n', encoding="utf-8")
        if not any("MINICUDA_B" in f for f in check(root)):
            failures.append("not flagged: a variable the code reads and the table lacks")
        (root / "runtime" / "b.cpp").unlink()
        (root / "docs" / "README.md").write_text(table.format(rows="| `MINICUDA_A` | a |\n| `MINICUDA_OLD` | gone |"),
                                                 encoding="utf-8")
        if not any("MINICUDA_OLD" in f for f in check(root)):
            failures.append("not flagged: a row that nothing reads")
    return failures



if __name__ == "__main__":
    sys.exit(check_cli.run(sys.argv, __doc__, check, self_test, ()))
