import Testing

@testable import Downstream

/// Limits of groups in the scheduler, together with the overall and per-host limits.
@Suite struct SchedulerGroupTests {
    typealias Limits = Scheduler<Int>.Limits

    @Test func aGroupAtItsLimitHoldsBackNoOtherDownload() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 10, perHost: 10))
        #expect(scheduler.setLimit(ofGroup: 1, to: 2).start.isEmpty)
        for id in 1...5 {
            _ = scheduler.enqueue(id, host: "a", priority: 1, group: 1)
        }
        #expect(scheduler.runningCount(inGroup: 1) == 2)
        // Queued after the group's, at a lower priority, on the same host: starts at once.
        #expect(scheduler.enqueue(10, host: "a", priority: 0) == [10])
        #expect(scheduler.remove(1) == [3])
        #expect(scheduler.runningCount(inGroup: 1) == 2)
    }

    @Test func aGroupLimitSpansHosts() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 10, perHost: 2))
        _ = scheduler.setLimit(ofGroup: 7, to: 3)
        var started: [Int] = []
        for id in 1...8 {
            started += scheduler.enqueue(id, host: id.isMultiple(of: 2) ? "a" : "b", priority: 0, group: 7)
        }
        #expect(started == [1, 2, 3])
        #expect(scheduler.runningCount(on: "a") + scheduler.runningCount(on: "b") == 3)
    }

    @Test func raisingAGroupLimitStartsMoreAndLoweringItStopsTheLowestRanked() {
        var scheduler = Scheduler<Int>(limits: Limits(overall: 10, perHost: 10))
        _ = scheduler.setLimit(ofGroup: 1, to: 1)
        for id in 1...4 {
            _ = scheduler.enqueue(id, host: "a", priority: id == 4 ? 1 : 0, group: 1)
        }
        #expect(scheduler.isRunning(1))
        #expect(scheduler.setLimit(ofGroup: 1, to: 3).start == [4, 2])
        let (start, stop) = scheduler.setLimit(ofGroup: 1, to: 1)
        #expect(start == [])
        #expect(stop == [2, 1])
        #expect(scheduler.isRunning(4))
        #expect(scheduler.setLimit(ofGroup: 1, to: nil).start == [1, 2, 3])
    }

    /// Random queues, limits and ends, checked after every step: no limit is ever exceeded, and
    /// no download waits while every limit it is under has room (nothing starves).
    @Test(arguments: [1, 2, 3, 4, 5])
    func theLimitsHoldTogetherAndNothingWaitsWithRoomToRun(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let hosts = ["a", "b", "c"]
        var limits = Limits(overall: 6, perHost: 3)
        var groupLimits: [Int: Int] = [1: 2, 2: 4]
        var scheduler = Scheduler<Int>(limits: limits)
        for (group, limit) in groupLimits { _ = scheduler.setLimit(ofGroup: group, to: limit) }
        var places: [Int: (host: String, group: Int)] = [:]
        var running: Set<Int> = []
        var queued: Set<Int> = []
        var nextID = 0
        for _ in 0..<3_000 {
            var started: [Int] = []
            var stopped: [Int] = []
            switch random.next() % 10 {
            case 0..<5:
                nextID += 1
                let place = (hosts[Int(random.next() % 3)], Int(random.next() % 3))
                places[nextID] = place
                queued.insert(nextID)
                started = scheduler.enqueue(
                    nextID, host: place.0, priority: Int(random.next() % 3), group: place.1)
            case 5..<8:
                guard let id = running.randomElement(using: &random) else { continue }
                running.remove(id)
                started = scheduler.remove(id)
            case 8:
                let group = 1 + Int(random.next() % 2)
                let limit = Int(random.next() % 5)
                groupLimits[group] = limit
                (started, stopped) = scheduler.setLimit(ofGroup: group, to: limit)
            default:
                limits = Limits(overall: Int(random.next() % 8), perHost: 1 + Int(random.next() % 4))
                (started, stopped) = scheduler.setLimits(limits)
            }
            for id in stopped {
                running.remove(id)
                queued.insert(id)
            }
            for id in started {
                #expect(queued.remove(id) != nil)
                running.insert(id)
            }
            let perHost = Dictionary(grouping: running) { places[$0]!.host }.mapValues(\.count)
            let perGroup = Dictionary(grouping: running) { places[$0]!.group }.mapValues(\.count)
            #expect(running.count <= limits.overall)
            #expect(perHost.values.allSatisfy { $0 <= limits.perHost })
            for (group, limit) in groupLimits { #expect(perGroup[group, default: 0] <= limit) }
            // Work-conserving: with room overall, no queued download has room on its host and in
            // its group.
            if running.count < limits.overall {
                let waitingWithRoom = queued.filter { id in
                    let (host, group) = places[id]!
                    return perHost[host, default: 0] < limits.perHost
                        && (group == 0 || perGroup[group, default: 0] < groupLimits[group]!)
                }
                #expect(waitingWithRoom.isEmpty)
            }
        }
    }

    @Test func aGroupsPriorityOrdersItsDownloadsAmongTheOthersAndTheirOwnWithin() {
        var groups = GroupScheduling()
        let high = groups.makeGroup(.init(priority: .high))
        let low = groups.makeGroup(.init(priority: .low))
        let plain = groups.makeGroup(.init())
        // Best first: a group's priority places its downloads with the others of that priority,
        // then their own priorities order them.
        let order = [
            groups.schedulerPriority(.high, inGroup: high),
            groups.schedulerPriority(.high, inGroup: 0),
            groups.schedulerPriority(.high, inGroup: plain),
            groups.schedulerPriority(.low, inGroup: high),
            groups.schedulerPriority(.normal, inGroup: 0),
            groups.schedulerPriority(.high, inGroup: low),
            groups.schedulerPriority(.low, inGroup: 0),
            groups.schedulerPriority(.low, inGroup: low),
        ]
        #expect(order == order.sorted(by: >))
        #expect(groups.schedulerPriority(.low, inGroup: high) > groups.schedulerPriority(.normal, inGroup: 0))
        #expect(groups.schedulerPriority(.high, inGroup: low) < groups.schedulerPriority(.normal, inGroup: 0))
        #expect(groups.schedulerPriority(.high, inGroup: 0) == groups.schedulerPriority(.high, inGroup: plain))
    }
}
