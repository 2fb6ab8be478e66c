/// Which downloads run: a queue with an overall limit, a limit per host, limits per group, and
/// priorities.
///
/// A plain value, driven by the manager: each input returns the downloads that may start now
/// (and, when limits shrink, those that must stop and queue again). Within a priority, downloads
/// start in the order they were queued. Every operation on one download is O(log n): queued
/// downloads wait in lanes (a host's downloads outside any group, or one group's downloads on a
/// host: ``HostQueues``), and a heap of the lanes that have both queued downloads and a free slot
/// (of their host, and of their group) gives the next download to start. A lane held back by its
/// group's limit holds back no other lane: the limits apply together and none starves the others.
/// A change of a host's or a group's count refreshes that host's or group's lanes (one lane per
/// host without groups).
struct Scheduler<ID: Hashable> {
    struct Limits: Equatable, Sendable {
        /// Downloads running at once, in all; 0 holds the queue.
        var overall: Int
        /// Downloads running at once to one host; 0 holds the queue.
        var perHost: Int
    }

    typealias Rank = SchedulerRank
    typealias Lane = SchedulerLane

    private struct Running {
        var host: String
        var rank: Rank
        /// Its group; 0 outside any group.
        var group: Int
    }

    private(set) var limits: Limits
    private var nextSequence: UInt64 = 0
    private var queues = HostQueues<ID, Lane>()
    /// Lanes with queued downloads and a free slot, by the rank of their first queued download.
    private var readyLanes = IndexedHeap<Lane, Rank>()
    private var running: [ID: Running] = [:]
    /// Slots taken per host: running downloads and their extra connections.
    private var runningPerHost: [String: Int] = [:]
    /// Extra connections of running downloads (a file over several connections), each taking a
    /// slot of the limits as a download does.
    private var extras: [ID: Int] = [:]
    private var extraCount = 0
    /// The limits of the groups that have one: downloads of the group running at once.
    private var groupLimits: [Int: Int] = [:]
    /// Running downloads per group (extra connections do not count).
    private var runningPerGroup: [Int: Int] = [:]
    /// The groups with queued downloads on each host, and the hosts of each group's.
    private var groupsOnHost: [String: Set<Int>] = [:]
    private var hostsOfGroup: [Int: Set<String>] = [:]

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

    func runningCount(inGroup group: Int) -> Int {
        runningPerGroup[group, default: 0]
    }

    /// Queues `id` for `host` (at the end of its priority), in `group` (0: none). Returns the
    /// downloads to start.
    mutating func enqueue(_ id: ID, host: String, priority: Int, group: Int = 0) -> [ID] {
        guard running[id] == nil, !queues.contains(id) else { return [] }
        nextSequence += 1
        queue(id, in: Lane(host: host, group: group), rank: Rank(priority: priority, sequence: nextSequence))
        return startEligible()
    }

    /// Counts `id` as running although no slot was given to it (a task the system ran on its own,
    /// adopted after a relaunch): it may take the download count over the limits for a while.
    mutating func admit(_ id: ID, host: String, priority: Int, group: Int = 0) {
        guard running[id] == nil else { return }
        if queues.contains(id) { _ = remove(id) }
        nextSequence += 1
        run(id, Running(host: host, rank: Rank(priority: priority, sequence: nextSequence), group: group))
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
        refresh(host: entry.host)
        return granted
    }

    /// Download `id` gives its extra connections back. Returns the downloads to start.
    mutating func giveBack(_ id: ID) -> [ID] {
        guard let entry = running[id], releaseExtras(id, host: entry.host) else { return [] }
        refresh(host: entry.host)
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
        if running[id] != nil {
            stopRunning(id)
        } else if let lane = queues.remove(id) {
            laneChanged(lane)
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
        } else if let lane = queues.host(of: id), var rank = queues.rank(of: id) {
            rank.priority = priority
            queues.update(id, host: lane, rank: rank)
            refresh(lane)
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
            while runningPerHost[host, default: 0] > limits.perHost,
                let id = lowestRunning(where: { $0.host == host })
            {
                stopped.append(requeue(id))
            }
        }
        while occupiedCount > limits.overall, let id = lowestRunning(where: { _ in true }) {
            stopped.append(requeue(id))
        }
        for lane in Array(queues.hosts) {
            refresh(lane)
        }
        return (startEligible(), stopped)
    }

    /// Limits the downloads of `group` running at once to `limit` (nil: no limit of its own; 0
    /// holds the group), at once: they start if they now may; if the limit shrank, the group's
    /// lowest-ranked running downloads go back to the queue (at their old place) and are returned
    /// in `stop`.
    mutating func setLimit(ofGroup group: Int, to limit: Int?) -> (start: [ID], stop: [ID]) {
        precondition(group != 0, "group 0 is the downloads outside any group")
        groupLimits[group] = limit.map { max(0, $0) }
        var stopped: [ID] = []
        while let limit = groupLimits[group], runningPerGroup[group, default: 0] > limit,
            let id = lowestRunning(where: { $0.group == group })
        {
            stopped.append(requeue(id))
        }
        refresh(group: group)
        return (startEligible(), stopped)
    }

    /// Forgets the limit of `group`, which has no download left.
    mutating func removeGroup(_ group: Int) {
        groupLimits[group] = nil
    }

    // MARK: - Private

    private mutating func queue(_ id: ID, in lane: Lane, rank: Rank) {
        queues.update(id, host: lane, rank: rank)
        if lane.group != 0 {
            groupsOnHost[lane.host, default: []].insert(lane.group)
            hostsOfGroup[lane.group, default: []].insert(lane.host)
        }
        refresh(lane)
    }

    private mutating func run(_ id: ID, _ entry: Running) {
        running[id] = entry
        runningPerHost[entry.host, default: 0] += 1
        if entry.group != 0 { runningPerGroup[entry.group, default: 0] += 1 }
        refresh(host: entry.host)
        refresh(group: entry.group)
    }

    private mutating func stopRunning(_ id: ID) {
        guard let entry = running.removeValue(forKey: id) else { return }
        _ = releaseExtras(id, host: entry.host)
        runningPerHost[entry.host, default: 1] -= 1
        if runningPerHost[entry.host] == 0 { runningPerHost[entry.host] = nil }
        if entry.group != 0 {
            runningPerGroup[entry.group, default: 1] -= 1
            if runningPerGroup[entry.group] == 0 { runningPerGroup[entry.group] = nil }
        }
        refresh(host: entry.host)
        refresh(group: entry.group)
    }

    private mutating func requeue(_ id: ID) -> ID {
        guard let entry = running[id] else { return id }
        stopRunning(id)
        queue(id, in: Lane(host: entry.host, group: entry.group), rank: entry.rank)
        return id
    }

    private func lowestRunning(where isCandidate: (Running) -> Bool) -> ID? {
        running.filter { isCandidate($0.value) }.max { $0.value.rank < $1.value.rank }?.key
    }

    /// A download left `lane`'s queue: forgets a group's lane that emptied, and refreshes it.
    private mutating func laneChanged(_ lane: Lane) {
        if lane.group != 0, queues.firstRank(on: lane) == nil {
            groupsOnHost[lane.host]?.remove(lane.group)
            if groupsOnHost[lane.host]?.isEmpty == true { groupsOnHost[lane.host] = nil }
            hostsOfGroup[lane.group]?.remove(lane.host)
            if hostsOfGroup[lane.group]?.isEmpty == true { hostsOfGroup[lane.group] = nil }
        }
        refresh(lane)
    }

    /// Refreshes every lane of `host`: its count changed.
    private mutating func refresh(host: String) {
        refresh(Lane(host: host, group: 0))
        if let groups = groupsOnHost[host] {
            for group in groups { refresh(Lane(host: host, group: group)) }
        }
    }

    /// Refreshes every lane of `group`: its count or its limit changed.
    private mutating func refresh(group: Int) {
        guard group != 0, let hosts = hostsOfGroup[group] else { return }
        for host in hosts { refresh(Lane(host: host, group: group)) }
    }

    /// Keeps `lane` among the ready lanes exactly when it has queued downloads and a free slot of
    /// its host and of its group.
    private mutating func refresh(_ lane: Lane) {
        if let first = queues.firstRank(on: lane), runningPerHost[lane.host, default: 0] < limits.perHost,
            lane.group == 0 || runningPerGroup[lane.group, default: 0] < groupLimits[lane.group] ?? .max
        {
            readyLanes.update(first, for: lane)
        } else {
            readyLanes.remove(lane)
        }
    }

    private mutating func startEligible() -> [ID] {
        var started: [ID] = []
        while occupiedCount < limits.overall, let lane = readyLanes.first?.key,
            let (id, rank) = queues.popFirst(on: lane)
        {
            if lane.group != 0, queues.firstRank(on: lane) == nil { laneChanged(lane) }
            run(id, Running(host: lane.host, rank: rank, group: lane.group))
            started.append(id)
        }
        return started
    }

    private static func valid(_ limits: Limits) -> Limits {
        Limits(overall: max(0, limits.overall), perHost: max(0, limits.perHost))
    }
}
