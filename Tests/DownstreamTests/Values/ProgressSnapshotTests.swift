@testable import Downstream
import Foundation
import Testing

/// What a Live Activity draws from: the estimated end of a download or several, the span of a
/// time-based bar, and a content state small enough for ActivityKit.
@Suite(.timeLimit(.minutes(1)))
struct ProgressSnapshotTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The estimate comes from the bytes left and the speed the download measures on its
    /// manager's clock: at 100 B/s with 900 bytes left the end is 9 s away; faster, it comes
    /// nearer.
    @Test func theEstimateMovesWithTheSpeed() {
        let clock = ManualClock()
        let reporter = reporter(receiving: 100, of: 1000, inOneSecondOn: clock)
        let slow = ProgressSnapshot(reporter.current, state: .running, at: now)
        #expect(slow.estimatedCompletion == now.addingTimeInterval(9))
        #expect(slow.fractionCompleted == 0.1)

        clock.advance(by: .seconds(1))
        reporter.add(300)
        // 400 bytes over the last 2 s: 200 B/s, 600 bytes left.
        let faster = ProgressSnapshot(reporter.current, state: .running, at: now)
        #expect(faster.estimatedCompletion == now.addingTimeInterval(3))
    }

    /// The bar's span makes a time-based progress bar show the part received at the snapshot's
    /// date, and fill at the current speed to be full at the estimated end.
    @Test func theTimerIntervalShowsThePartReceivedAndEndsAtTheEstimate() throws {
        let progress = DownloadProgress(
            bytesReceived: 250, expectedBytes: 1000, bytesPerSecond: 50, estimatedTimeRemaining: .seconds(15))
        let snapshot = ProgressSnapshot(progress, state: .running, at: now)
        let interval = try #require(snapshot.timerInterval)
        #expect(interval.upperBound == now.addingTimeInterval(15))
        // Started, at 50 B/s, 5 s ago: a quarter of the 20 s span has passed at `now`.
        #expect(interval.lowerBound == now.addingTimeInterval(-5))
        let shown =
            now.timeIntervalSince(interval.lowerBound)
            / interval.upperBound.timeIntervalSince(interval.lowerBound)
        #expect(abs(shown - 0.25) < 1e-9)
    }

    /// Paused, the speed is 0 and the state says so: no end date, no moving bar, the part received
    /// kept.
    @Test func aPausedDownloadHasNoEndDate() {
        let reporter = reporter(receiving: 500, of: 1000, inOneSecondOn: ManualClock())
        #expect(ProgressSnapshot(reporter.current, state: .running, at: now).estimatedCompletion != nil)
        reporter.stop(finishing: false)
        let paused = ProgressSnapshot(reporter.current, state: .paused, at: now)
        #expect(paused.estimatedCompletion == nil)
        #expect(paused.timerInterval == nil)
        #expect(paused.fractionCompleted == 0.5)
        // A value measured before the pause gives none either once the state is paused.
        let stale = DownloadProgress(
            bytesReceived: 500, expectedBytes: 1000, bytesPerSecond: 100, estimatedTimeRemaining: .seconds(5))
        #expect(ProgressSnapshot(stale, state: .paused, at: now).estimatedCompletion == nil)
    }

    /// Without a length nothing can be estimated; without speed (a stall, the first moment)
    /// neither: the widget draws an indeterminate or a still bar.
    @Test func anUnknownLengthOrNoSpeedGivesNoEndDate() {
        var speed = SpeedEstimator()
        speed.restart(at: 0, seconds: 0)
        speed.sample(500, at: 1)
        let unknown = DownloadProgress(
            bytesReceived: 500, expectedBytes: nil, bytesPerSecond: speed.bytesPerSecond,
            estimatedTimeRemaining: speed.timeRemaining(received: 500, expected: nil))
        let snapshot = ProgressSnapshot(unknown, state: .running, at: now)
        #expect(snapshot.estimatedCompletion == nil)
        #expect(snapshot.fractionCompleted == nil)
        #expect(snapshot.bytesReceived == 500)
        let stalled = DownloadProgress(bytesReceived: 500, expectedBytes: 1000, bytesPerSecond: 0)
        #expect(ProgressSnapshot(stalled, state: .running, at: now).estimatedCompletion == nil)
        let done = DownloadProgress(bytesReceived: 1000, expectedBytes: 1000)
        let completed = ProgressSnapshot(done, state: .completed, at: now)
        #expect(completed.estimatedCompletion == nil)
        #expect(completed.fractionCompleted == 1)
        #expect(completed.completedCount == 1)
    }

    /// A group's estimate is for all its bytes left at its downloads' speeds together, and there
    /// is none while one that has not ended does not know its length.
    @Test func aGroupsEstimateComesFromItsMembers() {
        let totals = ProgressTotals(interval: .zero)
        let (first, second, third) = (Download.ID(), Download.ID(), Download.ID())
        totals.track(first, update(400, of: 1000, speed: 100), state: .running)
        totals.track(second, update(0, of: 1200, speed: 200), state: .running)
        totals.track(third, update(0, of: nil, speed: 0), state: .queued)
        // The third's length is unknown: no estimate, no fraction.
        let unknown = ProgressSnapshot(totals.current, at: now)
        #expect(unknown.state == .running)
        #expect(unknown.estimatedCompletion == nil)
        #expect(unknown.fractionCompleted == nil)
        #expect(unknown.downloadCount == 3)

        totals.update(third, update(0, of: 600, speed: 0, sequence: 2))
        // 2,400 bytes left at 300 B/s.
        let known = ProgressSnapshot(totals.current, at: now)
        #expect(known.estimatedCompletion == now.addingTimeInterval(8))
        #expect(known.expectedBytes == 2800)
        #expect(known.timerInterval?.upperBound == now.addingTimeInterval(8))

        totals.stateChanged(first, to: .paused)
        totals.stateChanged(second, to: .paused)
        totals.stateChanged(third, to: .paused)
        #expect(ProgressSnapshot(totals.current, at: now).estimatedCompletion == nil)
        #expect(ProgressSnapshot(totals.current, at: now).state == .paused)
    }

    /// Several downloads show their most active state; ended ones are counted.
    @Test(arguments: [
        ([DownloadState.running, .paused, .failed], DownloadState.running),
        ([.completed, .queued], .queued),
        ([.waitingForNetwork, .paused], .waitingForNetwork),
        ([.completed, .failed, .paused], .failed),
        ([.completed, .paused], .paused),
        ([.completed, .cancelled], .completed),
        ([.cancelled, .cancelled], .cancelled),
        ([], .completed),
    ])
    func severalDownloadsShowTheirMostActiveState(states: [DownloadState], expected: DownloadState) {
        let totals = ProgressTotals(interval: .zero)
        for state in states {
            totals.track(Download.ID(), update(10, of: 10, speed: 0), state: state)
        }
        let snapshot = ProgressSnapshot(totals.current, at: now)
        #expect(snapshot.state == expected)
        #expect(snapshot.completedCount == states.filter { $0 == .completed }.count)
        #expect(snapshot.failedCount == states.filter { $0 == .failed }.count)
    }

    /// The worst case, every number at its longest and the longest state name, is far under
    /// ActivityKit's 4 KB, and decodes to the same snapshot.
    @Test func theEncodedStateIsSmallAndRoundTrips() throws {
        var snapshot = ProgressSnapshot(
            DownloadProgress(
                bytesReceived: .max - 1, expectedBytes: .max, bytesPerSecond: 1e-300,
                estimatedTimeRemaining: .seconds(1e9 + 0.123456789)),
            state: .running, at: Date(timeIntervalSinceReferenceDate: -123_456_789.123456789))
        snapshot.state = .waitingForNetwork
        snapshot.fractionCompleted = 0.1234567890123456789
        (snapshot.downloadCount, snapshot.completedCount, snapshot.failedCount) = (.max, .min, .max)
        snapshot.estimatedCompletion = Date(timeIntervalSinceReferenceDate: 9.87654321012345e15)
        let encoded = try JSONEncoder().encode(snapshot)
        #expect(encoded.count < 400, "\(String(decoding: encoded, as: UTF8.self))")
        #expect(try JSONDecoder().decode(ProgressSnapshot.self, from: encoded) == snapshot)

        let plain = ProgressSnapshot(DownloadProgress(bytesReceived: 1, expectedBytes: nil), state: .paused)
        #expect(try JSONDecoder().decode(ProgressSnapshot.self, from: JSONEncoder().encode(plain)) == plain)
        let unknownState = Data(#"{"state":"dancing","received":0,"count":1,"completed":0,"failed":0,"date":0}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProgressSnapshot.self, from: unknownState) }
    }

    /// A download's progress reporter on `clock` that received `bytes` of `expected` in the
    /// second since it began.
    func reporter(receiving bytes: Int64, of expected: Int64, inOneSecondOn clock: ManualClock) -> ProgressReporter {
        let reporter = ProgressReporter(interval: .zero, clock: ClockReadings(clock))
        reporter.begin(bytesReceived: 0, expectedBytes: expected)
        clock.advance(by: .seconds(1))
        reporter.add(bytes)
        return reporter
    }

    func update(_ bytes: Int64, of expected: Int64?, speed: Double, sequence: UInt64 = 1) -> Download.ProgressUpdate {
        var progress = DownloadProgress(bytesReceived: bytes, expectedBytes: expected, bytesPerSecond: speed)
        progress.estimatedTimeRemaining = nil
        return Download.ProgressUpdate(progress: progress, sequence: sequence)
    }
}
