import Foundation

extension Download {
    /// What a download holds once something happens to it (it starts, is paused, resumed or
    /// cancelled, or its sources change): its machine, with the attempt it runs, the timer of a
    /// wait and the tasks waiting for it to settle; its parsed sources; the credentials it was
    /// given; what it remembers of its failures.
    ///
    /// Made at the first change. Until then the download is in its first state (queued or
    /// paused), its sources are its request's, and it holds one reference instead of these 180
    /// bytes: an app may keep 100,000 queued downloads, most of which nothing happens to for a
    /// long time.
    final class Activity {
        var machine: Machine
        /// The sources, once restored from the record, changed or used by an attempt: until
        /// then, a queued download does not parse its URL (270 bytes each on Linux).
        var parsedSources: SourceList?
        /// Credentials the authentication handler gave (`Authorization`,
        /// `Proxy-Authorization`); sent with every request of the download in this process.
        var credentials = RequestCredentials.none
        /// What the download remembers of its failures in this run, to recover from the next.
        var recoveryMemory = RecoveryMemory()
        /// Whether a batch of background events waits for this download to finish with its file.
        var holdsBackgroundWork = false

        init(machine: Machine, parsedSources: SourceList? = nil) {
            self.machine = machine
            self.parsedSources = parsedSources
        }
    }

    /// The download's machine in its first state.
    static func firstMachine(startsPaused: Bool, settings: Settings) -> Machine {
        let authentication = settings.authentication
        return Machine(
            state: startsPaused ? .paused : .queued,
            challengeLimit: authentication.handler == nil ? 0 : authentication.maximumAttempts)
    }

    /// The download's activity, made now if nothing happened to it yet.
    private var madeActivity: Activity {
        if let activity { return activity }
        let made = Activity(machine: Self.firstMachine(startsPaused: startsPaused, settings: settings))
        activity = made
        return made
    }

    /// The download's machine (see ``Activity``): read without making the activity.
    var machine: Machine {
        get { activity?.machine ?? Self.firstMachine(startsPaused: startsPaused, settings: settings) }
        _modify { yield &madeActivity.machine }
    }

    /// The URLs the file may come from, and the one in use: the record's, or else the request's
    /// and its mirrors.
    var sources: SourceList {
        get { parsedSources ?? SourceList([request.url ?? PartialLocation.noURL] + request.mirrors) }
        set { parsedSources = newValue }
    }

    /// The sources, once restored from the record, changed or used by an attempt.
    var parsedSources: SourceList? {
        get { activity?.parsedSources }
        set { madeActivity.parsedSources = newValue }
    }

    var credentials: RequestCredentials {
        get { activity?.credentials ?? .none }
        _modify { yield &madeActivity.credentials }
    }

    var recoveryMemory: RecoveryMemory {
        get { activity?.recoveryMemory ?? RecoveryMemory() }
        _modify { yield &madeActivity.recoveryMemory }
    }

    var holdsBackgroundWork: Bool {
        get { activity?.holdsBackgroundWork ?? false }
        set { madeActivity.holdsBackgroundWork = newValue }
    }
}

extension Download {
    /// Whether the download made its ``Activity``: something happened to it.
    var hasActivity: Bool { activity != nil }
}
