/// What identifies one version of a file on a server: its `ETag` and `Last-Modified` headers.
///
/// A resumed request carries `If-Range` with the strong ETag (weak ETags may not be used there,
/// RFC 9110 section 13.1.5), else with `Last-Modified`, so that a server whose file changed sends
/// the whole new file instead of a range of it.
struct Validator: Codable, Equatable, Sendable {
    var etag: String?
    var lastModified: String?

    var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The value for `If-Range`, if the validator can guard a range request.
    var ifRangeValue: String? {
        if let etag, Self.isStrong(etag) { return etag }
        return lastModified
    }

    static func isStrong(_ etag: String) -> Bool {
        !etag.hasPrefix("W/")
    }

    /// Whether `other` (from a new response) names a different file than `self` (stored).
    ///
    /// Only headers present in both are compared; a server that stops sending one is not taken
    /// as a change by itself.
    func differs(from other: Validator) -> Bool {
        if let etag, let otherETag = other.etag, etag != otherETag { return true }
        if let lastModified, let otherDate = other.lastModified, lastModified != otherDate { return true }
        return false
    }
}
