import Foundation
import Testing

@testable import Downstream
import DownstreamTesting

/// The store's journal: the latest frame of each download wins, a frame cut short at any byte is
/// cut off without hiding what comes after it, damage is reported and set aside, and compaction
/// keeps exactly the records in use.
struct StoreJournalTests {
    /// A directory of its own for each test.
    static func withDirectory(_ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory.path)
    }

    /// The payloads the journal in `directory` holds, by download.
    static func contents(_ directory: String) -> [DownloadID: String] {
        var contents: [DownloadID: String] = [:]
        StoreJournal.forEachRecord(in: directory) { id, payload in
            contents[id] = String(decoding: payload, as: UTF8.self)
        }
        return contents
    }

    static func journalPath(_ directory: String) -> String {
        POSIXFile.path(StoreJournal.fileName, in: directory)
    }

    @Test func theLatestFrameOfEachDownloadWinsAndARemovalForgetsIt() throws {
        try Self.withDirectory { directory in
            let (first, second, third) = (DownloadID(), DownloadID(), DownloadID())
            var thirdLength = 0
            do {
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                let firstLength = try journal.put(first, payload: Array("first 1".utf8), replacing: nil)
                let secondLength = try journal.put(second, payload: Array("second 1".utf8), replacing: nil)
                try journal.put(first, payload: Array("first 2".utf8), replacing: firstLength)
                thirdLength = try journal.put(third, payload: Array("third 1".utf8), replacing: nil)
                try journal.remove(second, replacing: secondLength)
                journal.close()
            }
            #expect(Self.contents(directory) == [first: "first 2", third: "third 1"])
            // Reopened, the same; what is appended then is read after it.
            let opening = try StoreJournal.open(in: directory, synchronizes: false)
            #expect(opening.issue == nil)
            try opening.journal.remove(third, replacing: thirdLength)
            opening.journal.close()
            #expect(Self.contents(directory) == [first: "first 2"])
        }
    }

    @Test func aFrameCutShortAtAnyByteIsCutOffAndHidesNothingAppendedAfter() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let (kept, torn, later) = (DownloadID(), DownloadID(), DownloadID())
            do {
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                try journal.put(kept, payload: Array("kept".utf8), replacing: nil)
                journal.close()
            }
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            let frame = JournalFrames.frame(.put, torn, payload: Array("torn".utf8))
            for cut in 1..<frame.count {
                try (whole + frame[..<cut]).writeWithoutSync(to: URL(fileURLWithPath: path))
                let opening = try StoreJournal.open(in: directory, synchronizes: false)
                // An interrupted write, not damage: nothing to report.
                #expect(opening.issue == nil, "cut at \(cut)")
                try opening.journal.put(later, payload: Array("later".utf8), replacing: nil)
                opening.journal.close()
                #expect(Self.contents(directory) == [kept: "kept", later: "later"], "cut at \(cut)")
                try whole.writeWithoutSync(to: URL(fileURLWithPath: path))
            }
        }
    }

    @Test func aFileHeaderCutShortIsAnEmptyJournal() throws {
        try Self.withDirectory { directory in
            try Data(JournalFrames.fileHeader.prefix(5)).writeWithoutSync(
                to: URL(fileURLWithPath: Self.journalPath(directory)))
            let opening = try StoreJournal.open(in: directory, synchronizes: false)
            let id = DownloadID()
            try opening.journal.put(id, payload: Array("first".utf8), replacing: nil)
            opening.journal.close()
            #expect(opening.issue == nil)
            #expect(Self.contents(directory) == [id: "first"])
        }
    }

    @Test func damageIsReportedCopiedAsideAndCutOff() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let (before, damaged) = (DownloadID(), DownloadID())
            do {
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                try journal.put(before, payload: Array("before".utf8), replacing: nil)
                try journal.put(damaged, payload: Array("damaged".utf8), replacing: nil)
                journal.close()
            }
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[bytes.count - 2] ^= 0xFF
            try bytes.writeWithoutSync(to: URL(fileURLWithPath: path))
            let opening = try StoreJournal.open(in: directory, synchronizes: false)
            opening.journal.close()
            let issue = try #require(opening.issue)
            #expect(issue.reason.contains("checksum"))
            #expect(issue.recordURL.lastPathComponent == StoreJournal.fileName + ".corrupt")
            #expect(try Data(contentsOf: issue.recordURL) == bytes)
            #expect(Self.contents(directory) == [before: "before"])
        }
    }

    @Test func aJournalOfANewerFormatIsSetAsideAndANewOneStarted() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            var header = JournalFrames.fileHeader
            header[3] = JournalFrames.formatVersion + 1
            try Data(header + [1, 2, 3]).writeWithoutSync(to: URL(fileURLWithPath: path))
            let opening = try StoreJournal.open(in: directory, synchronizes: false)
            let id = DownloadID()
            try opening.journal.put(id, payload: Array("new".utf8), replacing: nil)
            opening.journal.close()
            #expect(opening.issue?.recordURL.lastPathComponent == StoreJournal.fileName + ".unsupported")
            #expect(opening.issue?.reason.contains("newer version") == true)
            #expect(Self.contents(directory) == [id: "new"])
        }
    }

    @Test func compactionKeepsExactlyTheLatestRecordOfEachDownload() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let ids = (0..<50).map { _ in DownloadID() }
            let payload = { (id: Int, version: Int) in
                Array("download \(id) version \(version) ".utf8) + [UInt8](repeating: 0, count: 900)
            }
            let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
            var longest: Int64 = 0
            // What each record's place keeps: the length of its latest frame.
            var lengths: [DownloadID: Int] = [:]
            for version in 0..<100 {
                for (index, id) in ids.enumerated() {
                    lengths[id] = try journal.put(id, payload: payload(index, version), replacing: lengths[id])
                }
                let removed = ids[version % 50]
                try journal.remove(removed, replacing: lengths.removeValue(forKey: removed))
                longest = max(longest, POSIXFile.length(atPath: path) ?? 0)
            }
            journal.close()
            // 100 versions of 50 records of about 1 KB, never more than three times what is in use
            // (and the threshold) on disk.
            #expect(longest <= 3 * 50 * 1000 + StoreJournal.compactionThreshold + 1000)
            var expected: [DownloadID: String] = [:]
            for (index, id) in ids.enumerated() where index != 99 % 50 {
                expected[id] = String(decoding: payload(index, 99), as: UTF8.self)
            }
            #expect(Self.contents(directory) == expected)
        }
    }

    /// A record's place keeps the length of its frame (the journal keeps no map): the store's
    /// load gives each record the length its last write gave, also after a compaction at opening
    /// and for what was written between the opening and the load.
    @Test func theLoadGivesEachRecordTheLengthOfItsLatestFrame() throws {
        try Self.withDirectory { directory in
            let ids = (0..<100).map { _ in DownloadID() }
            var lengths: [DownloadID: Int] = [:]
            var latest: [DownloadID: String] = [:]
            do {
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                // 500 KB in use, written two and a half times: more than twice what is in use (the
                // opening compacts it), not three times (writing does not).
                let filler = [UInt8](repeating: UInt8(ascii: "x"), count: 5000)
                for version in 0..<3 {
                    for (index, id) in ids.enumerated() where version < 2 || index < 50 {
                        latest[id] = "\(id) \(version) "
                        let payload = Array(latest[id]!.utf8) + filler.prefix(4900 + index)
                        lengths[id] = try journal.put(id, payload: payload, replacing: lengths[id])
                    }
                }
                journal.close()
            }
            let before = POSIXFile.length(atPath: Self.journalPath(directory)) ?? 0
            let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
            #expect((POSIXFile.length(atPath: Self.journalPath(directory)) ?? 0) < before / 2, "compacted at opening")
            // What is written before the load is read by it.
            let added = DownloadID()
            latest[added] = "\(added) 0 "
            lengths[added] = try journal.put(added, payload: Array(latest[added]!.utf8), replacing: nil)
            try journal.remove(ids[0], replacing: lengths.removeValue(forKey: ids[0]))
            var loaded: [DownloadID: Int] = [:]
            try journal.forEachRecord { id, payload, frameLength in
                #expect(String(decoding: payload, as: UTF8.self).hasPrefix(latest[id] ?? "?"))
                loaded[id] = frameLength
            }
            #expect(loaded == lengths)
            // A second load reads the journal again, and finds the same.
            var again: [DownloadID: Int] = [:]
            try journal.forEachRecord { id, _, frameLength in again[id] = frameLength }
            #expect(again == lengths)
            journal.close()
        }
    }

    @Test func aJournalThatHoldsNoRecordIsCutToItsHeader() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let header = Int64(JournalFrames.fileHeaderSize)
            let (first, second, third, fourth) = (DownloadID(), DownloadID(), DownloadID(), DownloadID())
            let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
            var firstLength = try journal.put(first, payload: Array("first 1".utf8), replacing: nil)
            let secondLength = try journal.put(second, payload: Array("second 1".utf8), replacing: nil)
            firstLength = try journal.put(first, payload: Array("first 2".utf8), replacing: firstLength)
            try journal.remove(first, replacing: firstLength)
            // One record left: nothing is cut.
            #expect(Self.contents(directory) == [second: "second 1"])
            #expect(POSIXFile.length(atPath: path)! > header)
            try journal.remove(second, replacing: secondLength)
            #expect(POSIXFile.length(atPath: path) == header)
            // What is appended next goes after the header, and is read back.
            try journal.put(third, payload: Array("third 1".utf8), replacing: nil)
            #expect(Self.contents(directory) == [third: "third 1"])
            // A removal whose frame length is not known cuts it too.
            try journal.remove(third, replacing: nil)
            #expect(POSIXFile.length(atPath: path) == header)
            try journal.put(fourth, payload: Array("fourth 1".utf8), replacing: nil)
            journal.close()
            let reopened = try StoreJournal.open(in: directory, synchronizes: true)
            #expect(reopened.issue == nil)
            reopened.journal.close()
            #expect(Self.contents(directory) == [fourth: "fourth 1"])
        }
    }

    /// The count of live bytes only says when to look: a count that says none while a record is
    /// left (a removal that named a longer frame than the record's) cuts nothing.
    @Test func aCountThatSaysNoneWhileARecordIsLeftCutsNothing() throws {
        try Self.withDirectory { directory in
            let (first, second) = (DownloadID(), DownloadID())
            let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
            let firstLength = try journal.put(first, payload: Array("first".utf8), replacing: nil)
            let secondLength = try journal.put(second, payload: Array("second".utf8), replacing: nil)
            try journal.remove(first, replacing: firstLength + secondLength)
            #expect(Self.contents(directory) == [second: "second"])
            // Counted again: the next removal cuts it.
            try journal.remove(second, replacing: secondLength)
            #expect(POSIXFile.length(atPath: Self.journalPath(directory)) == Int64(JournalFrames.fileHeaderSize))
            journal.close()
        }
    }

    @Test func anOpeningCutsAJournalWhoseFramesAllCancelOut() throws {
        try Self.withDirectory { directory in
            do {
                // As a process killed before its removal's cut leaves it.
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                let id = DownloadID()
                try journal.put(id, payload: Array("gone".utf8), replacing: nil)
                try journal.remove(id, replacing: 0)
                journal.close()
            }
            #expect(POSIXFile.length(atPath: Self.journalPath(directory))! > Int64(JournalFrames.fileHeaderSize))
            let opening = try StoreJournal.open(in: directory, synchronizes: false)
            #expect(opening.issue == nil)
            #expect(POSIXFile.length(atPath: Self.journalPath(directory)) == Int64(JournalFrames.fileHeaderSize))
            opening.journal.close()
        }
    }

    @Test func theCloseRemovesAnEmptyJournalAndCompactsOneWithRecords() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let ids = (0..<10).map { _ in DownloadID() }
            var lengths: [DownloadID: Int] = [:]
            do {
                let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
                for version in 0..<5 {
                    for id in ids {
                        lengths[id] = try journal.put(
                            id, payload: Array("\(id) \(version)".utf8), replacing: lengths[id])
                    }
                }
                let before = POSIXFile.length(atPath: path)!
                journal.compactAndClose()
                // Ten frames of five times as many: cut to them.
                let after = POSIXFile.length(atPath: path)!
                #expect(after == Int64(JournalFrames.fileHeaderSize) + Int64(lengths.values.reduce(0, +)))
                #expect(after * 4 < before)
                #expect(Self.contents(directory) == Dictionary(uniqueKeysWithValues: ids.map { ($0, "\($0) 4") }))
            }
            let journal = try StoreJournal.open(in: directory, synchronizes: false).journal
            for id in ids {
                try journal.remove(id, replacing: lengths[id])
            }
            journal.compactAndClose()
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    /// What a process killed in the middle of a cut, a compaction or the close's removal leaves
    /// (the journal as it is on disk when the seam is called: a SIGKILL loses nothing written)
    /// holds the same records as the journal before and after.
    @Test func aKillDuringACutACompactionOrTheCloseLosesNoRecord() throws {
        try Self.withDirectory { directory in
            let path = Self.journalPath(directory)
            let snapshots = Locked<[Data]>([])
            let snapshot: @Sendable () -> Void = {
                let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
                snapshots.withLock { $0.append(bytes) }
            }
            /// The records of a journal of `bytes`, as the next opening reads them.
            func records(_ bytes: Data) throws -> [DownloadID: String] {
                var result: [DownloadID: String] = [:]
                try Self.withDirectory { other in
                    try bytes.writeWithoutSync(to: URL(fileURLWithPath: Self.journalPath(other)))
                    let opening = try StoreJournal.open(in: other, synchronizes: false)
                    #expect(opening.issue == nil)
                    opening.journal.close()
                    result = Self.contents(other)
                }
                return result
            }
            let (kept, gone) = (DownloadID(), DownloadID())
            let journal = try StoreJournal.open(in: directory, synchronizes: true, duringCut: snapshot).journal
            // A cut while running.
            let goneLength = try journal.put(gone, payload: Array("gone".utf8), replacing: nil)
            try journal.remove(gone, replacing: goneLength)
            // A compaction at the close, of a journal with a record.
            var keptLength = try journal.put(kept, payload: Array("kept 1".utf8), replacing: nil)
            keptLength = try journal.put(kept, payload: Array("kept 2".utf8), replacing: keptLength)
            journal.compactAndClose()
            // A removal at the close.
            let reopened = try StoreJournal.open(in: directory, synchronizes: true, duringCut: snapshot).journal
            try reopened.remove(kept, replacing: keptLength)
            reopened.compactAndClose()
            // The cut of the first removal, the compaction, the cut of the second removal, and the
            // removal of the journal at the close.
            let taken = snapshots.value
            #expect(taken.count == 4)
            guard taken.count == 4 else { return }
            #expect(try records(taken[0]).isEmpty)
            #expect(try records(taken[1]) == [kept: "kept 2"])
            #expect(try records(taken[2]).isEmpty)
            #expect(try records(taken[3]).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
