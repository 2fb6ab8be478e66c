import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The reader of standard output went away (`EPIPE`): `dl -O - URL | head -c 100`,
/// `dl --json URL | head -1`. dl ignores `SIGPIPE` so that a write fails instead of killing it
/// mid-record; the write that fails tells the session, which pauses the downloads (their bytes
/// stay in the store: the same command continues) and then ends the process by `SIGPIPE`, as
/// `cat` or `yes` end there: the shell sees status 141, and `set -o pipefail` the same.
///
/// A reader of standard error that went away ends nothing: it only carries messages, and a
/// download to a file goes on without them.
final class ClosedOutput: @unchecked Sendable {
    // Safe: `handler` and `isClosed` are only touched under `lock`.
    static let shared = ClosedOutput()

    private let lock = NSLock()
    private var handler: (@Sendable () -> Void)?
    private var isClosed = false

    /// Calls `handler` once, when standard output is found closed (at once if it was).
    func whenClosed(_ handler: @escaping @Sendable () -> Void) {
        let closed = lock.withLock {
            self.handler = handler
            return isClosed
        }
        if closed { handler() }
    }

    /// Notices a closed standard output also while nothing is written to it (a server that is
    /// slow to send, a pause between progress lines): when it is a pipe or a socket, a thread
    /// waits for its reader to go away, which `poll` reports as an error or a hang-up.
    func watch() {
        var information = stat()
        guard fstat(STDOUT_FILENO, &information) == 0 else { return }
        let type = information.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFSOCK else { return }
        let thread = Thread { [self] in
            // No events asked for: only an error or a hang-up ends the wait.
            var watched = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
            while true {
                #if canImport(Glibc)
                    let count = Glibc.poll(&watched, nfds_t(1), -1)
                #else
                    let count = Darwin.poll(&watched, nfds_t(1), -1)
                #endif
                if count < 0, errno == EINTR { continue }
                if count > 0, watched.revents & Int16(POLLERR | POLLHUP) != 0 { notice() }
                return
            }
        }
        thread.name = "dl.closed-output"
        thread.start()
    }

    /// A write to standard output failed with `EPIPE`.
    func notice() {
        let handler: (@Sendable () -> Void)? = lock.withLock {
            guard !isClosed else { return nil }
            isClosed = true
            return self.handler
        }
        handler?()
    }

    /// Ends the process as one killed by `SIGPIPE` (status 141 in the shell).
    static func endProcess() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        raise(SIGPIPE)
        // Not reached: the signal ends the process. What the shell would report otherwise.
        exit(128 + SIGPIPE)
    }
}
