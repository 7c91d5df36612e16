#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Which failed tests of a CTest run never started because the dynamic loader refused them.

  loader_failures.py JUNIT

Prints the failed tests' names joined by '|' and exits 0 when there is at least one failure and
every failed test's output begins with ld.so's "error while loading shared libraries" (seen once in
CI: "cannot apply additional memory protection after relocation: Cannot allocate memory", the
machine short of memory for a moment, before any of the test's code ran). Exits 1 when there is
no failure or when any failure is of another kind: those stand, and nothing is run again.
"""

import sys
import xml.etree.ElementTree as ET

LOADER = "error while loading shared libraries"


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError):
        return 1
    names = []
    for case in root.iter("testcase"):
        if case.get("status") not in ("fail", "failed") and case.find("failure") is None:
            continue
        lines = (case.findtext("system-out") or "").strip().splitlines()
        if not lines or LOADER not in lines[0]:
            return 1
        names.append(case.get("name", ""))
    if not names:
        return 1
    print("|".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
