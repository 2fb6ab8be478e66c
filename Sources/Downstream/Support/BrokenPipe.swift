import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `SIGPIPE` for one thread, never for the process.
enum BrokenPipe {
    /// Blocks `SIGPIPE` on the calling thread, and on the threads it starts from now on (they
    /// inherit the mask): a write there to a socket whose peer is gone fails with `EPIPE`
    /// instead of ending the process, since a blocked `SIGPIPE` stays pending on the thread and
    /// is never delivered. The process's disposition stays the app's. For threads that write
    /// with `write(2)` (TLS libraries do), where `MSG_NOSIGNAL` cannot be given. Linux only:
    /// Darwin's sockets say so per socket (`SO_NOSIGPIPE`).
    static func blockOnThisThread() {
        #if os(Linux)
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
        #endif
    }
}
