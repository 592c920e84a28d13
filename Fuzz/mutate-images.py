#!/usr/bin/env python3
"""Writes damaged variants of images for a run of FuzzThumbnail over fixed inputs.

    python3 Fuzz/mutate-images.py OUT_DIR COUNT IMAGE...

Each variant is one of: a cut (truncation), random bit flips, a run of random bytes
written over the middle, a byte run deleted or duplicated, a PNG chunk's length or
a JPEG segment's length made wrong, or the declared size patched (PNG IHDR, GIF
screen, JPEG SOF, WebP VP8X) to huge, zero or off-by-one values. Deterministic
(seed 33), so a run can be repeated.
"""
import os
import random
import struct
import sys


def cut(data, rng):
    return data[: rng.randrange(1, max(2, len(data)))]


def flips(data, rng):
    out = bytearray(data)
    for _ in range(rng.randrange(1, 9)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def overwrite(data, rng):
    out = bytearray(data)
    start = rng.randrange(len(out))
    for i in range(start, min(len(out), start + rng.randrange(1, 64))):
        out[i] = rng.randrange(256)
    return bytes(out)


def splice(data, rng):
    start = rng.randrange(len(data))
    length = rng.randrange(1, 256)
    if rng.random() < 0.5:
        return data[:start] + data[start + length:]
    return data[:start] + data[start:start + length] * rng.randrange(2, 6) + data[start:]


def bad_length(data, rng):
    out = bytearray(data)
    if data.startswith(b"\x89PNG"):
        offsets, i = [], 8
        while i + 8 <= len(data):
            offsets.append(i)
            i += 12 + struct.unpack(">I", data[i:i + 4])[0]
        i = rng.choice(offsets)
        out[i:i + 4] = struct.pack(">I", rng.choice([0, 1, 0x7FFFFFFF, 0xFFFFFFFF, rng.randrange(1 << 16)]))
    elif data.startswith(b"\xff\xd8"):
        markers = [i for i in range(2, len(data) - 3) if data[i] == 0xFF and 0xC0 <= data[i + 1] <= 0xFE]
        if markers:
            i = rng.choice(markers)
            out[i + 2:i + 4] = struct.pack(">H", rng.choice([0, 1, 2, 0xFFFF, rng.randrange(1 << 16)]))
    elif data.startswith(b"RIFF"):
        i = rng.choice([4, 16])
        out[i:i + 4] = struct.pack("<I", rng.choice([0, 1, 0xFFFFFFFF, rng.randrange(1 << 20)]))
    else:
        return overwrite(data, rng)
    return bytes(out)


def dimensions(data, rng):
    out = bytearray(data)
    pick = lambda bits: rng.choice([0, 1, (1 << bits) - 1, 2000, 2001, 1 << (bits - 1), rng.randrange(1 << bits)])
    if data.startswith(b"\x89PNG") and len(data) > 24:
        out[16:24] = struct.pack(">II", pick(31), pick(31))
    elif data.startswith(b"GIF") and len(data) > 10:
        out[6:10] = struct.pack("<HH", pick(16), pick(16))
    elif data.startswith(b"\xff\xd8"):
        sofs = [i for i in range(2, len(data) - 9) if data[i] == 0xFF and data[i + 1] in (0xC0, 0xC1, 0xC2)]
        if not sofs:
            return flips(data, rng)
        i = rng.choice(sofs)
        out[i + 5:i + 9] = struct.pack(">HH", pick(16), pick(16))
    elif data[12:16] == b"VP8X" and len(data) > 30:
        out[24:30] = struct.pack("<I", pick(24))[:3] + struct.pack("<I", pick(24))[:3]
    else:
        return flips(data, rng)
    return bytes(out)


def main():
    out_dir, count, images = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rng = random.Random(33)
    sources = [(os.path.basename(p), open(p, "rb").read()) for p in images]
    sources = [(n, d) for n, d in sources if len(d) > 16]
    kinds = [cut, flips, overwrite, splice, bad_length, dimensions]
    os.makedirs(out_dir, exist_ok=True)
    for n in range(count):
        name, data = rng.choice(sources)
        kind = kinds[n % len(kinds)]
        with open(os.path.join(out_dir, f"{n:03d}-{kind.__name__}-{name}"), "wb") as f:
            f.write(kind(data, rng))
    print(f"wrote {count} variants of {len(sources)} images to {out_dir}")


if __name__ == "__main__":
    main()
