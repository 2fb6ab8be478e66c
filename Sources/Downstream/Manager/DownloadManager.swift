import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Starts downloads and holds them: the entry point of Downstream.
///
/// A manager owns the transport its requests go over (libcurl on Linux, a URL session on Apple
/// platforms: see ``Configuration/Network-swift.struct/transport``), a background session when
/// it is configured with one, and a store on disk with one record per download; each download it
/// starts is a ``Download`` actor with its own progress and events.
/// A manager made with the identifier of an earlier one (after a relaunch, a crash or a kill)
/// finds that one's unfinished downloads again.
///
/// ```swift
/// let manager = try DownloadManager(configuration: .init(identifier: "com.example.app"))
/// let download = await manager.download(from: url, to: .directory(downloads))
/// let file = try await download.fileURL
/// ```
public actor DownloadManager {
    /// The configuration the manager was made with.
    public nonisolated let configuration: Configuration
    /// Stored records that could not be restored when the manager started; each was renamed
    /// aside in the store, and the other downloads were restored without it.
    public nonisolated let restorationIssues: [RestorationIssue]

    let context: Download.Context
    var engines: DownloadEngines { context.engines }
    /// Why the headers of the configuration (``Configuration/Network-swift.struct/userAgent``,
    /// ``Configuration/Network-swift.struct/additionalHeaders``) cannot be sent, if they cannot:
    /// every download then fails before it sends anything.
    var headerProblem: String? { context.settings.headerProblem }
    let store: DownloadStore
    /// The system-task engine's router, with a background session.
    nonisolated let systemRouter: SystemTaskRouter?
    /// What the manager hears from its downloads: their events, progress and states, and their
    /// slot needs.
    nonisolated let observer: Observer
    /// What puts the manager's ranged requests on the wire ("libcurl 7.88.1", "URLSession").
    package nonisolated let transportName: String
    /// What each request may go through, for the check of the connection settings it needs.
    let connectionEngines: [ConnectionEngine]
    var ordered: [Download] = []
    var byID: [Download.ID: Download] = [:]
    var byLocation: [PartialLocation: Download] = [:]
    /// Records of downloads cancelled with their data kept, found at launch: a new download of
    /// the same URL to the same place continues from their bytes.
    var kept: [PartialLocation: StoredDownload] = [:]
    /// In a store shared by processes, the records found at launch and not taken yet, by place
    /// (see ``place(of:at:isSeparate:)``).
    var stored: [String: DownloadID] = [:]
    /// The path of the latest request's destination, kept for the next request's.
    var lastDestinationPath = LastPath()
    var scheduler: Scheduler<Download.ID>
    /// The groups' limits and priorities, and which group each download is in.
    var groupScheduling = GroupScheduling()
    var isInvalidated = false
    /// How downloads tell the manager that they want a slot or gave theirs up.
    private let schedulingLink = SchedulingLink()
    /// The app's notifications the manager follows (for the handoff mode, where UIKit posts them).
    nonisolated let lifecycleObservers = AppLifecycleObservers()

    deinit {
        schedulingLink.disconnect()
    }

    /// Creates a manager, its transport and its store, and restores the downloads of an earlier
    /// manager with the same identifier.
    ///
    /// Restored downloads are paused, unless
    /// ``Configuration/Restoration/resumesInterruptedDownloads`` is set; their progress is what
    /// their partial files hold.
    ///
    /// - Throws: ``DownloadError/Kind/managerUnavailable`` if another manager with this
    ///   identifier exists in this process, another process uses the store, the store's
    ///   directory cannot be created, or it has no place: on Linux, a process without a home
    ///   directory (`HOME` unset, and a user the password database does not know) needs
    ///   ``Configuration-swift.struct/Storage-swift.struct/directory`` or `XDG_DATA_HOME`.
    public init(configuration: Configuration) throws(DownloadError) {
        self.configuration = configuration
        scheduler = Scheduler(limits: configuration.schedulerLimits)
        observer = Observer(
            progressInterval: configuration.progress.interval, monitors: configuration.eventMonitors,
            schedulingLink: schedulingLink, trust: configuration.trust, clock: ClockReadings(configuration.clock))
        let isShared = configuration.storage.isSharedByProcesses
        if isShared, configuration.background != nil {
            throw .managerUnavailable(
                "a store shared by processes (storage.isSharedByProcesses) cannot have a background session: "
                    + "the system's tasks of one app would belong to every process")
        }
        let storeDirectory = try configuration.storeDirectory
        do {
            store = try DownloadStore(
                identifier: configuration.identifier, directory: storeDirectory,
                relocatableDirectories: configuration.storage.relocatableDirectories,
                home: configuration.storage.homeDirectory,
                partialsDirectory: configuration.storage.partialsDirectory, sharedByProcesses: isShared,
                synchronizes: configuration.storage.synchronizesToDisk,
                journals: !configuration.storage.keepsEveryRecordInAFile,
                duringWrite: configuration.storage.recordWriteObserver)
        } catch  where error.kind == .fileSystem {
            throw .managerUnavailable("its store \(error.path ?? "") cannot be used: \(error.reason)")
        }
        // Records and the store's other files: out of backups, writable while the device is
        // locked (new files take the directory's class).
        let marker = configuration.fileMarker
        marker.markOwn(store.directory.path)
        if let partials = configuration.storage.partialsDirectory, POSIXFile.isDirectory(atPath: partials.path) {
            marker.markOwn(partials.path)
        }
        let (rangedSession, fallbackReason) = try configuration.makeTransport(
            trustDirectory: store.directory.appendingPathComponent("trust"))
        transportName = rangedSession.name
        if let fallbackReason {
            observer.transportFellBack(to: rangedSession.name, reason: fallbackReason)
        }
        if let reason = DigestImplementation.hashesFallbackReason {
            observer.digestsFellBack(to: "Swift", reason: reason)
        }
        var system: SystemEngine?
        var makeSystemSession: ((SystemTaskRouter) -> any SystemSession)?
        if let background = configuration.background {
            if let replacement = configuration.makeSystemSession {
                // A session of the tests: no URLSession, so it exists on every platform.
                makeSystemSession = replacement
            } else {
                let systemConfiguration = try configuration.makeSystemSessionConfiguration(background)
                makeSystemSession = { [configuration] router in
                    URLSystemSession(
                        configuration: systemConfiguration, router: router,
                        pendingCallbackLimit: configuration.pendingCallbackLimit, name: configuration.identifier,
                        trust: configuration.trust)
                }
            }
            system = SystemEngine(
                router: SystemTaskRouter(unclaimedDirectory: store.directory.appendingPathComponent("unclaimed")),
                ready: Latch())
        }
        systemRouter = system?.router
        connectionEngines =
            [ConnectionEngine(name: rangedSession.name, settings: rangedSession.connectionSettings)]
            + (configuration.background != nil && configuration.makeSystemSession == nil
                ? [ConnectionEngine(name: "background session", settings: URLSystemSession.connectionSettings)] : [])
        context = Download.Context(
            engines: DownloadEngines(
                ranged: rangedSession, system: system,
                systemUse: SystemUse(policy: configuration.background?.mode.policy ?? .always)),
            settings: configuration.makeDownloadSettings(transport: rangedSession), observer: observer,
            deliveredCopies: DeliveredCopies(
                directory: store.directory.appendingPathComponent("delivered"), bases: store.bases))

        let restoration: Restoration
        if isShared {
            // Taken when asked for (see takePlace(_:_:)).
            let contents = store.load(repairing: false)
            restoration = Restoration(issues: contents.issues)
            for loaded in contents.records.reversed() {
                let record = loaded.record
                stored[Self.place(of: record.downloadRequest, at: record.location)] = record.id
            }
        } else {
            restoration = Restoration(
                store: store, context: context, partialsDirectory: configuration.storage.partialsDirectory)
        }
        restorationIssues = restoration.issues
        kept = restoration.kept
        // Sized once: a store may hold 100,000 downloads.
        ordered = restoration.downloads
        byID.reserveCapacity(ordered.count)
        byLocation.reserveCapacity(ordered.count)
        for download in restoration.downloads {
            byID[download.id] = download
            byLocation[download.location] = download
        }
        if let system, let makeSystemSession {
            // The session exists only now that the router knows every restored download: its
            // first events may be those of tasks that finished while the app was not running.
            let router = system.router
            router.session = makeSystemSession(router)
            Self.adoptTasks(of: router, thenOpen: system.ready)
        }
        for download in restoration.downloads {
            observe(download)
        }
        schedulingLink.connect(self)
        #if canImport(UIKit) && !os(watchOS)
            if configuration.background?.mode == .handoff {
                observeAppLifecycle(into: lifecycleObservers)
            }
        #endif
        if configuration.restoration.resumesInterruptedDownloads {
            let interrupted = restoration.interrupted
            Task {
                for download in interrupted { await download.resume() }
            }
        }
    }

    // MARK: - Shutting down

    /// Stops the manager, as if the process ended, and gives its identifier and store up: a
    /// manager made afterwards with the same configuration restores its downloads.
    ///
    /// Running downloads stop (their bytes and records are kept, with the intent they had, so that
    /// interrupted ones count as interrupted); tasks of a background session go on in the system,
    /// for the next manager to adopt. Event monitors have been told everything that happened
    /// before it returns (a command-line tool that exits then loses no line a monitor prints).
    /// The manager and its downloads do nothing afterwards. A manager that is simply released
    /// does the same, once every reference to it and to its downloads is gone; this makes it
    /// happen now.
    public func invalidate() async {
        guard !isInvalidated else { return }
        isInvalidated = true
        schedulingLink.disconnect()
        await withTaskGroup(of: Void.self) { group in
            for download in ordered {
                group.addTask { await download.shutDown() }
            }
        }
        await observer.drainMonitors()
        systemRouter?.detach()
        await engines.ranged.invalidate()
        for download in ordered {
            download.placeClaim?.release()
        }
        store.release()
    }

    // MARK: - Scheduling

    /// The limits downloads run under now.
    public var schedulingLimits: Configuration.Scheduling {
        var limits = Configuration.Scheduling()
        limits.maximumConcurrentDownloads = scheduler.limits.overall
        limits.maximumConcurrentDownloadsPerHost = scheduler.limits.perHost
        return limits
    }

    /// Changes how many downloads run at once, at once: more start if the limits grew; if they
    /// shrank, the lowest-priority running downloads stop and wait in the queue (continuing from
    /// their bytes when their turn comes). A limit of 0 holds the whole queue: nothing runs until
    /// it is raised again.
    public func setLimits(maximumConcurrentDownloads: Int? = nil, maximumConcurrentDownloadsPerHost: Int? = nil) {
        let limits = configuration.schedulerLimits(
            overall: maximumConcurrentDownloads ?? scheduler.limits.overall,
            perHost: maximumConcurrentDownloadsPerHost ?? scheduler.limits.perHost)
        let (granted, stopped) = scheduler.setLimits(limits)
        for id in stopped {
            if let download = byID[id] {
                Task { await download.preempt() }
            }
        }
        start(granted)
    }

    /// Brings the scheduler in line with `need`, what `download` needs now (a slot, none, or the
    /// one it has), and its priority. Returns the downloads that may start.
    /// - Parameter host: the download's host for the scheduler (``schedulingHost(_:)``), if the
    ///   caller has it (else it is read from the download's URL).
    func schedule(
        _ download: Download, need: Download.SlotNeed, priority: DownloadRequest.Priority, host: String? = nil
    ) -> [Download.ID] {
        let id = download.id
        guard byID[id] === download else { return [] }
        let group = groupScheduling.group(of: id)
        let rank = groupScheduling.schedulerPriority(priority, inGroup: group)
        var granted: [Download.ID] = []
        switch need {
        case .waiting:
            // A download given a slot whose start is under way runs already, for the scheduler.
            if !scheduler.isQueued(id), !scheduler.isRunning(id) {
                granted += scheduler.enqueue(id, host: host ?? Self.host(of: download), priority: rank, group: group)
            }
        case .holding:
            // A download stopping because the limits shrank is queued already; one running
            // without a slot (a system task adopted after a relaunch) is counted.
            if !scheduler.isQueued(id), !scheduler.isRunning(id) {
                scheduler.admit(id, host: host ?? Self.host(of: download), priority: rank, group: group)
            }
        case .none:
            granted += scheduler.remove(id)
            if group != 0, download.state == .completed || download.state == .cancelled {
                groupScheduling.remove(id)
            }
        }
        if let current = scheduler.priority(of: id), current != rank {
            granted += scheduler.setPriority(id, to: rank)
        }
        return granted
    }

    /// Applies the downloads' changes of slot need or priority, in the order they were made.
    func applySchedulingChanges() {
        while let changes = schedulingLink.takePending() {
            for change in changes {
                if change.returnsConnections {
                    guard byID[change.download.id] === change.download else { continue }
                    start(scheduler.giveBack(change.download.id))
                } else {
                    start(schedule(change.download, need: change.need, priority: change.priority))
                }
            }
        }
    }

    /// Gives running `download` up to `count` extra connections (a file over several), as far as
    /// free slots of the limits allow. Returns how many.
    func borrowConnections(for download: Download, upTo count: Int) -> Int {
        guard byID[download.id] === download else { return 0 }
        return scheduler.borrow(download.id, upTo: count)
    }

    func start(_ ids: [Download.ID]) {
        for id in ids {
            if let download = byID[id] {
                Task { await download.start() }
            }
        }
    }

    /// The scheduler's host of a download: host and port.
    private static func host(of download: Download) -> String {
        download.url.map(schedulingHost) ?? ""
    }

    /// The scheduler's host of a download from `url`: host and port.
    static func schedulingHost(_ url: URL) -> String {
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(url.host?.lowercased() ?? ""):\(port)"
    }

    // MARK: - Finding downloads

    /// Makes a download taken from a shared store one of the manager's (not observed yet).
    func hold(_ download: Download) {
        ordered.append(download)
        byID[download.id] = download
        byLocation[download.location] = download
    }

    /// Every download this manager holds, oldest first: those restored from the store, then
    /// those started since.
    public var downloads: [Download] {
        ordered
    }

    /// The download with identifier `id`.
    public func download(withID id: Download.ID) -> Download? {
        byID[id]
    }

    // MARK: - Controlling all downloads

    /// Pauses every running or queued download.
    public func pauseAll() async {
        await forEachDownload { await $0.pause() }
    }

    /// Resumes every paused or failed download.
    public func resumeAll() async {
        await forEachDownload { await $0.resume() }
    }

    /// Cancels every unfinished download.
    public func cancelAll(keepingPartialData: Bool = false) async {
        await forEachDownload { await $0.cancel(keepingPartialData: keepingPartialData) }
    }

    private func forEachDownload(_ body: @escaping @Sendable (Download) async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for download in ordered where !download.state.isFinished || download.state == .failed {
                group.addTask { await body(download) }
            }
        }
    }

    /// Asks the system session for its tasks, lets their downloads adopt them (tasks of an earlier
    /// process, which went on without it), then opens `ready`: until then no download starts a
    /// task, so none runs twice.
    private static func adoptTasks(of router: SystemTaskRouter, thenOpen ready: Latch) {
        router.session?.allTasks { tasks in
            let adopted = router.reattach(tasks)
            Task {
                for transfer in adopted {
                    await router.owner(transfer.target.downloadID)?.systemTransferChanged(transfer)
                }
                ready.open()
            }
        }
    }
}
