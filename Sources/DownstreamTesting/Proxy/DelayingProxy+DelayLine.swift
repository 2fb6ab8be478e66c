import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension DelayingProxy {
    /// One direction of a connection through the proxy, on a thread of its own: what arrives from
    /// `source` is read at once and sent to `destination` `delay` later (the first bytes
    /// `firstDelay` later), in order; the end of `source`'s stream is passed on the same way.
    struct DelayLine {
        let source: Int32
        let destination: Int32
        let delay: Duration
        let firstDelay: Duration
        /// Called after bytes were read from `source` (`arrived`) or sent to `destination`
        /// (`delivered`).
        let event: (Event) -> Void

        enum Event {
            case arrived
            case delivered
        }

        init(
            from source: Int32, to destination: Int32, delay: Duration, firstDelay: Duration,
            event: @escaping (Event) -> Void
        ) {
            self.source = source
            self.destination = destination
            self.delay = delay
            self.firstDelay = firstDelay
            self.event = event
        }

        /// Relays until `source`'s stream ended and that end was passed on, or a socket failed
        /// (then both are shut down, which ends the other direction too).
        func run() {
            let clock = ContinuousClock()
            // What was read and is not yet due, in order; nil bytes: the end of the stream.
            var pending: [(due: ContinuousClock.Instant, bytes: [UInt8]?)] = []
            var head = 0
            var lastDue: ContinuousClock.Instant?
            var isReading = true
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                while head < pending.count, pending[head].due <= clock.now {
                    guard let bytes = pending[head].bytes else {
                        POSIXSocket.shutdown(destination, reading: false)
                        return
                    }
                    guard POSIXSocket.sendAll(destination, bytes) else { return fail() }
                    event(.delivered)
                    head += 1
                }
                if head > 256 {
                    pending.removeFirst(head)
                    head = 0
                }
                let timeout = head < pending.count ? clock.now.duration(to: pending[head].due) : nil
                guard Self.wait(for: isReading ? source : -1, timeout: timeout) else { continue }
                let arrival = clock.now
                let count = chunk.withUnsafeMutableBytes { POSIXSocket.receive(source, into: $0) }
                var due = arrival + (lastDue == nil ? firstDelay : delay)
                if let lastDue, lastDue > due { due = lastDue }
                lastDue = due
                if count > 0 {
                    event(.arrived)
                    pending.append((due, Array(chunk[..<count])))
                } else {
                    isReading = false
                    pending.append((due, nil))
                }
            }
        }

        private func fail() {
            POSIXSocket.shutdown(source, reading: true)
            POSIXSocket.shutdown(destination, reading: true)
        }

        #if os(Linux)
            private typealias PPoll =
                @convention(c) (
                    UnsafeMutablePointer<pollfd>?, nfds_t, UnsafePointer<timespec>?, UnsafeRawPointer?
                ) -> Int32
            /// glibc's `ppoll`, which the Glibc module does not export (it is a GNU extension).
            private static let ppoll: PPoll? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "ppoll").map {
                unsafeBitCast($0, to: PPoll.self)
            }
        #endif

        /// Waits until `descriptor` is readable (or hung up) or `timeout` passed (forever when
        /// nil); whether it is. A negative descriptor only waits. Precise to the microsecond where
        /// `ppoll` is, to the millisecond (rounded up) elsewhere.
        static func wait(for descriptor: Int32, timeout: Duration?) -> Bool {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            #if os(Linux)
                if let ppoll = Self.ppoll {
                    let result: Int32
                    if let timeout {
                        let (seconds, attoseconds) = max(timeout, .zero).components
                        var time = timespec(
                            tv_sec: .init(clamping: seconds), tv_nsec: .init(clamping: attoseconds / 1_000_000_000))
                        result = ppoll(&entry, 1, &time, nil)
                    } else {
                        result = ppoll(&entry, 1, nil, nil)
                    }
                    return result > 0 && entry.revents != 0
                }
            #endif
            let milliseconds = timeout.map { timeout in
                let (seconds, attoseconds) = max(timeout, .zero).components
                return Int32(clamping: Int64((Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(.up)))
            }
            let result = withUnsafeMutablePointer(to: &entry) { entry in
                #if canImport(Glibc)
                    Glibc.poll(entry, nfds_t(1), milliseconds ?? -1)
                #else
                    Darwin.poll(entry, nfds_t(1), milliseconds ?? -1)
                #endif
            }
            return result > 0 && entry.revents != 0
        }
    }
}
