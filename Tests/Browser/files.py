"""Files for the attachment tests: made here, byte by byte, so that each is exactly what a test needs."""
import struct
import zlib


def png(width=640, height=400):
    """A real PNG (a gradient), so that the gateway's thumbnailer has something to decode."""
    rows = b"".join(b"\x00" + bytes(value for x in range(width) for value in (x * 255 // width, y * 255 // height, 160))
                    for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PDF = (b"%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\n"
       b"trailer <</Root 1 0 R>>\n%%EOF\n")
PAGE = b"<!doctype html><title>Not a picture</title><script>alert(document.cookie)</script>"
