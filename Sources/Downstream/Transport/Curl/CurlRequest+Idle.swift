internal import CCurl
import Foundation

extension CurlRequest {
    /// How long a request has gone without receiving a byte: the libcurl transport's request
    /// timeout, as URLSession's is, watched by the driver's thread. (libcurl's own low-speed limit
    /// is not this: it averages the speed over its last five seconds, so a transfer whose bytes
    /// stopped failed about five seconds after the timeout.)
    struct IdleWatch {
        /// When the last byte came, or the request started, or (when connecting has a timeout of
        /// its own) the connection was made.
        private(set) var since: ContinuousClock.Instant
        /// Bytes came since the driver last looked: set for every chunk, without a clock read.
        private var hasReceived = false
        /// The receiver paused the transfer: it is behind, not the server.
        var isPaused = false
        /// A response's head is being read: libcurl hands it over a whole line at a time, so the
        /// bytes of a long line come unseen. libcurl's low-speed limit watches heads instead.
        var isReadingHead = false
        private(set) var isConnected = false

        init(since: ContinuousClock.Instant) {
            self.since = since
        }

        /// Bytes arrived.
        mutating func received() {
            hasReceived = true
        }

        /// Where the request is at `now`, `connected` or not yet, against `timeout`.
        /// `connectsApart`: connecting has a timeout of its own (libcurl's), and the wait for a
        /// byte starts once connected; otherwise it starts with the request, as URLSession's.
        mutating func check(
            at now: ContinuousClock.Instant, timeout: Duration, connected: Bool, connectsApart: Bool
        ) -> IdleCheck {
            if hasReceived || isPaused || isReadingHead {
                hasReceived = false
                since = now
                isConnected = true
            }
            guard !isPaused, !isReadingHead else { return .unwatched }
            if !isConnected, connected {
                isConnected = true
                if connectsApart { since = now }
            }
            // Connecting: libcurl's connect timeout watches it.
            guard isConnected else { return .unwatched }
            let idle = now - since
            return idle >= timeout ? .expired : .expiresIn(timeout - idle)
        }
    }

    /// What the driver does about a request's silence.
    enum IdleCheck: Equatable {
        /// Nothing: it connects, reads a head, or its receiver paused it.
        case unwatched
        /// Nothing yet: it fails if no byte comes within this time.
        case expiresIn(Duration)
        /// It fails: no byte came for the request timeout.
        case expired
    }

    /// The request's silence at `now` (see ``IdleWatch``), on the driver's thread.
    func idleCheck(at now: ContinuousClock.Instant, settings: CurlTransport.Settings) -> IdleCheck {
        var connected = idleWatch.isConnected
        if !connected, let easy {
            // The time until the request was about to be sent: 0 until connected (a connection
            // reused is connected at once). A `curl_off_t`, which is a `long` on Linux (LP64).
            var microseconds = 0
            _ = ds_curl_easy_getinfo_long(easy, CurlInfo.pretransferTime, &microseconds)
            connected = microseconds > 0
        }
        return idleWatch.check(
            at: now, timeout: settings.requestTimeout, connected: connected,
            connectsApart: settings.connectionTimeout != nil)
    }

    /// The failure of a request that received nothing for `timeout`, in those words.
    static func idleFailure(after timeout: Duration) -> TransportFailure {
        TransportFailure(code: .timedOut, reason: "no byte received for \(timeout.secondsText)")
    }
}

extension Duration {
    /// Seconds in words, as a person gives them: `2 s`, `0.5 s`.
    var secondsText: String {
        let seconds = inSeconds
        return seconds == seconds.rounded() ? "\(Int64(seconds)) s" : "\(seconds) s"
    }
}
