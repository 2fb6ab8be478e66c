import Testing

@testable import Downstream

@Suite struct ProgressTotalsTests {
    func update(_ bytes: Int64, of expected: Int64, _ sequence: UInt64) -> Download.ProgressUpdate {
        Download.ProgressUpdate(
            progress: DownloadProgress(bytesReceived: bytes, expectedBytes: expected), sequence: sequence)
    }

    @Test func aValueOlderThanTheOneCountedIsDropped() {
        let totals = ProgressTotals(interval: .zero)
        let id = Download.ID()
        totals.track(id, update(0, of: 1000, 0), state: .running)
        totals.update(id, update(500, of: 1000, 2))
        totals.update(id, update(300, of: 1000, 1))
        #expect(totals.current.bytesReceived == 500)
        totals.update(id, update(600, of: 1000, 3))
        #expect(totals.current.bytesReceived == 600)
        #expect(totals.current.fractionCompleted == 0.6)
    }

    @Test func statesAreCountedAndCancelledDownloadsCountNoBytes() {
        let totals = ProgressTotals(interval: .zero)
        let (first, second) = (Download.ID(), Download.ID())
        totals.track(first, update(100, of: 200, 0), state: .running)
        totals.track(second, update(50, of: 100, 0), state: .paused)
        #expect(totals.current.downloadCount == 2)
        #expect(totals.current.count(.running) == 1)
        #expect(totals.current.bytesReceived == 150)
        totals.stateChanged(second, to: .cancelled)
        #expect(totals.current.count(.paused) == 0)
        #expect(totals.current.count(.cancelled) == 1)
        #expect(totals.current.bytesReceived == 100)
    }

    /// A manager's totals keep no map: each download keeps its entry, which the totals fill and
    /// change as they count.
    @Test func aDownloadKeepingItsOwnEntryIsCountedOnceAndItsEntryFollows() {
        let totals = ProgressTotals(interval: .zero)
        var entry: ProgressTotals.Entry?
        totals.track(&entry, update(100, of: 400, 0), state: .queued)
        totals.track(&entry, update(300, of: 400, 5), state: .running)
        #expect(totals.current.downloadCount == 1)
        #expect(totals.current.bytesReceived == 100)
        #expect(entry?.state == .queued)
        totals.stateChanged(&entry, to: .running)
        totals.update(&entry, update(200, of: 400, 2))
        totals.update(&entry, update(150, of: 400, 1))
        #expect(entry?.bytesReceived == 200)
        #expect(totals.current.count(.running) == 1)
        #expect(totals.current.count(.queued) == 0)
        #expect(totals.current.fractionCompleted == 0.5)
        var untracked: ProgressTotals.Entry?
        totals.update(&untracked, update(999, of: 1000, 9))
        #expect(untracked == nil)
        #expect(totals.current.bytesReceived == 200)
    }
}
