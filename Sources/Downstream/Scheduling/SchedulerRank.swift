/// Where a queued download waits: its host's lane, or its group's on its host (`group` 0: none).
struct SchedulerLane: Hashable, Sendable {
    var host: String
    var group: Int
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
