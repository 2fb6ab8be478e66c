@testable import Downstream
import DownstreamTesting
import Foundation
import Testing

/// A record's history is bounded however it was written: by entries and bytes as it grows, and
/// as it is read back from a record that says more (planted, or damaged), which costs the
/// download nothing but the history.
@Suite(.timeLimit(.minutes(1)))
struct StoredHistoryTests {
    /// Leaves an interrupted download's record whose `history` member is `historyJSON`.
    static func plantRecord(_ fixture: Fixture, history historyJSON: String) throws -> Download.ID {
        let body = Body.pattern(count: 200_000, seed: 960)
        let url = fixture.serve("/planted.bin", body)
        let record = try fixture.leaveInterruptedDownload(
            of: url, to: .directory(fixture.directory), partial: body, length: 100_000)
        let text = String(decoding: record.json, as: UTF8.self)
        let planted = text.replacingOccurrences(of: ",\"created\":", with: ",\"history\":\(historyJSON),\"created\":")
        #expect(planted != text)
        let payload = Data(planted.utf8)
        try Data(RecordSlots.file(payload, at: RecordSlots.firstPosition(for: payload.count)))
            .writeWithoutSync(to: fixture.recordFile(record.id))
        return record.id
    }

    static func entry(_ kind: String, message: String) -> String {
        #"{"date":1,"kind":"\#(kind)","message":"\#(message)"}"#
    }

    @Test func aHugePlantedHistoryIsCutToItsNewestEntriesWithinTheBound() async throws {
        try await withFixture(startsManager: false) { fixture in
            let long = String(repeating: "x", count: 100_000)
            let entries =
                (0..<50_000).map { Self.entry("request", message: "old \($0)") }
                + [Self.entry(long, message: long), Self.entry("failed", message: "newest")]
            let id = try Self.plantRecord(fixture, history: "[" + entries.joined(separator: ",") + "]")

            let manager = try fixture.makeManager()
            let download = try #require(await manager.downloads.first { $0.id == id })
            #expect(download.currentProgress.bytesReceived == 100_000)
            let history = download.history
            #expect(history.count <= DownloadHistory.maximumEntries)
            #expect(history.last?.message == "newest")
            #expect(history.last?.kind == .failed)
            let cut = try #require(history.dropLast().last)
            #expect(cut.message?.utf8.count ?? .max <= DownloadHistoryEntry.maximumTextBytes)
            #expect(cut.message?.hasSuffix("…") == true)
            #expect(cut.kind.rawValue.utf8.count <= 32)
        }
    }

    @Test(arguments: [
        #""not a list""#, #"[{"kind":"request"}]"#, #"[{"date":1,"kind":"request"},7,{"date":2,"kind":"failed"}]"#,
    ])
    func aMalformedHistoryCostsTheDownloadOnlyItsUnreadableEntries(_ history: String) async throws {
        try await withFixture(startsManager: false) { fixture in
            let id = try Self.plantRecord(fixture, history: history)
            let manager = try fixture.makeManager()
            #expect(manager.restorationIssues.isEmpty)
            let download = try #require(await manager.downloads.first { $0.id == id })
            #expect(download.currentProgress.bytesReceived == 100_000)
            // What comes before the first entry that cannot be read is kept.
            #expect(download.history.map(\.kind) == (history.hasPrefix("[{\"date\"") ? [.request] : []))
        }
    }

    @Test func entriesOfLongTextsAreDroppedOldestFirstWithinTheBytes() {
        var history = DownloadHistory()
        for index in 0..<40 {
            var entry = DownloadHistoryEntry(kind: .request)
            entry.url = DownloadHistoryEntry.capped(
                "https://example.com/\(index)/" + String(repeating: "a", count: 1_000))
            entry.message = DownloadHistoryEntry.capped(String(repeating: "é", count: 1_000))
            history.append(entry)
        }
        var writer = JSONWriter()
        writer.objects("history", history.entries) { writer, entry in entry.writeMembers(&writer) }
        #expect(writer.bytes.count <= DownloadHistory.maximumBytes + 16)
        #expect(history.entries.count < DownloadHistory.maximumEntries)
        #expect(history.entries.last?.url?.hasPrefix("https://example.com/39/") == true)
        #expect(history.entries.allSatisfy { ($0.message?.utf8.count ?? 0) <= DownloadHistoryEntry.maximumTextBytes })
    }
}
