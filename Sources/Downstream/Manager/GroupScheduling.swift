/// The manager's groups as its scheduler sees them: each group's limit and priority, and which
/// group each download is in. Groups are numbered from 1; 0 is the downloads outside any group.
///
/// A group's priority orders its downloads among the manager's others; within the group, their
/// own priorities order them. The scheduler gets both as one number
/// (``schedulerPriority(_:inGroup:)``).
struct GroupScheduling {
    /// What a group says about scheduling its downloads.
    struct Settings: Sendable, Equatable {
        /// Downloads of the group running at once; nil: only the manager's limits.
        var maximumConcurrentDownloads: Int?
        /// The priority of the group's downloads among the others; nil: their own.
        var priority: DownloadRequest.Priority?
    }

    private var settings: [Int: Settings] = [:]
    private var groups: [DownloadID: Int] = [:]
    private var lastGroup = 0

    /// A new group with `settings`: returns its number.
    mutating func makeGroup(_ settings: Settings) -> Int {
        lastGroup += 1
        self.settings[lastGroup] = settings
        return lastGroup
    }

    /// The group of download `id`; 0 if it is in none.
    func group(of id: DownloadID) -> Int {
        // Most managers have no group: no hashing of the identifier then.
        groups.isEmpty ? 0 : groups[id] ?? 0
    }

    /// Puts download `id` in `group`, unless it is in one already (a request that joined a
    /// download of another group's).
    mutating func add(_ id: DownloadID, to group: Int) {
        if groups[id] == nil { groups[id] = group }
    }

    /// Download `id` ended: it needs no slot again.
    mutating func remove(_ id: DownloadID) {
        if !groups.isEmpty { groups[id] = nil }
    }

    func settings(of group: Int) -> Settings? {
        settings[group]
    }

    mutating func set(_ newSettings: Settings, of group: Int) {
        settings[group] = newSettings
    }

    /// The scheduler's priority of a download of priority `own` in `group` (0: none): the group's
    /// priority (else its own) first, then its own.
    func schedulerPriority(_ own: DownloadRequest.Priority, inGroup group: Int) -> Int {
        let first = group == 0 ? own : settings[group]?.priority ?? own
        return first.value * 256 + own.value + 128
    }
}
