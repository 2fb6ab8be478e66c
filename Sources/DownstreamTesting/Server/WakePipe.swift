import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pipe used to wake a thread blocked in `poll`: writing a byte wakes one waiter, and
/// closing the write end wakes every waiter for good (the read end then reports hang-up).
struct WakePipe {
    let readEnd: Int32
    let writeEnd: Int32

    /// A new pipe with close-on-exec set and a non-blocking write end.
    static func make() throws -> WakePipe {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError.current }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        return WakePipe(readEnd: ends[0], writeEnd: ends[1])
    }

    /// Makes the read end readable. Never blocks: a full pipe is already readable.
    func signal() {
        WakePipe.signal(writeEnd: writeEnd)
    }

    /// Writes a byte to the write end `descriptor` of a pipe made by ``make()``.
    static func signal(writeEnd descriptor: Int32) {
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)
    }

    /// Closes the write end: from now on the read end is permanently readable.
    func closeWriteEnd() {
        _ = close(writeEnd)
    }

    /// Closes both ends.
    func closeBoth() {
        _ = close(readEnd)
        _ = close(writeEnd)
    }
}
