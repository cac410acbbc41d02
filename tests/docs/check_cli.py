"""The command line the docs checks share: CHECK ROOT [options], or CHECK --self-test.

run(argv, doc, check, self_test, options) calls check(root, **options found in argv) and prints
each finding on stderr (exit status 1 if any), or runs self_test() and reports its failures the
same way; a bad command line prints the check's doc and exits 2. `options` names the options
that take a value ("--build" -> check(root, build=VALUE)).
"""
import sys


def report(lines):
    """Prints each line on stderr; the exit status: 1 if there were any, else 0."""
    for line in lines:
        print(line, file=sys.stderr)
    return 1 if lines else 0


def run(argv, doc, check, self_test, options=()):
    if argv[1:] == ["--self-test"]:
        return report(self_test())
    values = {}
    args = argv[1:]
    while len(args) >= 3 and args[-2] in options:
        values[args[-2].lstrip("-").replace("-", "_")] = args[-1]
        args = args[:-2]
    if len(args) != 1:
        print(doc, file=sys.stderr)
        return 2
    return report(check(args[0], **values))
