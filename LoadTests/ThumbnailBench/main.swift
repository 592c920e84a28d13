// thumbnail-bench: time and memory of Thumbnailer.inspect on image files
// (scripts/bench-thumbnails makes the images and runs one process per file).
//
//   thumbnail-bench [--runs N] [--max-pixels N] [--threads N] FILE...
//
// For each file: the median and fastest wall time of N calls (after one warm-up call),
// and the process's peak resident memory (VmHWM) before the first call and after the
// last, so that one file per process gives that file's own peak. --threads N runs the
// calls on N threads at once (each thread N calls): the memory of concurrent workers.
import Foundation
import SwitchboardThumbnails
import Synchronization

struct Options {
    var runs = 5
    var maxPixels = 50_000_000
    var threads = 1
    var files: [String] = []

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs": runs = Int(rest.popFirst() ?? "") ?? runs
            case "--max-pixels": maxPixels = Int(rest.popFirst() ?? "") ?? maxPixels
            case "--threads": threads = Int(rest.popFirst() ?? "") ?? threads
            default: files.append(argument)
            }
        }
    }
}

/// A line of /proc/self/status, in MiB (VmHWM: the peak resident set; VmRSS: now).
func statusMiB(_ key: String) -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
        let kib = line.split(separator: " ").dropFirst().first.flatMap { Double($0) } ?? 0
        return kib / 1024
    }
    return 0
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
guard !options.files.isEmpty else {
    FileHandle.standardError.write(
        Data("usage: thumbnail-bench [--runs N] [--max-pixels N] [--threads N] FILE...\n".utf8))
    exit(2)
}
print("file\tbytes\timage\tthumbnail\tthumb_bytes\tmedian_ms\tfastest_ms\tpeak_before_mib\tpeak_after_mib\tthreads")
for path in options.files {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("\(path)\tunreadable")
        continue
    }
    let bytes = [UInt8](data)
    let peakBefore = statusMiB("VmHWM")
    let first = Thumbnailer.inspect(bytes, maxPixels: options.maxPixels)
    guard case .success(let result) = first else {
        print("\(path)\t\(bytes.count)\trefused: \(first)")
        continue
    }
    let times = Mutex<[Double]>([])
    let group = DispatchGroup()
    for _ in 0..<options.threads {
        group.enter()
        Thread.detachNewThread {
            for _ in 0..<options.runs {
                let start = ContinuousClock.now
                _ = Thumbnailer.inspect(bytes, maxPixels: options.maxPixels)
                let elapsed = milliseconds(ContinuousClock.now - start)
                times.withLock { $0.append(elapsed) }
            }
            group.leave()
        }
    }
    group.wait()
    let sorted = times.withLock { $0 }.sorted()
    print(
        [
            (path as NSString).lastPathComponent, "\(bytes.count)", "\(result.width)x\(result.height)",
            "\(result.thumbnailWidth)x\(result.thumbnailHeight) \(result.contentType)", "\(result.thumbnail.count)",
            String(format: "%.1f", sorted[sorted.count / 2]), String(format: "%.1f", sorted[0]),
            String(format: "%.0f", peakBefore), String(format: "%.0f", statusMiB("VmHWM")), "\(options.threads)",
        ].joined(separator: "\t"))
}
