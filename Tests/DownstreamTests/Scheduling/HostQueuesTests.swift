import Testing

@testable import Downstream

@Suite struct HostQueuesTests {
    private func rank(_ priority: Int, _ sequence: UInt64) -> SchedulerRank {
        SchedulerRank(priority: priority, sequence: sequence)
    }

    @Test func eachHostGivesItsDownloadsInRankOrder() {
        var queues = HostQueues<Int, String>()
        queues.update(1, host: "a", rank: rank(0, 1))
        queues.update(2, host: "b", rank: rank(0, 2))
        queues.update(3, host: "a", rank: rank(5, 3))
        queues.update(4, host: "a", rank: rank(0, 4))
        #expect(queues.count == 4)
        #expect(queues.host(of: 2) == "b")
        #expect(queues.firstRank(on: "a") == rank(5, 3))
        #expect(queues.popFirst(on: "a")?.id == 3)
        #expect(queues.popFirst(on: "a")?.id == 1)
        #expect(queues.popFirst(on: "a")?.id == 4)
        #expect(queues.popFirst(on: "a") == nil)
        #expect(Set(queues.hosts) == ["b"])
        #expect(queues.count == 1)
    }

    @Test func reRanksAndRemovesByID() {
        var queues = HostQueues<Int, String>()
        for id in 1...5 { queues.update(id, host: "h", rank: rank(0, UInt64(id))) }
        queues.update(5, host: "h", rank: rank(1, 5))
        #expect(queues.firstRank(on: "h") == rank(1, 5))
        #expect(queues.remove(5) == "h")
        #expect(queues.remove(5) == nil)
        #expect(!queues.contains(5))
        #expect(queues.rank(of: 3) == rank(0, 3))
        #expect(queues.popFirst(on: "h")?.id == 1)
    }

    @Test func aHostWhoseQueueEmptiedGetsANewOne() {
        var queues = HostQueues<Int, String>()
        queues.update(1, host: "a", rank: rank(0, 1))
        queues.update(2, host: "b", rank: rank(0, 2))
        queues.remove(1)
        // "c" takes the number "a" had; nothing of "a" must show through.
        queues.update(3, host: "c", rank: rank(0, 3))
        #expect(queues.host(of: 3) == "c")
        #expect(queues.firstRank(on: "a") == nil)
        queues.update(4, host: "a", rank: rank(0, 4))
        #expect(queues.host(of: 4) == "a")
        #expect(Set(queues.hosts) == ["a", "b", "c"])
    }

    /// Random operations on many hosts, against a reference sorted by brute force.
    @Test func randomOperationsMatchAReference() {
        var queues = HostQueues<Int, String>()
        var reference: [Int: (host: String, rank: SchedulerRank)] = [:]
        var random = SplitMix64(seed: 42)
        var sequence: UInt64 = 0
        for _ in 0..<20_000 {
            let id = Int(random.next() % 300)
            let host = "h\(random.next() % 7)"
            switch random.next() % 5 {
            case 0, 1:
                sequence += 1
                let newRank = rank(Int(random.next() % 3), sequence)
                let queuedHost = reference[id]?.host ?? host
                queues.update(id, host: queuedHost, rank: newRank)
                reference[id] = (queuedHost, newRank)
            case 2:
                #expect(queues.remove(id) == reference.removeValue(forKey: id)?.host)
            case 3:
                let expected = reference.filter { $0.value.host == host }.min { $0.value.rank < $1.value.rank }
                let popped = queues.popFirst(on: host)
                #expect(popped?.id == expected?.key)
                if let expected { reference[expected.key] = nil }
            default:
                #expect(queues.rank(of: id) == reference[id]?.rank)
            }
            #expect(queues.count == reference.count)
        }
        #expect(Set(queues.hosts) == Set(reference.values.map(\.host)))
    }
}
