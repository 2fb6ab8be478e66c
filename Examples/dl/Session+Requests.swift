import Downstream
import Foundation

/// What a run asks of the library: the manager's configuration from the plan, each job's
/// request, and what an earlier run left for a job's file.
extension Session {
    /// The manager of the run: dl's shared store, the plan's limits, network and trust settings.
    var configuration: DownloadManager.Configuration {
        DownloadManager.Configuration(identifier: Self.identifier) {
            // A user (or a test) who sets XDG_DATA_HOME gets the store there on macOS too.
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                $0.storage.directory = URL(fileURLWithPath: data, isDirectory: true)
                    .appendingPathComponent("Downstream", isDirectory: true)
                    .appendingPathComponent(Self.identifier, isDirectory: true)
            }
            // Several dl processes, each with files of its own, use the store at once; a file
            // another dl is downloading fails at once, naming it.
            $0.storage.isSharedByProcesses = true
            $0.progress.interval = .milliseconds(plan.progressInterval == .zero ? 100 : 200)
            if plan.writesToStandardOutput {
                // -O -: each chunk is on the disk as it comes, and the progress that says so often,
                // for the stream that follows the file (see StandardOutputStream).
                $0.storage.writeBufferCapacity = 1
                $0.progress.interval = .milliseconds(50)
            }
            // Every connection of a file takes a slot: -j files of -x connections each.
            $0.scheduling.maximumConcurrentDownloads = plan.maximumConcurrentDownloads * plan.connections
            $0.scheduling.maximumConcurrentDownloadsPerHost = plan.maximumConcurrentDownloads * plan.connections
            $0.network.maximumBytesPerSecond = plan.limitRate
            $0.network.userAgent = plan.userAgent
            // -H, cookies, credentials (-u, -n), -v and -S.
            configureHTTP(&$0)
            if let trust = plan.trust { $0.trust.rules = [trust] }
            $0.network.proxy = plan.proxy
            // A person at a terminal waits for nothing: a host that does not exist or refuses the
            // connection while the network is up fails at once, with the reason (without a
            // network, dl still waits for it, as the library does).
            $0.retry.transientNetworkErrors.subtract(Self.failsAtOnce)
            if let retries = plan.maximumRetries { $0.retry.maximumRetries = retries }
            if let wait = plan.retryWait { $0.retry.initialDelay = wait }
            if let timeout = plan.timeout { $0.network.requestTimeout = timeout }
            $0.network.connectionTimeout = plan.connectionTimeout
            $0.network.addressFamily = plan.addressFamily
            $0.network.maximumConnectionsPerFile = plan.connections
            // Every connection of every file at once may go to one host.
            $0.network.maximumConnectionsPerHost = max(6, plan.connections * plan.maximumConcurrentDownloads)
        }
    }

    /// The request of `job`; a file an earlier run saved is used as it is.
    func request(for job: Job, savedEarlier: Bool) -> DownloadRequest {
        // A file for standard output left in the store is not the user's: replaced, unless it is
        // one a run completed and could not copy out (then it is copied now).
        let policy =
            savedEarlier
            ? .useExisting
            : plan.writesToStandardOutput
                ? .replace : plan.existingFiles.conflictPolicy(continuing: plan.continuesExistingFiles)
        let destination: Destination =
            job.namedByServer
            ? .directory(job.file.deletingLastPathComponent(), ifExists: policy) : .file(job.file, ifExists: policy)
        var request = DownloadRequest(url: job.url, to: destination)
        request.expectedDigest = job.digest
        request.mirrors = job.mirrors
        request.acceptsCompressedBody = plan.acceptsCompressedBodies
        request.maximumFileSize = plan.maximumFileSize
        return request
    }

    /// Makes `earlier`, a download of an earlier run to `job`'s file, the one the manager gives
    /// `job` (it joins a download of the same URL and file): from a new URL (a fresh signed link,
    /// a moved server), it continues from its bytes, which the first request checks against the
    /// new server's; with another expected digest, it starts over.
    func reconcile(_ earlier: Download, with job: Job) async {
        guard earlier.request.expectedDigest == job.digest else {
            await earlier.cancel()
            return
        }
        if earlier.request.url != job.url, earlier.url != job.url {
            try? await earlier.setURL(job.url)
        }
    }
}
