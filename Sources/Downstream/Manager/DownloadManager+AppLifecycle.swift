#if canImport(UIKit) && !os(watchOS)
    import UIKit

    extension DownloadManager {
        /// Follows UIKit's foreground and background notifications, for the handoff mode. The
        /// notifications' names are read on the main actor (members of `UIApplication`); the
        /// observers hold the manager weakly.
        nonisolated func observeAppLifecycle(into observers: AppLifecycleObservers) {
            let background: @Sendable (Notification) -> Void = { [weak self] _ in
                guard let self else { return }
                Task { await self.appDidEnterBackground() }
            }
            let foreground: @Sendable (Notification) -> Void = { [weak self] _ in
                guard let self else { return }
                Task { await self.appWillEnterForeground() }
            }
            Task { @MainActor in
                let center = NotificationCenter.default
                observers.add(
                    center.addObserver(
                        forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil,
                        using: background))
                observers.add(
                    center.addObserver(
                        forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil,
                        using: foreground))
            }
        }
    }
#endif
