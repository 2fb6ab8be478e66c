/// When a manager's downloads use its system (background) session: the manager's setting,
/// whether the app is in front now, which the manager sets as the app comes and goes, and which
/// downloads the system lets run as if it were (continued processing, see
/// ``DownloadManager/beginKeepingInFront(_:)``).
///
/// Shared by the manager and its engines: the engine of each attempt is chosen with what it says
/// when the attempt starts (``EngineChoice/Facts/systemSession``).
final class SystemUse: Sendable {
    /// The manager's setting.
    enum Policy: Equatable, Sendable {
        /// Every download runs as a system task (the system's pace, no segments).
        case always
        /// The ranged engines while the app is in front; system tasks, continuing the bytes on
        /// disk, once it left the foreground.
        case handoff
        /// Never a system task: the system session only finishes tasks of earlier launches.
        case never
    }

    let policy: Policy
    private let foreground: Locked<Bool>
    /// The downloads kept in front, each with how many keepings hold it (they may overlap).
    private let kept = Locked<[DownloadID: Int]>([:])

    /// `isInForeground`: whether the app is in front when the manager is made.
    init(policy: Policy, isInForeground: Bool = true) {
        self.policy = policy
        foreground = Locked(isInForeground)
    }

    /// Whether the app is in front.
    var isInForeground: Bool {
        get { foreground.value }
        set { foreground.withLock { $0 = newValue } }
    }

    /// Lets `ids` run on the ranged engines while the app is in the background (with the handoff
    /// policy), until ``stopKeepingInFront(_:)`` is called for them as often.
    func keepInFront(_ ids: some Sequence<DownloadID>) {
        kept.withLock { kept in
            for id in ids { kept[id, default: 0] += 1 }
        }
    }

    /// Ends one keeping of `ids`; returns those no other keeping holds.
    @discardableResult
    func stopKeepingInFront(_ ids: some Sequence<DownloadID>) -> [DownloadID] {
        kept.withLock { kept in
            var released: [DownloadID] = []
            for id in ids {
                guard let count = kept[id] else { continue }
                if count > 1 {
                    kept[id] = count - 1
                } else {
                    kept[id] = nil
                    released.append(id)
                }
            }
            return released
        }
    }

    /// Whether `id` is kept in front.
    func isKeptInFront(_ id: DownloadID) -> Bool {
        kept.withLock { $0[id] != nil }
    }

    /// Whether attempts of download `id` that start now may run as system tasks, and whether
    /// such a task may continue bytes that a ranged request wrote.
    func ability(for id: DownloadID, supportsResumeData: Bool) -> EngineChoice.SystemSessionAbility? {
        Self.ability(
            policy: policy, isInForeground: isInForeground, isKeptInFront: isKeptInFront(id),
            supportsResumeData: supportsResumeData)
    }

    /// The pure rule behind ``ability(for:supportsResumeData:)``: a download kept in front is
    /// in front, whatever the app is.
    static func ability(
        policy: Policy, isInForeground: Bool, isKeptInFront: Bool = false, supportsResumeData: Bool
    ) -> EngineChoice.SystemSessionAbility? {
        switch policy {
        case .always:
            EngineChoice.SystemSessionAbility(supportsResumeData: supportsResumeData)
        case .handoff where !isInForeground && !isKeptInFront:
            EngineChoice.SystemSessionAbility(supportsResumeData: supportsResumeData, continuesBytesOnDisk: true)
        case .handoff, .never:
            nil
        }
    }
}
