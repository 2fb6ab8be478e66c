@testable import Downstream
import Foundation
import Testing

/// The segmented engine's schedule as a value, without I/O: ranges, takeovers, retries of one
/// segment, restarts, and the attempt's end.
@Suite struct SegmentScheduleTests {
    final class Probe: Sendable {
        let connection: Int
        init(_ connection: Int) { self.connection = connection }
    }

    typealias Schedule = SegmentSchedule<Probe>

    /// A 40-byte file in two segments of 20.
    static func schedule(
        isNewURL: Bool = false, overlap: Int64 = 0, onChange: DownloadRequest.ServerFileChangePolicy = .restart
    ) -> Schedule {
        Schedule(
            map: SegmentMap(length: 40, connections: 2, minimumSize: 10),
            rules: .init(
                maximumBytesPerRequest: nil, overlapLength: overlap, isNewURL: isNewURL, onServerFileChange: onChange))
    }

    /// Gives `connection` its next range: the probe and the assignment.
    static func assign(_ connection: Int, in schedule: inout Schedule) -> (Probe, Schedule.Assignment)? {
        var made: Schedule.Assignment?
        guard
            let (probe, _) = schedule.assign(
                connection,
                making: {
                    made = $0; return Probe(connection)
                })
        else {
            return nil
        }
        return (probe, made!)
    }

    static let retriesTwice: @Sendable (DownloadError, Int) -> FailureRecovery.Verdict = { _, retry in
        retry <= 2 ? .retry(after: .seconds(1)) : .none
    }

    @Test func aConnectionThatFinishesTakesOverHalfOfTheLargestRemainingSegment() throws {
        var schedule = Self.schedule()
        let (first, one) = try #require(Self.assign(1, in: &schedule))
        let (_, two) = try #require(Self.assign(2, in: &schedule))
        #expect(one.range == 0..<20)
        #expect(two.range == 20..<40)
        let taken = schedule.take(20, inSegmentAt: 0)
        #expect(taken == 20)
        let ended = schedule.requestEnded(
            first, connection: 1, segmentStart: 0, .complete, durableTo: 20, verdict: Self.retriesTwice)
        #expect(ended.events == [.segmentFinished(0..<20)])
        #expect(ended.next == 1)
        #expect(ended.stops.isEmpty)
        // The second segment has received nothing: the first connection takes its second half.
        let (_, takeover) = try #require(Self.assign(1, in: &schedule))
        #expect(takeover.range == 30..<40)
        #expect(takeover.segmentStart == 30)
    }

    @Test func aFailedSegmentRetriesAloneUntilTheVerdictSaysNoThenEveryRequestStops() throws {
        var schedule = Self.schedule()
        let (first, _) = try #require(Self.assign(1, in: &schedule))
        for retry in 1...3 {
            let (second, assignment) = try #require(Self.assign(2, in: &schedule))
            #expect(assignment.range == 20..<40)
            let ended = schedule.requestEnded(
                second, connection: 2, segmentStart: 20, .failed(.httpStatus(503)), durableTo: 20,
                verdict: Self.retriesTwice)
            if retry <= 2 {
                #expect(ended.retryAfter == .seconds(1))
                #expect(ended.stops.isEmpty)
                let unwanted = schedule.retryScheduled(2, timer: Task {})
                #expect(unwanted == nil, "the timer is kept")
                let waiting = schedule.finishIfDone()
                #expect(waiting.end == nil, "a retry waits")
                let fired = schedule.retryFired(2)
                #expect(fired)
            } else {
                #expect(ended.retryAfter == nil)
                #expect(ended.stops.map(\.connection) == [1])
            }
        }
        let running = schedule.finishIfDone()
        #expect(running.end == nil, "the first connection still runs")
        _ = schedule.requestEnded(
            first, connection: 1, segmentStart: 0, .stopped, durableTo: 0, verdict: Self.retriesTwice)
        let ended = schedule.finishIfDone()
        #expect(ended.end == .failed(.httpStatus(503)))
        let again = schedule.finishIfDone()
        #expect(again.end == nil, "the end is said once")
    }

    @Test func anOverlapThatDiffersOnANewURLRestartsThatSegmentAlone() throws {
        var schedule = Self.schedule(isNewURL: true, overlap: 4)
        _ = try #require(Self.assign(1, in: &schedule))
        let (second, _) = try #require(Self.assign(2, in: &schedule))
        let before = schedule.snapshot().digestRestarts
        let ended = schedule.requestEnded(
            second, connection: 2, segmentStart: 20, .overlapDiffers(reason: "differs"), durableTo: 20,
            verdict: Self.retriesTwice)
        #expect(ended.stops.isEmpty)
        #expect(ended.next == 2)
        #expect(ended.receivedAfterRestart == 0)
        let snapshot = schedule.snapshot()
        #expect(snapshot.digestRestarts == before + 1)
        // The restarted segment compares nothing before it: those bytes are another file's.
        let (_, again) = try #require(Self.assign(2, in: &schedule))
        #expect(again.range == 20..<40)
        #expect(again.overlap == 0)
    }

    @Test(arguments: [DownloadRequest.ServerFileChangePolicy.restart, .fail])
    func anOverlapThatDiffersOnTheSameURLEndsTheAttempt(_ policy: DownloadRequest.ServerFileChangePolicy) throws {
        var schedule = Self.schedule(onChange: policy)
        let (first, _) = try #require(Self.assign(1, in: &schedule))
        let (second, _) = try #require(Self.assign(2, in: &schedule))
        let ended = schedule.requestEnded(
            second, connection: 2, segmentStart: 20, .overlapDiffers(reason: "differs"), durableTo: 20,
            verdict: Self.retriesTwice)
        #expect(ended.stops.map(\.connection) == [1])
        _ = schedule.requestEnded(
            first, connection: 1, segmentStart: 0, .stopped, durableTo: 0, verdict: Self.retriesTwice)
        let end = schedule.finishIfDone().end
        if policy == .fail {
            #expect(end?.failureKind == .serverFileChanged)
        } else {
            #expect(end == .restart(reason: "differs"))
        }
    }

    @Test func aRetryTimerMadeAfterTheAttemptEndedIsHandedBackToBeCancelled() throws {
        var schedule = Self.schedule()
        let (first, _) = try #require(Self.assign(1, in: &schedule))
        let (second, _) = try #require(Self.assign(2, in: &schedule))
        let ended = schedule.requestEnded(
            second, connection: 2, segmentStart: 20, .failed(.httpStatus(503)), durableTo: 20,
            verdict: Self.retriesTwice)
        #expect(ended.retryAfter != nil)
        // Paused before the timer was made.
        let (stops, timers) = schedule.endAttempt(.cancelled)
        #expect(stops.map(\.connection) == [1])
        #expect(timers.isEmpty)
        let late = Task<Void, Never> {}
        let handedBack = schedule.retryScheduled(2, timer: late)
        #expect(handedBack == late)
        _ = schedule.requestEnded(
            first, connection: 1, segmentStart: 0, .stopped, durableTo: 0, verdict: Self.retriesTwice)
        let outcome = schedule.finishIfDone()
        #expect(outcome.end == .cancelled)
    }

    @Test func everyByteOnDiskFinishesTheAttemptEvenWhenItWasStopped() throws {
        var schedule = Self.schedule()
        let (first, _) = try #require(Self.assign(1, in: &schedule))
        let (second, _) = try #require(Self.assign(2, in: &schedule))
        let firstTaken = schedule.take(20, inSegmentAt: 0)
        #expect(firstTaken == 20)
        let secondTaken = schedule.take(25, inSegmentAt: 20)
        #expect(secondTaken == 20, "a segment takes only its own bytes")
        _ = schedule.endAttempt(.cancelled)
        _ = schedule.requestEnded(
            first, connection: 1, segmentStart: 0, .stopped, durableTo: 20, verdict: Self.retriesTwice)
        _ = schedule.requestEnded(
            second, connection: 2, segmentStart: 20, .stopped, durableTo: 40, verdict: Self.retriesTwice)
        let ended = schedule.finishIfDone()
        #expect(ended.end == .finished)
    }
}
