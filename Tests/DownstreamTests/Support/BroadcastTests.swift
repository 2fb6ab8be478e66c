import Testing

@testable import Downstream

@Suite struct BroadcastTests {
    @Test func aNewSubscriberFirstGetsTheLatestValue() async {
        let broadcast = Broadcast<Int>(replayLimit: 1)
        broadcast.publish(1)
        broadcast.publish(2)
        var iterator = broadcast.subscribe().makeAsyncIterator()
        #expect(await iterator.next() == 2)
        broadcast.publish(3)
        #expect(await iterator.next() == 3)
    }

    @Test func everySubscriberGetsEveryValueInOrder() async {
        let broadcast = Broadcast<Int>(replayLimit: 100)
        let first = broadcast.subscribe()
        let second = broadcast.subscribe()
        for value in 1...50 { broadcast.publish(value) }
        broadcast.finish()
        #expect(await Array(first) == Array(1...50))
        #expect(await Array(second) == Array(1...50))
    }

    @Test func aSlowSubscriberKeepsOnlyTheNewestValues() async {
        let broadcast = Broadcast<Int>(replayLimit: 1)
        let stream = broadcast.subscribe()
        for value in 1...10_000 { broadcast.publish(value) }
        broadcast.finish()
        #expect(await Array(stream) == [10_000])
    }

    @Test func subscribingToAFinishedBroadcastReplaysAndEnds() async {
        let broadcast = Broadcast<String>(replayLimit: 3)
        for value in ["a", "b", "c", "d"] { broadcast.publish(value) }
        broadcast.finish()
        #expect(await Array(broadcast.subscribe()) == ["b", "c", "d"])
    }

    @Test func reopeningAcceptsNewValues() async {
        let broadcast = Broadcast<Int>(replayLimit: 1)
        broadcast.publish(1)
        broadcast.finish()
        broadcast.publish(2)
        broadcast.reopen()
        var iterator = broadcast.subscribe().makeAsyncIterator()
        #expect(await iterator.next() == 1)
        broadcast.publish(3)
        broadcast.finish()
        #expect(await iterator.next() == 3)
        #expect(await iterator.next() == nil)
    }

    /// A subscriber whose task is cancelled leaves the broadcast, which no longer holds its
    /// stream; the others go on receiving. (AsyncStream calls the termination handler that drops
    /// it before the cancelled iteration ends: the count is read after it, without waiting.)
    @Test func aCancelledSubscriberIsDropped() async {
        let broadcast = Broadcast<Int>(replayLimit: 1)
        broadcast.publish(0)
        let kept = broadcast.subscribe()
        let (received, receiving) = AsyncStream.makeStream(of: Int.self)
        let task = Task {
            for await value in broadcast.subscribe() { receiving.yield(value) }
        }
        // The replayed value arrived: the task subscribed, and iterates.
        var iterator = received.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        #expect(broadcast.subscriberCount == 2)

        task.cancel()
        await task.value
        #expect(broadcast.subscriberCount == 1)
        broadcast.publish(1)
        broadcast.finish()
        #expect(await Array(kept) == [1])
    }
}

extension Array {
    /// Every element of a stream, once it finished. (Not any `AsyncSequence` whose `Failure` is
    /// `Never`: `AsyncSequence.Failure` needs macOS 15 and iOS 18.)
    init(_ sequence: AsyncStream<Element>) async {
        var result: [Element] = []
        for await element in sequence { result.append(element) }
        self = result
    }
}
