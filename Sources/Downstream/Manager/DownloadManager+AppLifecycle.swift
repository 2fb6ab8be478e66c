#if canImport(UIKit) && !os(watchOS)
    import UIKit

    extension DownloadManager {
        /// Follows UIKit's foreground and background notifications, for the handoff mode: on the
        /// main actor, where UIKit posts them.
        nonisolated func observeAppLifecycle(into observers: AppLifecycleObservers) {
            Task { @MainActor [weak self] in
                let center = NotificationCenter.default
                let background = center.addObserver(
                    forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil
                ) { [weak self] _ in
                    Task { await self?.appDidEnterBackground() }
                }
                let foreground = center.addObserver(
                    forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil
                ) { [weak self] _ in
                    Task { await self?.appWillEnterForeground() }
                }
                observers.add(background)
                observers.add(foreground)
            }
        }
    }
#endif
