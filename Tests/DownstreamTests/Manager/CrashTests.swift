@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A process killed with SIGKILL at random moments, again and again, loses nothing: each launch
/// finds the downloads of the last one, continues every file from the bytes on disk, and the
/// files end byte-identical to the server's.
@Suite(.timeLimit(.minutes(3)))
struct CrashTests {
    static let fileCount = 3
    static let fileSize: Int64 = 4_000_000
    static let kills = 12

    @Test func aProcessKilledAtRandomMomentsLosesNothing() async throws {
        let server = try TestServer()
        defer { server.shutdown() }
        let bodies = (0..<Self.fileCount).map { Body.pattern(count: Self.fileSize, seed: 200 + UInt64($0)) }
        let paths = (0..<Self.fileCount).map { "/crash/file\($0).bin" }
        for (path, body) in zip(paths, bodies) {
            Self.serve(body, at: path, bytesPerSecond: 4_000_000, on: server)
        }
        let (root, files, store) = try Self.makeDirectories("crash")
        defer { try? FileManager.default.removeItem(at: root) }
        let client = try ChildProcess.executable("DownstreamTestClient")
        // Checkpoints every 64 KiB or 50 ms: record writes all the time.
        let arguments =
            ["many", "--store", store.path, "--directory", files.path, "--checkpoint-bytes", "65536"]
            + paths.map { server.url($0).absoluteString }

        // Kill at random points of the transfer (by bytes the server sent), all before the end;
        // every third run instead stops inside a random record write and is killed there.
        let total = Self.fileSize * Int64(Self.fileCount)
        let thresholds = (0..<Self.kills).map { _ in Int64.random(in: total / 20...(total * 9 / 10)) }.sorted()
        var kills = 0
        var killsDuringRecordWrites = 0
        for (index, threshold) in thresholds.enumerated() {
            let expectedStarts = Self.expectedStarts(paths: paths, files: files, store: store)
            let logged = server.requests().count
            let ending: SpawnedProcess.Ending
            if index % 3 == 2 {
                // A run writes at least three records (the download's state, the response, the
                // end) while a file is unfinished: stop in one of them.
                let stallAt = String(Int.random(in: 1...3))
                let run = try ChildProcess.Running(
                    client, arguments + ["--stall-in-record-write", stallAt], capturingOutput: true)
                let output = await run.readOutput(until: "stalled in record write")
                #expect(output.contains("stalled in record write"), "the client said: \(output)")
                run.kill()
                ending = await run.ending()
                #expect(Self.hasTornRecord(store), "the kill came in the middle of a record write")
                killsDuringRecordWrites += 1
            } else {
                let run = try ChildProcess.Running(client, arguments)
                // Killed by the server's thread the moment it has sent that much: on time however
                // loaded the machine is.
                server.whenBodyBytesReach(threshold) { run.kill() }
                ending = await run.ending()
            }
            #expect(ending == .signalled(SIGKILL))
            kills += 1

            // Every launch asked each unfinished file for exactly the bytes missing on disk (and the
            // overlap before them).
            let launched = server.requests().dropFirst(logged)
            for (path, start) in expectedStarts {
                guard let first = launched.first(where: { $0.path == path }) else { continue }
                // (A request without `Range` asks from the first byte.)
                #expect((first.rangeStart ?? 0) == start, "\(path) after \(kills - 1) kills")
            }
        }

        let expectedStarts = Self.expectedStarts(paths: paths, files: files, store: store)
        let logged = server.requests().count
        let (status, output) = try await ChildProcess.run(client, arguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains("ok"))
        for (path, start) in expectedStarts {
            let first = server.requests().dropFirst(logged).first { $0.path == path }
            #expect(first?.rangeStart == start)
        }

        #expect(kills >= 10)
        #expect(killsDuringRecordWrites >= 3)
        for (path, body) in zip(paths, bodies) {
            try body.expectMatches(files.appendingPathComponent(URL(fileURLWithPath: path).lastPathComponent))
        }
        // Nothing left over: no partial files, no records, no temporary files; only the lock.
        let fileNames = try FileManager.default.contentsOfDirectory(atPath: files.path).sorted()
        #expect(fileNames == ["file0.bin", "file1.bin", "file2.bin"])
        #expect(Self.isEmptyStore(store))
    }

    /// Whether `store` holds nothing but its lock and a journal that holds no record.
    static func isEmptyStore(_ store: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []
        return Set(names).isSubset(of: [".lock", StoreJournal.fileName]) && DownloadStore.records(in: store).isEmpty
    }

    /// Serves `body` at `path`, paced, in small writes, with a strong ETag.
    static func serve(_ body: Body, at path: String, bytesPerSecond: Int, on server: TestServer) {
        var route = Route(body: body)
        route.etag = "\"\(path)\""
        route.bytesPerSecond = bytesPerSecond
        route.writeSize = 16_384
        server.setRoute(path, route)
    }

    /// A temporary directory for a crash test, with `files` (made) and `store` inside.
    static func makeDirectories(_ name: String) throws -> (root: URL, files: URL, store: URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        let files = root.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        return (root, files, root.appendingPathComponent("store"))
    }

    /// Where each unfinished file's next request must start, judging from the disk alone.
    ///
    /// Also expects what the client promises whenever it dies: every byte its record says is
    /// durable is in the partial file. (How much the server had sent beyond that is not the
    /// client's to bound: the sockets' buffers, which the kernel sizes as it likes, hold it.)
    /// Records name files in the home directory relative to it: `home` is the one to read them with.
    static func expectedStarts(
        paths: [String], files: URL, store: URL, home: String? = HomeDirectory.current
    ) -> [String: Int64] {
        let records = DownloadStore.records(in: store, home: home)
        var starts: [String: Int64] = [:]
        for path in paths {
            let name = URL(fileURLWithPath: path).lastPathComponent
            let destination = files.appendingPathComponent(name)
            guard !FileManager.default.fileExists(atPath: destination.path) else { continue }
            let partial = destination.appendingPathExtension("partial")
            let record = records.first { $0.partialPath == partial.path }
            var start: Int64 = 0
            if let record, record.resume.isResumable, record.intent != .cancelled,
                let length = fileLength(partial), length <= record.resume.expectedLength ?? .max
            {
                // Every continuation asks for the default overlap again, to compare it.
                start = length - min(length, Int64(DownloadManager.Configuration.Resumption().overlapLength))
                #expect(
                    length >= record.resume.durableLength,
                    "\(path): the record says \(record.resume.durableLength) bytes are durable, the partial has \(length)"
                )
            }
            starts[path] = start
        }
        return starts
    }

    static func recordFiles(_ store: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []
        return names.filter { $0.hasSuffix(".\(DownloadStore.recordExtension)") }.map {
            store.appendingPathComponent($0)
        }
    }

    /// Whether a record file in `store` has a slot that a write left half done, or the journal
    /// ends with a frame cut short.
    static func hasTornRecord(_ store: URL) -> Bool {
        let journal = store.appendingPathComponent(StoreJournal.fileName).path
        if let length = POSIXFile.length(atPath: journal),
            case .whole(let end)? = try? JournalFrames.scan(path: journal, length: length, { _ in }), end < length
        {
            return true
        }
        return recordFiles(store).contains { file in
            guard let data = try? Data(contentsOf: file), case .record(_, _, let torn) = RecordSlots.read(data)
            else { return false }
            return torn
        }
    }
}
