@testable import Downstream
import Foundation
import Testing

/// When a manager's attempts run as system tasks: its mode, and whether the app is in front.
@Suite struct SystemUseTests {
    static let url = URL(string: "http://files.test/file.bin")!

    /// The engine of a first attempt with `bytes` on disk (a resumable record with a validator),
    /// for a manager whose session the policy allows or not.
    func engine(_ policy: SystemUse.Policy, isInForeground: Bool, bytes: Int64) -> EngineChoice {
        var record = ResumeRecord(url: Self.url)
        record.validator = Validator(etag: "\"v1\"")
        record.expectedLength = 1_000_000
        let ability = SystemUse.ability(policy: policy, isInForeground: isInForeground, supportsResumeData: true)
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
}
