/// A metric family the gateway declares: rendered in declaration order, and with its HELP and
/// TYPE lines even while it has no series yet (a labeled family before its first use).
struct FamilyDescriptor: Sendable {
    let name: String
    let help: String
    let type: String
}

/// Puts the registry's output (families in hash order) into a stable order.
///
/// Declared families come first, in declaration order; the series of a counter or gauge family
/// are sorted by their text (labels), while histogram lines keep the registry's bucket order.
/// Families registered on the registry by others follow, sorted by name.
enum Exposition {
    private struct Block {
        var name: String
        var type: String = ""
        var header: [ArraySlice<UInt8>] = []
        var samples: [ArraySlice<UInt8>] = []
    }

    static func order(_ raw: [UInt8], families: [FamilyDescriptor]) -> [UInt8] {
        var blocks: [String: Block] = [:]
        var current: Block?
        for line in raw.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if let (keyword, name, rest) = commentLine(line) {
                if current?.name != name {
                    if let done = current {
                        blocks[done.name] = done
                    }
                    current = Block(name: name)
                }
                if keyword == "TYPE" {
                    current?.type = rest
                }
                current?.header.append(line)
            } else {
                current?.samples.append(line)
            }
        }
        if let done = current {
            blocks[done.name] = done
        }

        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 256)
        for family in families {
            if let block = blocks.removeValue(forKey: family.name) {
                append(block, to: &out)
            } else {
                appendLine("# HELP \(family.name) \(family.help)", to: &out)
                appendLine("# TYPE \(family.name) \(family.type)", to: &out)
            }
        }
        for name in blocks.keys.sorted() {
            append(blocks[name]!, to: &out)
        }
        return out
    }

    private static func append(_ block: Block, to out: inout [UInt8]) {
        for line in block.header {
            out.append(contentsOf: line)
            out.append(UInt8(ascii: "\n"))
        }
        var samples = block.samples
        if block.type == "counter" || block.type == "gauge" {
            samples.sort { $0.lexicographicallyPrecedes($1) }
        }
        for line in samples {
            out.append(contentsOf: line)
            out.append(UInt8(ascii: "\n"))
        }
    }

    private static func appendLine(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
        out.append(UInt8(ascii: "\n"))
    }

    /// Splits `# HELP name text` or `# TYPE name type` into its keyword, name and rest.
    private static func commentLine(_ line: ArraySlice<UInt8>) -> (String, String, String)? {
        guard line.starts(with: "# ".utf8) else { return nil }
        let fields = line.dropFirst(2).split(
            separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count >= 2 else { return nil }
        let keyword = String(decoding: fields[0], as: UTF8.self)
        guard keyword == "HELP" || keyword == "TYPE" else { return nil }
        let rest = fields.count > 2 ? String(decoding: fields[2], as: UTF8.self) : ""
        return (keyword, String(decoding: fields[1], as: UTF8.self), rest)
    }
}
