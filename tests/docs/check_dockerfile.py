#!/usr/bin/env python3
"""The Dockerfile runs the README's two quick-start commands, word for word.

The commands are the one-line fenced blocks of README.md's "## Quick start" section; the
Dockerfile must run each, as a RUN line or inside its CMD ["bash", "-c", "..."].

    check_dockerfile.py ROOT         check ROOT/README.md against ROOT/Dockerfile
    check_dockerfile.py --self-test  plant a changed command; fail unless it is reported
"""
import json
import pathlib
import re
import sys

import check_cli
import tempfile


def readme_commands(readme):
    text = readme.read_text(encoding="utf-8")
    start = text.find("## Quick start")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else len(text)]
    return [block.strip() for block in re.findall(r"```\n(.*?)\n```", section, re.S) if "\n" not in block.strip()]


def dockerfile_commands(dockerfile):
    commands = []
    for line in dockerfile.read_text(encoding="utf-8").split("\n"):
        if line.startswith("RUN "):
            commands.append(line[len("RUN "):].strip())
        elif line.startswith("CMD "):
            words = json.loads(line[len("CMD "):])
            if words[:2] == ["bash", "-c"]:
                commands.append(words[2].strip())
    return commands


def check(root):
    root = pathlib.Path(root)
    wanted = readme_commands(root / "README.md")
    if len(wanted) != 2:
        return [f"README.md: the quick start should hold two one-line commands, found {len(wanted)}"]
    have = dockerfile_commands(root / "Dockerfile")
    return [f"Dockerfile does not run the README's command: {c}" for c in wanted if c not in have]


def self_test():
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        (root / "README.md").write_text("## Quick start\n\n```\nmake demo\n```\n\n```\nmake test\n```\n\n## Next\n")
        (root / "Dockerfile").write_text('FROM debian:12\nRUN make demo\nCMD ["bash", "-c", "make test"]\n')
        failures = []
        if check(root):
            failures.append(f"the faithful Dockerfile was flagged: {check(root)}")
        (root / "Dockerfile").write_text('FROM debian:12\nRUN make demo -j8\nCMD ["bash", "-c", "make test"]\n')
        if not check(root):
            failures.append("not flagged: a Dockerfile whose command differs from the README's")
    return failures



if __name__ == "__main__":
    sys.exit(check_cli.run(sys.argv, __doc__, check, self_test, ()))
