@testable import Downstream
import Testing

/// Bandwidth limits on a manual clock: a download waits for its own limit, downloads sharing the
/// manager's limit take turns, and limits change while they wait.
@Suite(.timeLimit(.minutes(1)))
struct BandwidthLimiterTests {
    /// A transport task that records the limiter's resumes (also into `shared`, with `id`).
    final class Task: TransportTask {
        let resumes: AsyncStream<Void>
        private let resume: AsyncStream<Void>.Continuation
        private let shared: (id: DownloadID, into: AsyncStream<DownloadID>.Continuation)?

        init(_ shared: (id: DownloadID, into: AsyncStream<DownloadID>.Continuation)? = nil, waitsAlone: Bool = true) {
            (resumes, resume) = AsyncStream.makeStream()
            self.shared = shared
            self.waitsAlone = waitsAlone
        }

        let waitsAlone: Bool

        func cancel() {}
        func resumeBody() {
            resume.yield()
            if let shared { shared.into.yield(shared.id) }
        }

        func resumed() async {
            for await _ in resumes { return }
        }
    }

    @Test func aDownloadWaitsForItsOwnLimitAndIsResumedWhenItMayGoOn() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: nil, clock: clock)
        let id = DownloadID()
        limiter.setLimit(100_000, for: id)
        let task = Task()
        #expect(limiter.admit(16_384, for: id, task: task))
        #expect(limiter.admit(10_000, for: id, task: task))
        #expect(!limiter.admit(16_384, for: id, task: task), "in debt: the chunk waits")
        var sleeps = clock.sleeps.makeAsyncIterator()
        #expect(await sleeps.next() == .milliseconds(100))
        clock.advance(by: .milliseconds(100))
        await task.resumed()
        #expect(limiter.admit(16_384, for: id, task: task))
        // Another download has no limit of its own.
        #expect(limiter.admit(1_000_000, for: DownloadID(), task: Task()))
    }

    @Test func downloadsSharingTheOverallLimitTakeTurnsChunkByChunk() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: 100_000, clock: clock)
        let (first, second, third) = (DownloadID(), DownloadID(), DownloadID())
        let (resumed, resumes) = AsyncStream<DownloadID>.makeStream()
        var turns = resumed.makeAsyncIterator()
        let tasks = [
            first: Task((first, resumes)), second: Task((second, resumes)), third: Task((third, resumes)),
        ]
        // The burst goes to whoever asks first; then the bucket is in debt.
        #expect(limiter.admit(16_384, for: first, task: tasks[first]!))
        #expect(limiter.admit(10_000, for: first, task: tasks[first]!))
        #expect(!limiter.admit(10_000, for: second, task: tasks[second]!))
        #expect(!limiter.admit(10_000, for: third, task: tasks[third]!))
        #expect(!limiter.admit(10_000, for: first, task: tasks[first]!))
        // Each turn, the one whose turn it is is resumed and takes a chunk: second, third, first, ...
        var order: [DownloadID] = []
        var sleeps = clock.sleeps.makeAsyncIterator()
        for _ in 0..<6 {
            let sleep = await sleeps.next() ?? .zero
            #expect(sleep == .milliseconds(100), "10,000 bytes of debt at 100,000 bytes/s")
            clock.advance(by: sleep)
            // (Nil only once the test is cancelled, by its time limit.)
            guard let resumed = await turns.next() else {
                Issue.record("no turn came")
                return
            }
            order.append(resumed)
            // Someone else out of turn is told to wait.
            let other = [first, second, third].first { $0 != resumed }!
            #expect(!limiter.admit(10_000, for: other, task: tasks[other]!))
            #expect(limiter.admit(10_000, for: resumed, task: tasks[resumed]!))
            // And queues again for its next chunk.
            #expect(!limiter.admit(10_000, for: resumed, task: tasks[resumed]!))
        }
        #expect(order == [second, third, first, second, third, first])
    }

    @Test func aDownloadWithSeveralConnectionsTakesOneTurnPerRound() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: 100_000, clock: clock)
        let (segmented, single) = (DownloadID(), DownloadID())
        let (resumed, resumes) = AsyncStream<DownloadID>.makeStream()
        var turns = resumed.makeAsyncIterator()
        let connections = [Task((segmented, resumes)), Task((segmented, resumes))]
        let other = Task((single, resumes))
        #expect(limiter.admit(26_384, for: segmented, task: connections[0]))
        #expect(!limiter.admit(10_000, for: segmented, task: connections[0]))
        #expect(!limiter.admit(10_000, for: segmented, task: connections[1]))
        #expect(!limiter.admit(10_000, for: single, task: other))
        var order: [DownloadID] = []
        var sleeps = clock.sleeps.makeAsyncIterator()
        for _ in 0..<6 {
            clock.advance(by: await sleeps.next() ?? .zero)
            // (Nil only once the test is cancelled, by its time limit.)
            guard let turn = await turns.next() else {
                Issue.record("no turn came")
                return
            }
            order.append(turn)
            // Whichever of its transfers was resumed takes the chunk and queues again.
            let task =
                turn == single
                ? other : connections.first { limiter.admit(10_000, for: segmented, task: $0) } ?? connections[0]
            if turn == single {
                #expect(limiter.admit(10_000, for: single, task: other))
            }
            #expect(!limiter.admit(10_000, for: turn, task: task))
        }
        // Two connections, one download: it gets every other turn, as the single one does.
        #expect(order == [segmented, single, segmented, single, segmented, single])
    }

    @Test func transfersThatCannotWaitAloneWaitForTheBucketNotForTurns() async {
        // URLSession's: a chunk that waits holds back the whole session, so the next in turn could
        // never come. Each waits only until the bucket allows.
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: 100_000, clock: clock)
        let (first, second) = (DownloadID(), DownloadID())
        let (one, two) = (Task(waitsAlone: false), Task(waitsAlone: false))
        #expect(limiter.admit(26_384, for: first, task: one))
        #expect(!limiter.admit(10_000, for: second, task: two))
        var sleeps = clock.sleeps.makeAsyncIterator()
        #expect(await sleeps.next() == .milliseconds(100))
        clock.advance(by: .milliseconds(100))
        await two.resumed()
        // The first, not waiting in any turn, may take the bucket's next chunk: no deadlock.
        #expect(limiter.admit(10_000, for: first, task: one))
        #expect(!limiter.admit(10_000, for: second, task: two))
        #expect(await sleeps.next() == .milliseconds(100))
    }

    @Test func removingTheLimitResumesEveryoneWaitingAtOnce() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: 100_000, clock: clock)
        let (first, second) = (DownloadID(), DownloadID())
        let (one, two) = (Task(), Task())
        #expect(limiter.admit(30_000, for: first, task: one))
        #expect(!limiter.admit(1_000, for: first, task: one))
        #expect(!limiter.admit(1_000, for: second, task: two))
        limiter.setOverall(nil)
        await one.resumed()
        await two.resumed()
        #expect(limiter.admit(10_000_000, for: first, task: one))
        #expect(limiter.admit(10_000_000, for: second, task: two))
        #expect(limiter.overall == nil)
    }

    @Test func raisingALimitShortensTheWait() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: nil, clock: clock)
        let id = DownloadID()
        let task = Task()
        limiter.setLimit(10_000, for: id)
        #expect(limiter.admit(16_384 + 10_000, for: id, task: task))
        #expect(!limiter.admit(1, for: id, task: task))
        var sleeps = clock.sleeps.makeAsyncIterator()
        #expect(await sleeps.next() == .seconds(1))
        limiter.setLimit(100_000, for: id)
        // The waiting chunk asks again: the new rate pays the debt in a tenth of the time.
        await task.resumed()
        #expect(!limiter.admit(1, for: id, task: task))
        #expect(await sleeps.next() == .milliseconds(100))
        clock.advance(by: .milliseconds(100))
        await task.resumed()
        #expect(limiter.admit(1, for: id, task: task))
    }

    @Test func aTransferThatEndsPassesItsTurnOn() async {
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: 100_000, clock: clock)
        let (gone, waiting) = (DownloadID(), DownloadID())
        let (goneTask, waitingTask) = (Task(), Task())
        #expect(limiter.admit(26_384, for: gone, task: goneTask))
        #expect(!limiter.admit(1, for: gone, task: goneTask))
        #expect(!limiter.admit(1, for: waiting, task: waitingTask))
        limiter.transferEnded(goneTask)
        var sleeps = clock.sleeps.makeAsyncIterator()
        let sleep = await sleeps.next() ?? .zero
        clock.advance(by: sleep)
        await waitingTask.resumed()
        #expect(limiter.admit(1, for: waiting, task: waitingTask))
    }

    @Test func everyTransferOfOneDownloadWaitsAndIsResumed() async {
        // The connections of a segmented download share its limit: each waiting one is resumed.
        let clock = ManualClock()
        let limiter = BandwidthLimiter(overall: nil, clock: clock)
        let id = DownloadID()
        limiter.setLimit(100_000, for: id)
        let tasks = [Task(), Task(), Task()]
        #expect(limiter.admit(26_384, for: id, task: tasks[0]))
        for task in tasks {
            #expect(!limiter.admit(1_000, for: id, task: task))
        }
        var sleeps = clock.sleeps.makeAsyncIterator()
        clock.advance(by: await sleeps.next() ?? .zero)
        for task in tasks {
            await task.resumed()
        }
        #expect(limiter.bytesAdmitted(for: id) == 26_384)
    }
}
