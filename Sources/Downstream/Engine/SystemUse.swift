/// When a manager's downloads use its system (background) session: the manager's setting, and
/// whether the app is in front now, which the manager sets as the app comes and goes.
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

    /// Whether attempts that start now may run as system tasks, and whether such a task may
    /// continue bytes that a ranged request wrote.
    func ability(supportsResumeData: Bool) -> EngineChoice.SystemSessionAbility? {
        Self.ability(policy: policy, isInForeground: isInForeground, supportsResumeData: supportsResumeData)
    }

    /// The pure rule behind ``ability(supportsResumeData:)``.
    static func ability(
        policy: Policy, isInForeground: Bool, supportsResumeData: Bool
    ) -> EngineChoice.SystemSessionAbility? {
        switch policy {
        case .always:
            EngineChoice.SystemSessionAbility(supportsResumeData: supportsResumeData)
        case .handoff where !isInForeground:
            EngineChoice.SystemSessionAbility(supportsResumeData: supportsResumeData, continuesBytesOnDisk: true)
        case .handoff, .never:
            nil
        }
    }
}
