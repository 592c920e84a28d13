import CVips
import Foundation

@testable import SwitchboardThumbnails

/// The committed images of Fixtures/ (made by Fixtures/make-fixtures.sh) and images
/// the tests craft byte by byte.
enum TestImages {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
            fatalError("missing fixture \(name): run Fixtures/make-fixtures.sh")
        }
        return [UInt8](data)
    }

    /// A PNG whose header declares `width` x `height` RGB pixels, followed by a few
    /// bytes of compressed data: a decompression bomb as far as the header goes.
    static func pngBomb(width: UInt32, height: UInt32) -> [UInt8] {
        var ihdr = bigEndian(width) + bigEndian(height)
        ihdr += [8, 2, 0, 0, 0]  // 8 bits, RGB, deflate, no filter variant, not interlaced
        let firstRows: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]  // zlib of one zero byte
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", ihdr) + chunk("IDAT", firstRows) + chunk("IEND", [])
    }

    /// `jpeg` with the size in its frame header (SOF0 or SOF2) replaced.
    static func jpegDeclaring(_ jpeg: [UInt8], width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = jpeg
        var index = 2
        while index + 9 < bytes.count {
            precondition(bytes[index] == 0xFF, "not at a JPEG marker")
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes.replaceSubrange(index + 5..<index + 9, with: bigEndian(height) + bigEndian(width))
                return bytes
            }
            index += 2 + length
        }
        preconditionFailure("no frame header")
    }

    /// `gif` with its logical screen and its first frame's descriptor declaring `width` x `height`.
    static func gifDeclaring(_ gif: [UInt8], width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = gif
        let size = littleEndian(width) + littleEndian(height)
        bytes.replaceSubrange(6..<10, with: size)
        let descriptor = gifFirstImage(gif)
        bytes.replaceSubrange(descriptor + 5..<descriptor + 9, with: size)
        return bytes
    }

    /// Where the first frame's data ends in `gif` (what follows is other frames).
    static func gifFirstFrameEnd(_ gif: [UInt8]) -> Int {
        let descriptor = gifFirstImage(gif)
        let flags = gif[descriptor + 9]
        var index = descriptor + 10 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0) + 1  // + LZW code size
        while gif[index] != 0 { index += Int(gif[index]) + 1 }
        return index + 1
    }

    /// The offset of the first image descriptor, past the global colour table and extensions.
    private static func gifFirstImage(_ gif: [UInt8]) -> Int {
        let flags = gif[10]
        var index = 13 + (flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0)
        while gif[index] == 0x21 {
            index += 2
            while gif[index] != 0 { index += Int(gif[index]) + 1 }
            index += 1
        }
        precondition(gif[index] == 0x2C, "no image descriptor")
        return index
    }

    /// A still lossy WebP with its canvas (`VP8X`, when there is one) and its frame
    /// (`VP8 `) declaring `width` x `height` (at most 16383, the frame's limit).
    static func webpDeclaring(_ webp: [UInt8], width: UInt16, height: UInt16) -> [UInt8] {
        var bytes = webp
        var index = 12
        var framePatched = false
        while index + 8 <= bytes.count {
            let type = String(decoding: bytes[index..<index + 4], as: UTF8.self)
            let size = Int(bytes[index + 4]) | Int(bytes[index + 5]) << 8 | Int(bytes[index + 6]) << 16
            if type == "VP8X" {
                let canvas = littleEndian(UInt32(width) - 1).prefix(3) + littleEndian(UInt32(height) - 1).prefix(3)
                bytes.replaceSubrange(index + 12..<index + 18, with: canvas)
            } else if type == "VP8 " {
                // frame tag (3 bytes), start code (3), then 14-bit width and height
                let dims = littleEndian(width & 0x3FFF) + littleEndian(height & 0x3FFF)
                bytes.replaceSubrange(index + 14..<index + 18, with: dims)
                framePatched = true
            }
            index += 8 + size + (size & 1)
        }
        precondition(framePatched, "not a lossy WebP")
        return bytes
    }

    /// The metadata fields libvips finds when it opens `bytes` (its header only).
    static func vipsFields(_ bytes: [UInt8]) -> [String]? {
        precondition(VipsRuntime.started == nil)
        return bytes.withUnsafeBytes { buffer -> [String]? in
            guard let opened = cvips_image_new_from_buffer(buffer.baseAddress!, buffer.count) else {
                _ = VipsRuntime.takeError()
                return nil
            }
            let image = VipsImageRef(pointer: opened)
            guard let names = vips_image_get_fields(image.pointer) else { return [] }
            defer { g_strfreev(names) }
            var fields: [String] = []
            var index = 0
            while let name = names[index] {
                fields.append(String(cString: name))
                index += 1
            }
            return fields
        }
    }

    /// The number of bands of `bytes` and whether libvips reads them as sRGB (its header only).
    static func vipsBands(_ bytes: [UInt8]) -> (bands: Int, isSRGB: Bool)? {
        precondition(VipsRuntime.started == nil)
        return bytes.withUnsafeBytes { buffer in
            guard let opened = cvips_image_new_from_buffer(buffer.baseAddress!, buffer.count) else {
                _ = VipsRuntime.takeError()
                return nil
            }
            let image = VipsImageRef(pointer: opened)
            return (
                Int(vips_image_get_bands(image.pointer)),
                vips_image_get_interpretation(image.pointer) == VIPS_INTERPRETATION_sRGB
            )
        }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
}

extension Result {
    var success: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
