import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A yardstick for the files benchmark, not a way to download: many small files through the
/// libcurl transport with none of Downstream's download model (no `Download`, state machine,
/// events, progress, scheduler, records as JSON, destination checks). What it costs against curl
/// is the floor under Downstream's own figure: the part of a small file's cost that the transport
/// and the file discipline take, whatever the model above them does. It uses the library's own
/// transport and file functions (their `package` declarations): the floor is their cost.
enum SmallFileFloor {
    /// How much of Downstream's file discipline a file gets.
    enum Discipline: String, Sendable, CaseIterable {
        /// The body is written to its file at the end, as curl does: the transport's own cost.
        case transport
        /// What Downstream guarantees, by hand: a frame of the store's size before the request,
        /// a partial file made exclusively at the response, a frame saying all bytes are there,
        /// then, on a file-work thread, the server's time, the usual mode, a rename that does not
        /// replace, a removal frame; and each end goes through one actor that starts the next file.
        case guarantees
    }

    /// Whether the floor can be measured here: libcurl was loaded.
    static var isAvailable: Bool {
        CurlTransport.isAvailable
    }

    /// Why a run failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Downloads `count` files from `url?i=k` into `directory` as `k.bin`, `limit` at once.
    /// - Returns: the heap allocations made from the first file's start to the last one's end.
    static func run(
        from url: URL, count: Int, limit: Int, into directory: URL, discipline: Discipline
    ) async throws -> Int64 {
        let settings = CurlTransport.Settings(
            requestTimeout: .seconds(60), maximumConnectionsPerHost: limit, additionalHeaders: [:])
        guard let transport = CurlTransport(name: "floor", settings: settings) else {
            throw Failure(description: "libcurl cannot be used here")
        }
        let failure: (any Error)?
        var allocations: Int64 = 0
        do {
            let journal = try Journal(path: directory.path + "/.floor-journal")
            defer { journal.close() }
            let run = Run(
                transport: transport, url: url, count: count, directory: directory.path, discipline: discipline,
                journal: journal)
            let coordinator = discipline == .guarantees ? Coordinator(run: run) : nil
            run.coordinator = coordinator
            allocations = AllocationCount.now
            failure = await run.start(limit)
            allocations = AllocationCount.now - allocations
        } catch {
            failure = error
        }
        await transport.invalidate()
        if let failure { throw failure }
        return allocations
    }

    /// The journal's frames: bytes of the store's frame sizes, appended.
    final class Journal: Sendable {
        /// The sizes of the store's frames for the benchmark's requests: the record (queued, and
        /// with every byte there) and the removal.
        static let recordFrameLength = 920
        static let removalFrameLength = 28
        private let descriptor: Int32
        private let length = Locked<Int64>(0)

        init(path: String) throws {
            do {
                descriptor = try POSIXFile.openForWriting(atPath: path)
            } catch {
                throw Failure(description: "cannot open the journal: \(error)")
            }
        }

        func append(_ count: Int) {
            let offset = length.withLock { length in
                defer { length += Int64(count) }
                return length
            }
            let frame = [UInt8](repeating: 0x2A, count: count)
            _ = frame.withUnsafeBytes { POSIXFile.write(descriptor, $0, at: offset) }
        }

        func close() {
            POSIXFile.close(descriptor)
        }
    }

    /// The files to download and the files still running.
    final class Run: @unchecked Sendable {
        // Safe: `state` is locked; `coordinator` is set before the first file starts.
        let transport: CurlTransport
        let url: URL
        let count: Int
        let directory: String
        let discipline: Discipline
        let journal: Journal
        var coordinator: Coordinator?

        private struct State {
            var next = 0
            var ended = 0
            var failure: Failure?
            var done: CheckedContinuation<Failure?, Never>?
        }

        private let state = Locked(State())

        init(
            transport: CurlTransport, url: URL, count: Int, directory: String, discipline: Discipline,
            journal: Journal
        ) {
            self.transport = transport
            self.url = url
            self.count = count
            self.directory = directory
            self.discipline = discipline
            self.journal = journal
        }

        /// Starts `limit` files and returns once every file ended: nil, or the first failure.
        func start(_ limit: Int) async -> Failure? {
            guard count > 0 else { return nil }
            return await withCheckedContinuation { continuation in
                state.withLock { $0.done = continuation }
                for _ in 0..<limit {
                    startNext()
                }
            }
        }

        /// Starts the next file, if one is left.
        func startNext() {
            let index = state.withLock { state -> Int? in
                guard state.next < count else { return nil }
                defer { state.next += 1 }
                return state.next
            }
            guard let index else { return }
            if discipline == .guarantees {
                journal.append(Journal.recordFrameLength)
            }
            let file = FileReceiver(run: self, path: "\(directory)/\(index).bin")
            _ = transport.start(URLRequest(url: URL(string: "\(url.absoluteString)?i=\(index)")!), receiver: file)
        }

        /// A file ended: the next starts (through the coordinator, with the guarantees).
        func ended(_ failure: Failure?) {
            guard let coordinator else { return finish(failure) }
            Task { await coordinator.ended(failure) }
        }

        func finish(_ failure: Failure?) {
            startNext()
            let done = state.withLock { state -> CheckedContinuation<Failure?, Never>? in
                state.failure = state.failure ?? failure
                state.ended += 1
                guard state.ended == count else { return nil }
                defer { state.done = nil }
                return state.done
            }
            done?.resume(returning: state.withLock { $0.failure })
        }
    }

    /// The one actor a file's end goes through, as a download's end reaches its manager.
    actor Coordinator {
        let run: Run

        init(run: Run) {
            self.run = run
        }

        func ended(_ failure: Failure?) {
            run.finish(failure)
        }
    }

    /// One file's request: its body is kept in memory (small files) and written at the end.
    final class FileReceiver: TransportReceiver, @unchecked Sendable {
        // Safe: the transport's events come one at a time.
        let run: Run
        let path: String
        private var body: [UInt8] = []
        private var partial: Int32 = -1
        private var modified: Date?
        private var failure: Failure?

        init(run: Run, path: String) {
            self.run = run
            self.path = path
        }

        func willRedirect(
            _ response: ServerResponse, to proposed: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void
        ) {
            answer(nil)
        }

        func didReceive(_ response: ServerResponse) {
            guard response.statusCode == 200 else {
                failure = Failure(description: "\(path): status \(response.statusCode)")
                return
            }
            if let length = response.value(forHTTPHeaderField: "Content-Length").flatMap(Int.init) {
                body.reserveCapacity(length)
            }
            guard run.discipline == .guarantees else { return }
            modified = response.value(forHTTPHeaderField: "Last-Modified").flatMap(HTTPDate.parse)
            do {
                partial = try POSIXFile.openForWriting(atPath: path + ".partial", exclusive: true)
            } catch {
                failure = Failure(description: "\(error)")
            }
        }

        func didReceive(_ bytes: UnsafeRawBufferPointer, of task: any TransportTask) -> BodyReception {
            body.append(contentsOf: bytes)
            return .taken
        }

        func didComplete(_ transportFailure: TransportFailure?) {
            if let transportFailure {
                failure = failure ?? Failure(description: "\(path): \(transportFailure.reason)")
            }
            guard failure == nil else {
                if partial >= 0 { POSIXFile.close(partial) }
                return run.ended(failure)
            }
            switch run.discipline {
            case .transport:
                writeInPlace()
                run.ended(failure)
            case .guarantees:
                write(to: partial)
                POSIXFile.close(partial)
                guard failure == nil else { return run.ended(failure) }
                run.journal.append(Journal.recordFrameLength)
                FileWork.run { [self] in
                    place()
                    run.ended(failure)
                }
            }
        }

        private func writeInPlace() {
            do {
                let descriptor = try POSIXFile.openForWriting(atPath: path)
                write(to: descriptor)
                POSIXFile.close(descriptor)
            } catch {
                failure = Failure(description: "\(error)")
            }
        }

        private func write(to descriptor: Int32) {
            if let errorNumber = body.withUnsafeBytes({ POSIXFile.write(descriptor, $0, at: 0) }).errorNumber {
                failure = Failure(description: "\(path): cannot write (errno \(errorNumber))")
            }
        }

        /// File work: the server's time, then the mode and the rename, then the removal frame.
        private func place() {
            let partialPath = path + ".partial"
            if let modified {
                _ = POSIXFile.setModificationTime(modified, atPath: partialPath)
            }
            do {
                // The usual mode, then a rename that does not replace (a file destination's default).
                _ = try FilePlacement.place(
                    partialPath, at: .file(URL(fileURLWithPath: path, isDirectory: false)), suggestedName: "")
            } catch {
                failure = Failure(description: "\(error)")
            }
            run.journal.append(Journal.removalFrameLength)
        }
    }
}
