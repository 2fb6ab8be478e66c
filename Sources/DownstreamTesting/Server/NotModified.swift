import Downstream

/// Evaluates the preconditions that turn a `GET` or `HEAD` into `304 Not Modified`
/// (RFC 9110, sections 13.1.2, 13.1.3 and 13.2.2).
enum NotModified {
    /// Whether `request` is answered `304` given the current validators.
    ///
    /// With `If-None-Match`: when it is `*`, or lists a tag that matches `etag` by weak
    /// comparison (a malformed list matches nothing). Otherwise, with `If-Modified-Since`:
    /// when `lastModified` is not later than its date. A date that does not parse, on either
    /// side, makes `If-Modified-Since` ignored.
    static func applies(to request: HTTPRequestHead, etag: String?, lastModified: String?) -> Bool {
        if let condition = request.header("if-none-match") {
            if condition.trimmingHTTPWhitespace() == "*" { return true }
            guard let etag = etag.flatMap({ EntityTag(Substring($0)) }),
                let listed = EntityTag.list(condition)
            else { return false }
            return listed.contains { $0.matchesWeakly(etag) }
        }
        if let condition = request.header("if-modified-since"),
            let since = HTTPDate.secondsSince1970(condition),
            let modified = lastModified.flatMap({ HTTPDate.secondsSince1970($0) })
        {
            return modified <= since
        }
        return false
    }
}
