import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `downstream-benchmark store [--count 100000] [--directory DIR] [--runs 3]`: the cost of the
/// store, with its journal, next to a store that keeps every record in a file of its own (as
/// versions before the journal did), measured in the same run; and the same store used by a
/// program written as a newcomer writes it (``StoreNewcomerProgram``).
///
/// Each run, for each program (in turns: which goes first rotates), one child process enqueues
/// `count` new downloads and reports the time and its resident memory's growth per download;
/// then a new child process restores them all, and reports the time, its peak resident memory
/// (VmHWM) and its resident memory's growth per download. The benchmark's own program enqueues
/// its downloads paused, so that no request goes out, with the app's requests made before the
/// clock starts, and times the manager's creation; the newcomer's queues them (the first few
/// start) and times the creation and the reading of every download. The store goes in a new
/// directory under DIR (default: the temporary directory). Medians of the runs, and the ratios of
/// the journal's figures to the baseline's.
struct StoreBenchmark {
    static let childCommand = "store-child"

    let count: Int
    let directory: URL
    let runs: Int

    init(arguments: [String]) {
        let options = Options(arguments)
        count = max(1, options.int("count", default: 100_000))
        runs = max(1, options.int("runs", default: 3))
        directory =
            options.string("directory").map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
    }

    /// What one child measured.
    struct Figures {
        var seconds: Double
        var residentPerDownload: Int
        var peakKiB: Int
    }

    func run() async -> Int32 {
        do {
            return try measure()
        } catch {
            print("store benchmark failed: \(error)")
            return 1
        }
    }

    private func measure() throws -> Int32 {
        let root = directory.appendingPathComponent("downstream-store-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        print("Downstream store benchmark: \(count) downloads, \(runs) runs, stores in \(root.path)")
        let kinds = ["journal", "newcomer", "files"]
        var enqueues: [String: [Figures]] = [:]
        var restores: [String: [Figures]] = [:]
        for run in 0..<runs {
            for turn in 0..<kinds.count {
                let kind = kinds[(run + turn) % kinds.count]
                let store = root.appendingPathComponent("\(kind)-\(run)")
                let enqueue = try child("enqueue", kind: kind, store: store)
                let restore = try child("restore", kind: kind, store: store)
                try? FileManager.default.removeItem(at: store)
                enqueues[kind, default: []].append(enqueue)
                restores[kind, default: []].append(restore)
                print(
                    "run \(run + 1) \(kind): enqueue \(format(enqueue.seconds)) s, \(enqueue.residentPerDownload) B each;"
                        + " restore \(format(restore.seconds)) s, \(restore.residentPerDownload) B each,"
                        + " peak \(restore.peakKiB / 1024) MiB")
            }
        }
        let journalEnqueue = median(enqueues["journal"]!)
        let journalRestore = median(restores["journal"]!)
        let newcomerEnqueue = median(enqueues["newcomer"]!)
        let newcomerRestore = median(restores["newcomer"]!)
        let filesEnqueue = median(enqueues["files"]!)
        let filesRestore = median(restores["files"]!)
        print("medians                       journal     newcomer    a file per record   journal / files")
        row("enqueue (s)", journalEnqueue.seconds, newcomerEnqueue.seconds, filesEnqueue.seconds)
        row(
            "bytes per queued download", Double(journalEnqueue.residentPerDownload),
            Double(newcomerEnqueue.residentPerDownload), Double(filesEnqueue.residentPerDownload))
        row("restore (s)", journalRestore.seconds, newcomerRestore.seconds, filesRestore.seconds)
        row(
            "bytes per restored download", Double(journalRestore.residentPerDownload),
            Double(newcomerRestore.residentPerDownload), Double(filesRestore.residentPerDownload))
        row(
            "restore peak (MiB)", Double(journalRestore.peakKiB) / 1024, Double(newcomerRestore.peakKiB) / 1024,
            Double(filesRestore.peakKiB) / 1024)
        let met = [("benchmark's", journalEnqueue, journalRestore), ("newcomer's", newcomerEnqueue, newcomerRestore)]
            .map { name, enqueue, restore in
                let met = meetsTargets(enqueue: enqueue, restore: restore)
                print(
                    "targets for 100,000 (scaled to \(count)), the \(name) program: enqueue <= 1 s, restore <= 1 s, "
                        + "<= 1 KiB per queued download, restore peak <= 150 MiB: \(met ? "met" : "MISSED")")
                return met
            }
        return met.allSatisfy { $0 } ? 0 : 3
    }

    private func meetsTargets(enqueue: Figures, restore: Figures) -> Bool {
        let scale = Double(count) / 100_000
        return enqueue.seconds <= 1 * scale && restore.seconds <= 1 * scale && enqueue.residentPerDownload <= 1024
            && Double(restore.peakKiB) / 1024 <= 150 * scale
    }

    private func row(_ name: String, _ journal: Double, _ newcomer: Double, _ files: Double) {
        let padded = name.padding(toLength: 30, withPad: " ", startingAt: 0)
        print(
            padded
                + String(
                    format: "%-12.3f%-12.3f%-20.3f%.2fx", journal, newcomer, files, files > 0 ? journal / files : 0))
    }

    /// Runs one phase in a child process and reads its figures.
    private func child(_ phase: String, kind: String, store: URL) throws -> Figures {
        let fields = try ChildRun.figures(
            of: [Self.childCommand, phase, "--kind", kind, "--count", String(count), "--store", store.path],
            what: "the \(phase) (\(kind))")
        guard let seconds = fields["seconds"].flatMap(Double.init),
            let resident = fields["resident-per-download"].flatMap(Int.init),
            let peak = fields["peak-kib"].flatMap(Int.init)
        else { throw BenchmarkError("cannot read the \(phase) child's figures: \(fields["output"] ?? "")") }
        return Figures(seconds: seconds, residentPerDownload: resident, peakKiB: peak)
    }

    /// The child: `store-child enqueue|restore --kind journal|files --count N --store DIR`.
    static func childMain(_ arguments: [String]) async -> Int32 {
        let options = Options(Array(arguments.dropFirst()))
        guard let phase = arguments.first, let kind = options.string("kind"), let store = options.string("store")
        else { return 2 }
        let count = options.int("count", default: 100_000)
        let configuration = DownloadManager.Configuration(identifier: "store-benchmark-\(getpid())") {
            $0.storage.directory = URL(fileURLWithPath: store, isDirectory: true)
            $0.storage.keepsEveryRecordInAFile = kind == "files"
        }
        let clock = ContinuousClock()
        let files = URL(fileURLWithPath: store, isDirectory: true).deletingLastPathComponent()
            .appendingPathComponent("files", isDirectory: true)
        do {
            if kind == "newcomer" {
                print(
                    phase == "enqueue"
                        ? try await StoreNewcomerProgram.enqueue(
                            count: count, configuration: configuration, files: files)
                        : try await StoreNewcomerProgram.restore(count: count, configuration: configuration))
                return 0
            }
            switch phase {
            case "enqueue":
                let requests = (0..<count).map { index in
                    DownloadRequest(
                        URLRequest(url: URL(string: "http://127.0.0.1:9/file-\(index).bin")!), to: .directory(files),
                        metadata: ["index": String(index)])
                }
                let manager = try DownloadManager(configuration: configuration)
                var downloads: [Download] = []
                downloads.reserveCapacity(count)
                let before = ChildRun.residentBytes()
                let start = clock.now
                for request in requests {
                    downloads.append(await manager.download(request, startsPaused: true))
                }
                let seconds = ChildRun.seconds(start.duration(to: clock.now))
                let perDownload = (ChildRun.residentBytes() - before) / count
                print("seconds=\(seconds) resident-per-download=\(perDownload) peak-kib=\(ChildRun.peakResidentKiB())")
            default:
                let before = ChildRun.residentBytes()
                let start = clock.now
                let manager = try DownloadManager(configuration: configuration)
                let seconds = ChildRun.seconds(start.duration(to: clock.now))
                let perDownload = (ChildRun.residentBytes() - before) / count
                let restored = await manager.downloads.count
                guard restored == count else {
                    print("restored \(restored) of \(count) downloads")
                    return 1
                }
                print("seconds=\(seconds) resident-per-download=\(perDownload) peak-kib=\(ChildRun.peakResidentKiB())")
            }
        } catch {
            print("failed: \(error)")
            return 1
        }
        return 0
    }

    private func median(_ figures: [Figures]) -> Figures {
        let middle = figures.count / 2
        return Figures(
            seconds: figures.map(\.seconds).sorted()[middle],
            residentPerDownload: figures.map(\.residentPerDownload).sorted()[middle],
            peakKiB: figures.map(\.peakKiB).sorted()[middle])
    }

    private func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}
