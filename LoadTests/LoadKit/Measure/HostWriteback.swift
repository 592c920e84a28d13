import SwitchboardJSON

/// How the kernel wrote dirty file pages while a benchmark ran (/proc/sys/vm).
/// PostgreSQL's table growth reaches the disk through it: in 30-s bursts with
/// the defaults, which stall the commits that wait behind them, or as it comes
/// with scripts/lib/common.sh's `smooth_writeback` (docs/operations.md, "The
/// host's writeback"). A section quotes it so that its figures say which.
public struct HostWriteback: Sendable, Equatable {
    /// vm.dirty_background_bytes (0: the ratio applies), vm.dirty_background_ratio (% of memory).
    public var backgroundBytes, backgroundRatio: Int?
    /// vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs.
    public var expireCentiseconds, writebackCentiseconds: Int?

    public static func now() -> HostWriteback {
        func value(_ name: String) -> Int? {
            (try? TextFile.read("/proc/sys/vm/" + name))?.split(whereSeparator: \.isWhitespace).first.flatMap {
                Int($0)
            }
        }
        return HostWriteback(
            backgroundBytes: value("dirty_background_bytes"), backgroundRatio: value("dirty_background_ratio"),
            expireCentiseconds: value("dirty_expire_centisecs"),
            writebackCentiseconds: value("dirty_writeback_centisecs"))
    }

    /// "background writeback from 16 MiB dirty, pages written when 3 s old, checked every 1 s".
    public var description: String {
        let threshold: String
        if let bytes = backgroundBytes, bytes > 0 {
            threshold = bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
        } else if let ratio = backgroundRatio {
            threshold = "\(ratio)% of memory"
        } else {
            return "unknown (no /proc/sys/vm)"
        }
        func seconds(_ centiseconds: Int?) -> String {
            centiseconds.map { PythonFormat.fixed(Double($0) / 100, $0 % 100 == 0 ? 0 : 1) + " s" } ?? "?"
        }
        return "background writeback from \(threshold) dirty, pages written when \(seconds(expireCentiseconds)) old, "
            + "checked every \(seconds(writebackCentiseconds))"
    }

    public var json: JSONValue {
        [
            "dirty_background_bytes": .optional(backgroundBytes), "dirty_background_ratio": .optional(backgroundRatio),
            "dirty_expire_centisecs": .optional(expireCentiseconds),
            "dirty_writeback_centisecs": .optional(writebackCentiseconds),
        ]
    }
}
