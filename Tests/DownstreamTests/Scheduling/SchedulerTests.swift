import Testing

@testable import Downstream

@Suite struct SchedulerTests {
    typealias Limits = Scheduler<Int>.Limits

    @Test func startsUpToTheOverallLimitInQueueOrder() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 2, perHost: 10))
        #expect(scheduler.enqueue(1, host: "a", priority: 0) == [1])
        #expect(scheduler.enqueue(2, host: "b", priority: 0) == [2])
        #expect(scheduler.enqueue(3, host: "c", priority: 0) == [])
        #expect(scheduler.enqueue(4, host: "d", priority: 0) == [])
        #expect(scheduler.remove(1) == [3])
        #expect(scheduler.remove(2) == [4])
    }

    @Test func keepsToThePerHostLimit() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 10, perHost: 2))
        #expect(scheduler.enqueue(1, host: "a", priority: 0) == [1])
        #expect(scheduler.enqueue(2, host: "a", priority: 0) == [2])
        #expect(scheduler.enqueue(3, host: "a", priority: 0) == [])
        // Another host is not held back by the first.
        #expect(scheduler.enqueue(4, host: "b", priority: 0) == [4])
        #expect(scheduler.runningCount(on: "a") == 2)
        #expect(scheduler.remove(2) == [3])
    }

    @Test func higherPrioritiesStartFirstAndFIFOWithinAPriority() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 1, perHost: 1))
        #expect(scheduler.enqueue(0, host: "h", priority: 0) == [0])
        _ = scheduler.enqueue(1, host: "h", priority: 0)
        _ = scheduler.enqueue(2, host: "h", priority: -1)
        _ = scheduler.enqueue(3, host: "h", priority: 1)
        _ = scheduler.enqueue(4, host: "h", priority: 0)
        _ = scheduler.enqueue(5, host: "h", priority: 1)
        var order: [Int] = []
        var current = 0
        for _ in 0..<5 {
            let started = scheduler.remove(current)
            order += started
            current = started.first ?? -1
        }
        #expect(order == [3, 5, 1, 4, 2])
    }

    @Test func reprioritisingAQueuedDownloadMovesIt() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 1, perHost: 1))
        _ = scheduler.enqueue(0, host: "h", priority: 0)
        _ = scheduler.enqueue(1, host: "h", priority: 0)
        _ = scheduler.enqueue(2, host: "h", priority: 0)
        #expect(scheduler.setPriority(2, to: 1) == [])
        #expect(scheduler.remove(0) == [2])
        // A running download's new priority decides which one stops first if limits shrink.
        #expect(scheduler.setPriority(2, to: -5) == [])
        #expect(scheduler.isRunning(2))
    }

    @Test func aRemovedDownloadGivesItsSlotUp() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 1, perHost: 1))
        _ = scheduler.enqueue(1, host: "h", priority: 0)
        _ = scheduler.enqueue(2, host: "h", priority: 0)
        // A queued download that pauses simply leaves the queue.
        _ = scheduler.enqueue(3, host: "h", priority: 0)
        #expect(scheduler.remove(3) == [])
        #expect(scheduler.remove(1) == [2])
        #expect(scheduler.remove(42) == [])
        #expect(scheduler.queuedCount == 0)
    }

    @Test func raisingLimitsStartsMoreAtOnce() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 1, perHost: 1))
        for id in 0..<5 { _ = scheduler.enqueue(id, host: id < 3 ? "a" : "b", priority: 0) }
        #expect(scheduler.runningCount == 1)
        let (started, stopped) = scheduler.setLimits(Limits(overall: 4, perHost: 2))
        #expect(Set(started) == [1, 3, 4])
        #expect(stopped.isEmpty)
    }

    @Test func aLimitOfZeroHoldsTheQueue() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 0, perHost: 4))
        for id in 0..<3 { #expect(scheduler.enqueue(id, host: "h", priority: 0).isEmpty) }
        #expect(scheduler.runningCount == 0)
        #expect(scheduler.setLimits(Limits(overall: 2, perHost: 4)) == ([0, 1], []))
        // Back to 0: the running ones wait again, ahead of the one that never started.
        let (started, stopped) = scheduler.setLimits(Limits(overall: 2, perHost: 0))
        #expect(started.isEmpty && Set(stopped) == [0, 1])
        #expect(scheduler.runningCount == 0 && scheduler.queuedCount == 3)
        #expect(scheduler.setLimits(Limits(overall: 1, perHost: 1)) == ([0], []))
    }

    @Test func loweringLimitsStopsTheLowestRankedAndQueuesThemFirst() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 3, perHost: 3))
        _ = scheduler.enqueue(1, host: "h", priority: 1)
        _ = scheduler.enqueue(2, host: "h", priority: 0)
        _ = scheduler.enqueue(3, host: "h", priority: 0)
        _ = scheduler.enqueue(4, host: "h", priority: 0)
        let (started, stopped) = scheduler.setLimits(Limits(overall: 1, perHost: 3))
        #expect(started.isEmpty)
        #expect(stopped == [3, 2])
        #expect(scheduler.isRunning(1))
        // The stopped ones kept their place ahead of the one that never started.
        #expect(scheduler.remove(1) == [2])
        #expect(scheduler.remove(2) == [3])
        #expect(scheduler.remove(3) == [4])
    }

    /// Long random sequences keep the invariants: the limits are never exceeded, nothing that may
    /// run waits, and whatever starts is the best-ranked download that may.
    @Test func randomOperationsKeepTheInvariants() {
        for _ in 0..<200 {
            var limits = Limits(overall: Int.random(in: 0...6), perHost: Int.random(in: 0...4))
            var scheduler = Scheduler<Int>(limits: limits)
            var hosts: [Int: String] = [:]
            var priorities: [Int: Int] = [:]
            var running: Set<Int> = []
            var queued: [Int: UInt64] = [:]  // id → order of queueing, for FIFO checks
            var clock: UInt64 = 0
            for step in 0..<300 {
                var started: [Int] = []
                var stopped: [Int] = []
                let id = Int.random(in: 0..<40)
                switch Int.random(in: 0..<10) {
                case 0...3:
                    guard hosts[id] == nil || (!running.contains(id) && queued[id] == nil) else { continue }
                    hosts[id] = ["a", "b", "c"].randomElement()!
                    priorities[id] = Int.random(in: -1...1)
                    clock += 1
                    queued[id] = clock
                    started = scheduler.enqueue(id, host: hosts[id]!, priority: priorities[id]!)
                case 4...6:
                    running.remove(id)
                    queued[id] = nil
                    started = scheduler.remove(id)
                case 7, 8:
                    guard running.contains(id) || queued[id] != nil else { continue }
                    priorities[id] = Int.random(in: -1...1)
                    started = scheduler.setPriority(id, to: priorities[id]!)
                default:
                    guard step % 5 == 0 else { continue }
                    limits = Limits(overall: Int.random(in: 0...6), perHost: Int.random(in: 0...4))
                    (started, stopped) = scheduler.setLimits(limits)
                }
                for id in stopped {
                    #expect(running.remove(id) != nil)
                    queued[id] = 0  // back at the front of its priority
                }
                for id in started {
                    // Each started download is the best one that may start.
                    let eligible = queued.keys.filter { candidate in
                        let host = hosts[candidate]!
                        return running.filter { hosts[$0] == host }.count < limits.perHost
                    }
                    let best = eligible.min { a, b in
                        (priorities[a]!, queued[a]!) != (priorities[b]!, queued[b]!)
                            && (priorities[a]! > priorities[b]!
                                || (priorities[a]! == priorities[b]! && queued[a]! < queued[b]!))
                    }
                    #expect(
                        priorities[id] == best.flatMap { priorities[$0] },
                        "started \(id), best was \(String(describing: best))")
                    queued[id] = nil
                    running.insert(id)
                }
                #expect(running.count <= limits.overall)
                for host in ["a", "b", "c"] {
                    #expect(running.filter { hosts[$0] == host }.count <= limits.perHost)
                }
                // Work-conserving: a free slot never leaves a download that may run waiting.
                if running.count < limits.overall {
                    for id in queued.keys {
                        #expect(running.filter { hosts[$0] == hosts[id] }.count >= limits.perHost)
                    }
                }
                #expect(scheduler.runningCount == running.count)
                #expect(scheduler.queuedCount == queued.count)
            }
        }
    }

    @Test func extraConnectionsTakeFreeSlotsAndGiveThemBack() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 6, perHost: 4))
        #expect(scheduler.enqueue(1, host: "a", priority: 0) == [1])
        // A file over 8 connections gets what the host's limit leaves: 3 more.
        #expect(scheduler.borrow(1, upTo: 7) == 3)
        #expect(scheduler.runningCount(on: "a") == 4)
        #expect(scheduler.enqueue(2, host: "a", priority: 0) == [])
        #expect(scheduler.enqueue(3, host: "b", priority: 0) == [3])
        // Overall: 1 + 3 + 1 of 6: one more for download 3, none left for download 1.
        #expect(scheduler.borrow(3, upTo: 4) == 1)
        #expect(scheduler.occupiedCount == 6)
        #expect(scheduler.borrow(1, upTo: 1) == 0)
        // Giving the connections back starts the download that waited for them.
        #expect(scheduler.giveBack(1) == [2])
        #expect(scheduler.extraConnections(of: 1) == 0)
        #expect(scheduler.runningCount(on: "a") == 2)
        // A download that ends gives its extra connections back with its slot.
        #expect(scheduler.enqueue(4, host: "c", priority: 0) == [4])
        #expect(scheduler.occupiedCount == 5)
        #expect(scheduler.remove(3) == [])
        #expect(scheduler.occupiedCount == 3)
        #expect(scheduler.borrow(5, upTo: 1) == 0, "only a running download borrows")
    }

    @Test func shrinkingLimitsStopCountingExtraConnectionsBeforeStoppingDownloads() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 6, perHost: 6))
        #expect(scheduler.enqueue(1, host: "a", priority: 1) == [1])
        #expect(scheduler.enqueue(2, host: "a", priority: 0) == [2])
        #expect(scheduler.borrow(2, upTo: 3) == 3)
        #expect(scheduler.occupiedCount == 5)
        // A limit of 4: download 2's connections stop counting; no download stops.
        let (start, stop) = scheduler.setLimits(Limits(overall: 4, perHost: 6))
        #expect(stop.isEmpty)
        #expect(start.isEmpty)
        #expect(scheduler.occupiedCount == 2)
        #expect(scheduler.extraConnections(of: 2) == 0)
        // A limit of 1 then stops the lower-priority download.
        #expect(scheduler.setLimits(Limits(overall: 1, perHost: 6)).stop == [2])
    }
}
