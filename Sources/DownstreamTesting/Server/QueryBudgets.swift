/// The body bytes used by the queries of routes whose queries expire
/// (``Route/queryExpiresAfter``): bytes sent, and bytes reserved by responses still being
/// written. A plain value kept in ``ServerState``.
struct QueryBudgets {
    /// A response's reservation, until it ends.
    private struct Reservation {
        var path: String
        var query: String
        var bytes: Int64
    }

    /// Bytes used, by path, then by query.
    private var used: [String: [String: Int64]] = [:]
    /// The reservations of responses in progress, by log position.
    private var reservations: [Int: Reservation] = [:]

    /// The bytes `query` may still receive on `path` out of `budget`; 0 when there is no query.
    func remaining(for query: String?, on path: String, budget: Int64) -> Int64 {
        guard let query else { return 0 }
        let usedBytes = used[path]?[query] ?? 0
        return max(budget - usedBytes, 0)
    }

    /// Reserves `bytes` for the response logged at `response`, which carries `query` on `path`.
    mutating func reserve(_ bytes: Int64, for query: String, on path: String, response: Int) {
        used[path, default: [:]][query, default: 0] += bytes
        reservations[response] = Reservation(path: path, query: query, bytes: bytes)
    }

    /// Ends the reservation of the response logged at `response`, which sent `sent` body
    /// bytes, giving back what it did not send.
    mutating func settle(response: Int, sent: Int64) {
        guard let reservation = reservations.removeValue(forKey: response) else { return }
        let unsent = max(reservation.bytes - sent, 0)
        used[reservation.path]?[reservation.query]? -= unsent
    }

    /// Forgets what the queries of `path` used, and the reservations of its responses in
    /// progress: the route was set again.
    mutating func renew(_ path: String) {
        used[path] = nil
        reservations = reservations.filter { $0.value.path != path }
    }
}
