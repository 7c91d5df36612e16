#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes expected.json: every *.jinja here rendered by Jinja2 (3.1) the way HuggingFace
transformers' apply_chat_template renders chat templates (ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, the loopcontrols extension, raise_exception, a tojson that keeps
non-ASCII and key order, strftime_now), for two conversations. Run with a Python that has jinja2:
python3 make_expected.py (Jinja2 3.1.6 made the committed file)"""
import glob
import json
import os

import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

SYSTEM = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is the capital of France?"},
    {"role": "assistant", "content": "The capital of France is Paris."},
    {"role": "user", "content": "And of Italy?"},
]
CASES = {
    "with_system": dict(messages=SYSTEM, bos_token="<s>", eos_token="</s>", add_generation_prompt=True),
    "no_system": dict(messages=SYSTEM[1:], bos_token="<s>", eos_token="</s>", add_generation_prompt=False),
}


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    import datetime
    return datetime.datetime(2024, 7, 26).strftime(fmt)


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = strftime_now

out = {}
here = os.path.dirname(os.path.abspath(__file__))
for path in sorted(glob.glob(os.path.join(here, "*.jinja"))):
    name = os.path.basename(path)
    source = open(path, encoding="utf-8").read()
    out[name] = {}
    for case, variables in CASES.items():
        try:
            out[name][case] = {"text": env.from_string(source).render(**variables)}
        except Exception as e:  # noqa: BLE001 - the message is the expected result
            out[name][case] = {"error": str(e)}
json.dump(out, open(os.path.join(here, "expected.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=1)
print(len(out), "templates")
