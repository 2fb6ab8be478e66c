/// Evaluates an `If-Range` precondition (RFC 9110, section 13.1.5).
enum IfRange {
    /// Whether `value` matches the current validators: an entity tag by strong comparison
    /// (a weak tag on either side never matches), or an HTTP-date equal to `lastModified`.
    static func matches(_ value: String, etag: String?, lastModified: String?) -> Bool {
        let condition = String(value.trimmingHTTPWhitespace())
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            guard let etag, !etag.hasPrefix("W/"), !condition.hasPrefix("W/") else { return false }
            return condition == etag
        }
        guard let lastModified else { return false }
        return condition == lastModified
    }
}
