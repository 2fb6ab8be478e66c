extension DownloadManager {
    /// Downloads that the system lets run while the app is in the background (iOS 26's continued
    /// processing): made by ``DownloadManager/beginKeepingInFront(_:)``, ended once by
    /// ``DownloadManager/endKeepingInFront(_:expired:)``.
    final class KeepingInFront: Sendable {
        /// The downloads kept in front.
        let ids: [DownloadID]
        private let ended = Locked(false)

        init(ids: [DownloadID]) {
            self.ids = ids
        }

        /// Marks the keeping ended; false if it was already.
        func end() -> Bool {
            ended.withLock { ended in
                defer { ended = true }
                return !ended
            }
        }
    }

    /// Keeps `downloads` in front: with the handoff mode, they go on with the ranged engine when
    /// the app leaves the foreground (``appDidEnterBackground()`` leaves them alone), and an
    /// attempt of theirs that starts while the app is in the background runs there too. For as
    /// long as the system lets the app run (a continued processing task), until
    /// ``endKeepingInFront(_:expired:)``.
    func beginKeepingInFront(_ downloads: [Download]) -> KeepingInFront {
        let keeping = KeepingInFront(ids: downloads.map(\.id))
        engines.systemUse.keepInFront(keeping.ids)
        return keeping
    }

    /// Ends `keeping` (once; a second call does nothing). When the system's time ran out
    /// (`expired`) and the app is in the background, each of its downloads still running on the
    /// ranged engine is handed to the background session, as ``appDidEnterBackground()`` does;
    /// otherwise nothing moves (a download that goes on runs on the engine of its attempt, and
    /// its next attempt takes the engine of the moment).
    func endKeepingInFront(_ keeping: KeepingInFront, expired: Bool) {
        guard keeping.end() else { return }
        let use = engines.systemUse
        let released = use.stopKeepingInFront(keeping.ids)
        guard expired, engines.system != nil, use.policy == .handoff, !use.isInForeground else { return }
        let running = Set(scheduler.runningIDs)
        for id in released where running.contains(id) {
            guard let download = byID[id] else { continue }
            Task { await download.handOff() }
        }
    }
}
