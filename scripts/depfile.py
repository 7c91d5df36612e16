# SPDX-License-Identifier: GPL-3.0-or-later
"""The dependency file GCC writes beside an object (-MD): the source and the headers it read.
Shared by scripts/tidy_cached.py and scripts/affected_tests.py."""

import os


def read_depfile(obj, cwd):
    """The files the compiler read for obj (paths made absolute against cwd, the folder it ran in),
    or None when obj has no dependency file."""
    try:
        with open(obj + ".d", encoding="utf-8", errors="replace") as f:
            text = f.read().replace("\\\n", " ")
    except OSError:
        return None
    _, _, deps = text.partition(":")
    paths = []
    for token in deps.split():
        if token.endswith(":"):
            break  # the next rule of a multi-rule file (-MP phony targets)
        paths.append(os.path.normpath(os.path.join(cwd, token)))
    return paths
