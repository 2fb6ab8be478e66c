/// Which downloads run: a queue with an overall limit, a limit per host, and priorities.
///
/// A plain value, driven by the manager: each input returns the downloads that may start now
/// (and, when limits shrink, those that must stop and queue again). Within a priority, downloads
/// start in the order they were queued. Every operation on one download is O(log n): each host
/// keeps a heap of its queued downloads (``HostQueues``), and a heap of the hosts that have both
/// queued downloads and a free slot gives the next download to start.
struct Scheduler<ID: Hashable> {
    struct Limits: Equatable, Sendable {
        /// Downloads running at once, in all; 0 holds the queue.
        var overall: Int
        /// Downloads running at once to one host; 0 holds the queue.
        var perHost: Int
    }

    typealias Rank = SchedulerRank

    private struct Running {
        var host: String
        var rank: Rank
    }

    private(set) var limits: Limits
    private var nextSequence: UInt64 = 0
    private var queues = HostQueues<ID>()
    /// Hosts with queued downloads and a free slot, by the rank of their first queued download.
    private var readyHosts = IndexedHeap<String, Rank>()
    private var running: [ID: Running] = [:]
    /// Slots taken per host: running downloads and their extra connections.
    private var runningPerHost: [String: Int] = [:]
    /// Extra connections of running downloads (a file over several connections), each taking a
    /// slot of the limits as a download does.
    private var extras: [ID: Int] = [:]
    private var extraCount = 0

    init(limits: Limits) {
        self.limits = Self.valid(limits)
    }

    var runningCount: Int { running.count }
    /// Slots taken in all: running downloads and their extra connections.
    var occupiedCount: Int { running.count + extraCount }
    var queuedCount: Int { queues.count }

    func isRunning(_ id: ID) -> Bool { running[id] != nil }
    /// The running entries, in no order.
    var runningIDs: [ID] { Array(running.keys) }
    func isQueued(_ id: ID) -> Bool { queues.contains(id) }

    func runningCount(on host: String) -> Int {
        runningPerHost[host, default: 0]
    }

    /// Queues `id` for `host` (at the end of its priority). Returns the downloads to start.
    mutating func enqueue(_ id: ID, host: String, priority: Int) -> [ID] {
        guard running[id] == nil, !queues.contains(id) else { return [] }
        nextSequence += 1
        queue(id, host: host, rank: Rank(priority: priority, sequence: nextSequence))
        return startEligible()
    }

    /// Counts `id` as running although no slot was given to it (a task the system ran on its own,
    /// adopted after a relaunch): it may take the download count over the limits for a while.
    mutating func admit(_ id: ID, host: String, priority: Int) {
        guard running[id] == nil else { return }
        if queues.contains(id) { _ = remove(id) }
        nextSequence += 1
        running[id] = Running(host: host, rank: Rank(priority: priority, sequence: nextSequence))
        runningPerHost[host, default: 0] += 1
        refresh(host)
    }

    /// The priority `id` was queued or runs with.
    func priority(of id: ID) -> Int? {
        if let entry = running[id] { return entry.rank.priority }
        return queues.rank(of: id)?.priority
    }

    /// Gives running download `id` up to `count` extra connections, each taking a free slot of the
    /// overall and per-host limits (queued downloads took theirs first). Returns how many.
    mutating func borrow(_ id: ID, upTo count: Int) -> Int {
        guard let entry = running[id], count > 0 else { return 0 }
        let free = min(limits.overall - occupiedCount, limits.perHost - runningPerHost[entry.host, default: 0])
        let granted = max(0, min(count, free))
        guard granted > 0 else { return 0 }
        extras[id, default: 0] += granted
        extraCount += granted
        runningPerHost[entry.host, default: 0] += granted
        refresh(entry.host)
        return granted
    }

    /// Download `id` gives its extra connections back. Returns the downloads to start.
    mutating func giveBack(_ id: ID) -> [ID] {
        guard let entry = running[id], releaseExtras(id, host: entry.host) else { return [] }
        refresh(entry.host)
        return startEligible()
    }

    /// Extra connections held by `id`.
    func extraConnections(of id: ID) -> Int { extras[id, default: 0] }

    private mutating func releaseExtras(_ id: ID, host: String) -> Bool {
        guard let count = extras.removeValue(forKey: id) else { return false }
        extraCount -= count
        runningPerHost[host, default: count] -= count
        if runningPerHost[host] == 0 { runningPerHost[host] = nil }
        return true
    }

    /// Takes `id` out, queued or running (it paused, failed, completed or was cancelled).
    /// Returns the downloads to start in its place.
    mutating func remove(_ id: ID) -> [ID] {
        if let entry = running[id] {
            _ = releaseExtras(id, host: entry.host)
            running[id] = nil
            runningPerHost[entry.host, default: 1] -= 1
            if runningPerHost[entry.host] == 0 { runningPerHost[entry.host] = nil }
            refresh(entry.host)
        } else if let host = queues.remove(id) {
            refresh(host)
        } else {
            return []
        }
        return startEligible()
    }

    /// Changes the priority of a queued or running download. A queued one keeps its place among
    /// those queued before it at its new priority.
    mutating func setPriority(_ id: ID, to priority: Int) -> [ID] {
        if var entry = running[id] {
            entry.rank.priority = priority
            running[id] = entry
        } else if let host = queues.host(of: id), var rank = queues.rank(of: id) {
            rank.priority = priority
            queues.update(id, host: host, rank: rank)
            refresh(host)
        }
        return startEligible()
    }

    /// Changes the limits at once: downloads start if they now may; if the limits shrank, extra
    /// connections stop counting first, then the lowest-ranked running downloads go back to the
    /// queue (at their old place) and are returned in `stop`.
    mutating func setLimits(_ newLimits: Limits) -> (start: [ID], stop: [ID]) {
        limits = Self.valid(newLimits)
        var stopped: [ID] = []
        // Extra connections go first, from the lowest-ranked downloads: the slots no longer count
        // them (their downloads keep the connections they have until their attempts end), and no
        // download stops for them.
        for (id, entry) in running.sorted(by: { $0.value.rank > $1.value.rank }) where extras[id] != nil {
            let isOver = occupiedCount > limits.overall || runningPerHost[entry.host, default: 0] > limits.perHost
            guard isOver else { continue }
            _ = releaseExtras(id, host: entry.host)
        }
        // Per host first, then overall; few downloads run at once, so a scan of them is cheap.
        for host in runningPerHost.keys {
            while runningPerHost[host, default: 0] > limits.perHost, let id = lowestRunning(on: host) {
                stopped.append(requeue(id))
            }
        }
        while occupiedCount > limits.overall, let id = lowestRunning(on: nil) {
            stopped.append(requeue(id))
        }
        for host in Array(queues.hosts) {
            refresh(host)
        }
        return (startEligible(), stopped)
    }

    // MARK: - Private

    private mutating func queue(_ id: ID, host: String, rank: Rank) {
        queues.update(id, host: host, rank: rank)
        refresh(host)
    }

    private mutating func requeue(_ id: ID) -> ID {
        guard let entry = running[id] else { return id }
        _ = releaseExtras(id, host: entry.host)
        running[id] = nil
        runningPerHost[entry.host, default: 1] -= 1
        if runningPerHost[entry.host] == 0 { runningPerHost[entry.host] = nil }
        queue(id, host: entry.host, rank: entry.rank)
        return id
    }

    private func lowestRunning(on host: String?) -> ID? {
        running.filter { host == nil || $0.value.host == host }
            .max { $0.value.rank < $1.value.rank }?.key
    }

    /// Keeps `host` among the ready hosts exactly when it has queued downloads and a free slot.
    private mutating func refresh(_ host: String) {
        if let first = queues.firstRank(on: host), runningPerHost[host, default: 0] < limits.perHost {
            readyHosts.update(first, for: host)
        } else {
            readyHosts.remove(host)
        }
    }

    private mutating func startEligible() -> [ID] {
        var started: [ID] = []
        while occupiedCount < limits.overall, let host = readyHosts.first?.key,
            let (id, rank) = queues.popFirst(on: host)
        {
            running[id] = Running(host: host, rank: rank)
            runningPerHost[host, default: 0] += 1
            refresh(host)
            started.append(id)
        }
        return started
    }

    private static func valid(_ limits: Limits) -> Limits {
        Limits(overall: max(0, limits.overall), perHost: max(0, limits.perHost))
    }
}

/// The order of queued downloads: `a < b` when `a` starts first (higher priority, then queued
/// first).
struct SchedulerRank: Comparable, Sendable {
    var priority: Int
    var sequence: UInt64

    static func < (a: SchedulerRank, b: SchedulerRank) -> Bool {
        a.priority != b.priority ? a.priority > b.priority : a.sequence < b.sequence
    }
}
