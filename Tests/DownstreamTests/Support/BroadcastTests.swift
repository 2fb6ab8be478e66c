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

    @Test func aCancelledSubscriberIsDropped() async {
        let broadcast = Broadcast<Int>(replayLimit: 1)
        let task = Task {
            for await _ in broadcast.subscribe() {}
        }
        task.cancel()
        await task.value
        broadcast.publish(1)
        broadcast.finish()
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
