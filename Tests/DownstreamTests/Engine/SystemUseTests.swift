@testable import Downstream
import Foundation
import Testing

/// When a manager's attempts run as system tasks: its mode, and whether the app is in front.
@Suite struct SystemUseTests {
    static let url = URL(string: "http://files.test/file.bin")!

    /// The engine of a first attempt with `bytes` on disk (a resumable record with a validator),
    /// for a manager whose session the policy allows or not.
    func engine(
        _ policy: SystemUse.Policy, isInForeground: Bool, isKeptInFront: Bool = false, bytes: Int64
    ) -> EngineChoice {
        var record = ResumeRecord(url: Self.url)
        record.validator = Validator(etag: "\"v1\"")
        record.expectedLength = 1_000_000
        let ability = SystemUse.ability(
            policy: policy, isInForeground: isInForeground, isKeptInFront: isKeptInFront, supportsResumeData: true)
        return EngineChoice.choose(
            EngineChoice.Facts(kind: .first, url: Self.url, record: record, fileLength: bytes, systemSession: ability))
    }

    @Test func backgroundOnlyRunsSystemTasksForNewDownloadsInFrontAndBehind() {
        for isInForeground in [true, false] {
            #expect(engine(.always, isInForeground: isInForeground, bytes: 0) == .system)
            // Bytes a ranged request wrote stay with the ranged engine, as before.
            #expect(engine(.always, isInForeground: isInForeground, bytes: 300_000) == .ranged)
        }
    }

    @Test func handoffRunsTheRangedEngineInFrontAndSystemTasksFromTheBytesBehind() {
        #expect(engine(.handoff, isInForeground: true, bytes: 0) == .ranged)
        #expect(engine(.handoff, isInForeground: true, bytes: 300_000) == .ranged)
        #expect(engine(.handoff, isInForeground: false, bytes: 0) == .system)
        #expect(engine(.handoff, isInForeground: false, bytes: 300_000) == .system)
    }

    @Test func foregroundOnlyNeverRunsASystemTask() {
        for isInForeground in [true, false] {
            #expect(engine(.never, isInForeground: isInForeground, bytes: 0) == .ranged)
        }
    }

    @Test func aContinuationOfARangedRequestStaysRangedBehindTheApp() {
        let ability = SystemUse.ability(policy: .handoff, isInForeground: false, supportsResumeData: true)
        let facts = EngineChoice.Facts(
            kind: .continuation, url: Self.url, record: ResumeRecord(url: Self.url), fileLength: 300_000,
            systemSession: ability)
        #expect(EngineChoice.choose(facts) == .ranged)
    }

    @Test func aDownloadKeptInFrontRunsOnTheRangedEngineBehindTheApp() {
        #expect(engine(.handoff, isInForeground: false, isKeptInFront: true, bytes: 0) == .ranged)
        #expect(engine(.handoff, isInForeground: false, isKeptInFront: true, bytes: 300_000) == .ranged)
        // Background only: kept or not, a system task.
        #expect(engine(.always, isInForeground: false, isKeptInFront: true, bytes: 0) == .system)
    }

    @Test func keepingsOverlapPerDownload() {
        let use = SystemUse(policy: .handoff, isInForeground: false)
        let (a, b) = (DownloadID(), DownloadID())
        use.keepInFront([a, b])
        use.keepInFront([a])
        #expect(use.ability(for: a, supportsResumeData: true) == nil)
        #expect(use.stopKeepingInFront([a, b]) == [b])
        #expect(use.isKeptInFront(a) && !use.isKeptInFront(b))
        #expect(use.ability(for: b, supportsResumeData: true)?.continuesBytesOnDisk == true)
        #expect(use.stopKeepingInFront([a]) == [a])
        #expect(!use.isKeptInFront(a))
    }
}
