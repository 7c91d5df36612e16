#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Lists the functions longer than a limit (default 80 lines, from the line that opens the body to
the one that closes it) in the project's own sources, tests and data tables left out.

The house style (clang-format, docs/BUILDING.md) puts a function's opening and closing braces alone
at column 0, and namespaces do not indent, so a body is the lines between a `{` and the next `}` at
column 0. Usage: scripts/long_functions.py [--limit N] [--max COUNT]; with --max, exits 1 when more
than COUNT functions are over the limit (#39 asks for at most 10)."""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ["core", "ui", "app"]
# tables of constants, not logic (docs/BUILDING.md): left out by name
DATA = re.compile(r"(_tables?|_table_data|unicode_tables|pre_tokenizer_patterns|well_known_keys)\.cpp$")


def functions(path):
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    start = None
    for number, line in enumerate(lines):
        if line == "{":
            start = number
        elif line.startswith("}") and start is not None and not line.startswith("} //"):
            # the signature: the lines above the brace up to a blank line or a closing one
            head = start - 1
            while head > 0 and lines[head - 1].strip() and not lines[head - 1].startswith(("}", "//", "#")):
                head -= 1
            signature = " ".join(l.strip() for l in lines[head:start])
            yield start + 1, number - start + 1, signature
            start = None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--max", type=int)
    args = parser.parse_args()
    long = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.cpp")):
            if DATA.search(path.name):
                continue
            for line, length, signature in functions(path):
                if length > args.limit:
                    long.append((length, f"{path.relative_to(ROOT)}:{line}", signature))
    for length, where, signature in sorted(long, reverse=True):
        print(f"{length:5d}  {where}  {signature[:100]}")
    print(f"{len(long)} functions over {args.limit} lines")
    if args.max is not None and len(long) > args.max:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
