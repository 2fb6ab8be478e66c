import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the BSD socket calls the server and the raw client need.
package enum POSIXSocket {
    #if canImport(Glibc)
        /// `SOCK_STREAM` as `socket(2)` takes it: an enum's raw value on Glibc, an `Int32` on Darwin.
        package static let streamType = Int32(SOCK_STREAM.rawValue)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        package static let streamType = SOCK_STREAM
        static let sendFlags: Int32 = 0
    #endif

    /// A TCP socket with close-on-exec set and, where the platform has it, `SIGPIPE` off.
    static func makeTCPSocket() throws -> Int32 {
        #if canImport(Glibc)
            // Atomically close-on-exec: tests spawn child processes, which must not inherit it.
            let descriptor = socket(AF_INET, streamType | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, streamType, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError.current }
        prepare(descriptor)
        return descriptor
    }

    /// Sets close-on-exec, blocking mode and `SO_NOSIGPIPE` (Darwin) on a fresh socket.
    static func prepare(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 && flags & O_NONBLOCK != 0 {
            _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        }
        #if canImport(Darwin)
            setOption(descriptor, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }

    /// Accepts a connection and prepares it with ``prepare(_:)``; -1 with `errno` on failure.
    /// (`accept4` is not exported by the Glibc module; the brief window before close-on-exec
    /// is set is harmless because Foundation's `Process` closes inherited descriptors.)
    static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Glibc)
            let descriptor = Glibc.accept(listener, nil, nil)
        #else
            let descriptor = Darwin.accept(listener, nil, nil)
        #endif
        if descriptor >= 0 {
            prepare(descriptor)
        }
        return descriptor
    }

    /// Sets an integer socket option, ignoring failure.
    static func setOption(_ descriptor: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Turns off Nagle's algorithm, so small writes (chunk framing, short bodies) go out at
    /// once instead of waiting for the peer's delayed acknowledgement.
    static func setNoDelay(_ descriptor: Int32) {
        setOption(descriptor, Int32(IPPROTO_TCP), Int32(TCP_NODELAY), 1)
    }

    /// The IPv4 loopback address with `port` (0 = any).
    static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// A socket bound to 127.0.0.1 on a kernel-chosen port, not listening yet (connection
    /// attempts are refused), in non-blocking mode so that an `accept` after a `poll` never
    /// blocks.
    ///
    /// `reuseAddress` sets `SO_REUSEADDR`. A socket that is to wait before it listens goes
    /// without: on Linux two sockets that both set it can bind one port while neither
    /// listens, so only without it is the port its own.
    static func makeBoundSocket(reuseAddress: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = try makeTCPSocket()
        do {
            if reuseAddress {
                setOption(descriptor, SOL_SOCKET, SO_REUSEADDR, 1)
            }
            var address = loopbackAddress(port: 0)
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw POSIXError.current }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    getsockname(descriptor, $0, &length)
                }
            }
            guard named == 0 else { throw POSIXError.current }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Makes a bound socket listen, with room for 256 connections waiting to be accepted.
    static func listen(_ descriptor: Int32) throws {
        #if canImport(Glibc)
            let result = Glibc.listen(descriptor, 256)
        #else
            let result = Darwin.listen(descriptor, 256)
        #endif
        guard result == 0 else { throw POSIXError.current }
    }

    /// Connects a new blocking socket to 127.0.0.1:`port`.
    static func connectToLoopback(port: Int) throws -> Int32 {
        let descriptor = try makeTCPSocket()
        var address = loopbackAddress(port: port)
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            let error = POSIXError.current
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Sends all of `buffer`, looping over partial writes. Returns `false` once the peer is
    /// gone (`EPIPE`, `ECONNRESET`, ...) or the socket was shut down; never raises `SIGPIPE`.
    static func sendAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Bool {
        send(descriptor, buffer) == buffer.count
    }

    /// Sends as much of `buffer` as possible, looping over partial writes until it is all
    /// sent or the peer is gone. Returns the number of bytes sent.
    static func send(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var sent = 0
        while sent < buffer.count {
            #if canImport(Glibc)
                let result = Glibc.send(descriptor, base + sent, buffer.count - sent, sendFlags)
            #else
                let result = Darwin.send(descriptor, base + sent, buffer.count - sent, sendFlags)
            #endif
            if result > 0 {
                sent += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return sent
    }

    /// Reads and drops whatever input is already queued, without blocking, so that a
    /// following `close` is not turned into a reset by unread data.
    static func discardQueuedInput(_ descriptor: Int32) {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            return
        }
    }

    /// Sends all of `bytes`; see ``sendAll(_:_:)-(_,UnsafeRawBufferPointer)``.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendAll(descriptor, $0) }
    }

    /// Receives into `buffer`: the byte count, 0 at end of stream, or -1 with `errno` set.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let received = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if received < 0 && errno == EINTR { continue }
            return received
        }
    }

    /// Shuts down the sending direction (a FIN), and the receiving one too if `reading`.
    /// Wakes any thread blocked in `recv`, `send` or `poll` on the socket.
    static func shutdown(_ descriptor: Int32, reading: Bool) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(descriptor, Int32(reading ? SHUT_RDWR : SHUT_WR))
        #else
            _ = Darwin.shutdown(descriptor, reading ? SHUT_RDWR : SHUT_WR)
        #endif
    }

    /// Closes a descriptor.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(descriptor)
        #else
            _ = Darwin.close(descriptor)
        #endif
    }

    /// Makes the next `close` abortive: the peer gets a reset instead of a FIN.
    static func setResetOnClose(_ descriptor: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// The bytes written but not yet acknowledged by the peer, if the platform tells.
    static func unacknowledgedByteCount(_ descriptor: Int32) -> Int? {
        var count: Int32 = 0
        #if canImport(Glibc)
            guard ioctl(descriptor, UInt(TIOCOUTQ), &count) == 0 else { return nil }
        #else
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_NWRITE, &count, &length) == 0 else { return nil }
        #endif
        return Int(count)
    }

    /// Waits until one of `descriptors` is readable or has hung up, or `timeout` (in
    /// milliseconds, -1 = forever) passes. Returns each descriptor's `revents`.
    static func poll(_ descriptors: [Int32], timeout: Int32) -> [Int16] {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            let result = entries.withUnsafeMutableBufferPointer { buffer in
                #if canImport(Glibc)
                    Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #else
                    Darwin.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #endif
            }
            if result < 0 && errno == EINTR { continue }
            return entries.map(\.revents)
        }
    }
}
