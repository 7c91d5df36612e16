#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the synthetic-*.gguf inputs of the dump goldens: one small file in three encodings
(little-endian v3, big-endian v3 with the 'GGUF' magic and a byte-swapped version, little-endian
v2), each with scalars of several types, a float array with -0.0 and inf, a string array, an array of
arrays, general.alignment = 64, and two tensors (F32 [64, 2], Q8_0 [256]) with zeroed data."""
import struct


def build(endian, version=3):
    e = '<' if endian == 'little' else '>'
    out = bytearray()

    def u32(v): out.extend(struct.pack(e + 'I', v))
    def u64(v): out.extend(struct.pack(e + 'Q', v))

    def s(t):
        b = t.encode()
        u64(len(b))
        out.extend(b)

    kvs = [
        ('general.architecture', 8, 'llama'),
        ('general.alignment', 4, 64),
        ('t.f32', 6, 0.1), ('t.i16', 3, -5), ('t.u64', 10, 2**64 - 1), ('t.f64', 12, -1e-300), ('t.bool', 7, 1),
        ('t.arr.f32', 9, (6, [1.5, -0.0, float('inf')])),
        ('t.arr.str', 9, (8, ['a', 'b\u00e9', ''])),
        ('t.arr.nested', 9, (9, [(5, [1, 2]), (8, ['x'])])),
    ]
    fmt = {0: 'B', 1: 'b', 2: 'H', 3: 'h', 4: 'I', 5: 'i', 6: 'f', 7: 'B', 10: 'Q', 11: 'q', 12: 'd'}

    def val(t, v):
        if t == 8:
            s(v)
        elif t == 9:
            et, items = v
            u32(et)
            u64(len(items))
            for it in items:
                val(et, it)
        else:
            out.extend(struct.pack(e + fmt[t], v))

    out.extend(b'GGUF')
    u32(version)
    u64(2)
    u64(len(kvs))
    for k, t, v in kvs:
        s(k)
        u32(t)
        val(t, v)
    s('a.weight'); u32(2); u64(64); u64(2); u32(0); u64(0)
    s('b.weight'); u32(1); u64(256); u32(8); u64(512)
    while len(out) % 64:
        out.append(0)
    out.extend(b'\0' * (512 + 8 * 34))
    return bytes(out)


if __name__ == '__main__':
    open('synthetic-le.gguf', 'wb').write(build('little'))
    open('synthetic-be.gguf', 'wb').write(build('big'))
    open('synthetic-v2.gguf', 'wb').write(build('little', version=2))
