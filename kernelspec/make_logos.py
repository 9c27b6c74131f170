#!/usr/bin/env python3
"""Draws the kernel's logos (logo-32x32.png, logo-64x64.png) with no dependencies.

The picture is a cuprite crystal: an octahedron seen from the front, four
facets in the mineral's deep reds, on a transparent background. Run it from
anywhere; it writes next to itself.
"""
import os
import struct
import zlib

# Facet colours (RGB): top-left, top-right, bottom-left, bottom-right.
FACETS = [(0xB0, 0x26, 0x1E), (0xE0, 0x4A, 0x35), (0x6E, 0x12, 0x10), (0x93, 0x1C, 0x17)]
EDGE = (0x3A, 0x08, 0x08)
HIGHLIGHT = (0xF6, 0xA0, 0x84)


def shade(x, y):
    """Colour (r, g, b, a) of the point (x, y) in [-1, 1]^2, or None outside."""
    d = abs(x) + abs(y)
    if d > 0.92:
        return None
    if d > 0.84:
        return EDGE + (255,)
    # a thin highlight along the upper-right edge
    if x > 0 and y < 0 and d > 0.74 and x > 0.1 and -y > 0.1:
        return HIGHLIGHT + (255,)
    # inner edges between facets
    if abs(x) < 0.03 or abs(y) < 0.03:
        return EDGE + (255,)
    i = (0 if x < 0 else 1) + (0 if y < 0 else 2)
    return FACETS[i] + (255,)


def render(size, ss=6):
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter type 0
        for px in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    x = ((px + (sx + 0.5) / ss) / size) * 2 - 1
                    y = ((py + (sy + 0.5) / ss) / size) * 2 - 1
                    c = shade(x, y)
                    if c:
                        for k in range(3):
                            acc[k] += c[k] * c[3]
                        acc[3] += c[3]
            n = ss * ss
            a = acc[3] / n
            if acc[3]:
                rgb = [round(acc[k] / acc[3]) for k in range(3)]
            else:
                rgb = [0, 0, 0]
            row += bytes(rgb + [round(a)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size, pixels):
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # RGBA, 8 bits
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(pixels, 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for size in (32, 64):
        path = os.path.join(here, f"logo-{size}x{size}.png")
        with open(path, "wb") as f:
            f.write(png(size, render(size)))
        print("wrote", path)
