@testable import Downstream
import Foundation
import DownstreamTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One download's ranged transfers on a ``ScriptedTransport``, with a real partial file and a
/// real record in a temporary directory of its own: the ranged logic without sockets.
final class TransferBench {
    let directory: URL
    let url = URL(string: "http://files.test/file.bin")!
    let partialPath: String
    let transport = ScriptedTransport()
    let progress = RecordingProgress()
    let recordFile: DownloadRecordFile
    private let store: DownloadStore
    private let events = Locked<[DownloadEvent]>([])
    private let endsSeen = Locked<[TransferEnd]>([])
    private let responsesSeen = Locked<[ServerResponse?]>([])

    /// - Parameters:
    ///   - partial: the partial file's bytes, if there is one.
    ///   - record: the stored resume record, as a previous request left it.
    init(partial: [UInt8]? = nil, record configure: (inout ResumeRecord) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        partialPath = directory.appendingPathComponent("file.bin.partial").path
        if let partial {
            try Data(partial).writeWithoutSync(to: URL(fileURLWithPath: partialPath))
        }
        store = try DownloadStore(
            identifier: "bench-\(UUID().uuidString)", directory: directory.appendingPathComponent("store"))
        let request = DownloadRequest(url: url, to: .file(directory.appendingPathComponent("file.bin")))
        var record = StoredDownload(
            id: DownloadID(), request: request, url: url, location: PartialLocation(path: partialPath))
        record.resume = ResumeRecord(url: url)
        configure(&record.resume)
        recordFile = DownloadRecordFile(store: store, record: record, place: try store.create(record))
    }

    deinit {
        store.release()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Settings as a manager's configuration gives them, changed by `change`.
    static func settings(_ change: (inout RangedTransfer.Settings) -> Void = { _ in }) -> RangedTransfer.Settings {
        var settings = RangedTransfer.Settings(
            writeBufferCapacity: 4096, checkpoints: .init(), synchronizesToDisk: false, disk: nil,
            redirects: .init())
        // Checkpoints only where a test asks for them: never by the clock.
        settings.checkpoints.interval = .seconds(3600)
        change(&settings)
        return settings
    }

    /// Starts a transfer for `plan`; returns it with the scripted request the server answers.
    func start(
        _ plan: AttemptPlan, settings: RangedTransfer.Settings = TransferBench.settings(),
        answersChallenges: Bool = false
    ) -> (RangedTransfer, ScriptedRequest) {
        let setup = RangedTransfer.Setup(
            url: url, plan: plan, announcesResume: true, partialPath: partialPath, namesFile: true,
            record: recordFile.record.resume, recordFile: recordFile, settings: settings,
            downloadID: recordFile.record.id, answersChallenges: answersChallenges, previousChallenges: 0,
            // A digest in the record is the request's expected one's, as a download sets it up.
            expectedAlgorithm: recordFile.record.resume.digest?.algorithm)
        let transfer = RangedTransfer(
            setup, progress: progress, publish: { [events] event in events.withLock { $0.append(event) } },
            onEnd: { [endsSeen, responsesSeen] end, response in
                endsSeen.withLock { $0.append(end) }
                responsesSeen.withLock { $0.append(response) }
            })
        transfer.start(URLRequest(url: url), on: transport)
        return (transfer, transport.started.last!)
    }

    /// A plan for the whole file.
    static func wholeFile() -> AttemptPlan {
        AttemptPlan(offset: 0, end: nil, validator: Validator(), expectedLength: nil, onServerFileChange: .restart)
    }

    /// How the transfers ended, in order.
    var ends: [TransferEnd] { endsSeen.withLock { $0 } }
    /// The last response head each ended transfer reported.
    var endResponses: [ServerResponse?] { responsesSeen.withLock { $0 } }
    /// The events the transfers published.
    var published: [DownloadEvent] { events.withLock { $0 } }
    /// The partial file's bytes; nil if there is none.
    var partial: [UInt8]? {
        FileManager.default.contents(atPath: partialPath).map { [UInt8]($0) }
    }
    /// The resume record as it is in the store's file now.
    var storedResume: ResumeRecord? {
        DownloadStore.records(in: store.directory).first { $0.id == recordFile.record.id }?.resume
    }
}

/// A progress sink that remembers what it was told.
final class RecordingProgress: ProgressSink {
    private struct State {
        var begins: [(bytes: Int64, expected: Int64?)] = []
        var added: Int64 = 0
    }
    private let state = Locked(State())

    /// The `begin` calls: the bytes the file kept, and the length expected.
    var begins: [(bytes: Int64, expected: Int64?)] { state.withLock { $0.begins } }
    /// The bytes counted with `add`.
    var added: Int64 { state.withLock { $0.added } }

    func begin(bytesReceived: Int64, expectedBytes: Int64?) {
        state.withLock { $0.begins.append((bytesReceived, expectedBytes)) }
    }

    func add(_ count: Int64) {
        state.withLock { $0.added += count }
    }

    func update(totalBytes: Int64, expectedBytes: Int64?) {}
}

/// `count` bytes of a pattern that differs at every offset of a small file.
func patternBytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

extension TransferEnd {
    /// The kind of the failure, if the request failed.
    var failureKind: DownloadError.Kind? {
        guard case .failed(let error) = self else { return nil }
        return error.kind
    }
}
