/// What a record never keeps: the credentials of a request, and what a response says beyond what
/// continuing the file needs. A record is a file on disk that outlives the process, backups
/// included (where the platform backs the store up), and a response can be made to fill it:
/// 290 KB of headers made a 2 MiB record. A restored download gets its credentials again from
/// the app (``DownloadManager/Configuration-swift.struct/requestAdapter``).
extension StoredDownload {
    /// The most bytes of a response's headers a record keeps (names and values), and the longest
    /// value: a validator, a type, a name or a digest is far shorter.
    static let storedResponseBytes = 8 << 10
    static let storedResponseValueBytes = 1 << 10

    /// The response headers a record keeps, lowercased: validators, length and range, type,
    /// name and coding, and the digests of the file.
    private static let storedResponseHeaders: Set<String> = [
        "etag", "last-modified", "content-length", "content-range", "content-type", "content-disposition",
        "content-encoding", "accept-ranges", "repr-digest", "content-digest", "digest", "content-md5", "x-goog-hash",
        "x-goog-stored-content-encoding",
    ]

    /// `headers` without those that carry credentials (see ``LogText/isCredential(header:)``),
    /// and without `Range` and `If-Range`, which are the engine's.
    static func storedRequestHeaders(_ headers: [String: String]) -> [String: String] {
        headers.filter { name, _ in
            let lowercased = name.lowercased()
            return lowercased != "range" && lowercased != "if-range" && !LogText.isCredential(header: name)
        }
    }

    /// What a record keeps of `response`: its status and URL, and the headers continuing and
    /// checking the file need (never `Set-Cookie`), each at most ``storedResponseValueBytes``
    /// long, at most ``storedResponseBytes`` in all.
    static func storedResponse(_ response: ServerResponse) -> ServerResponse {
        var kept: [String: String] = [:]
        var bytes = 0
        for (name, value) in response.headers where value.utf8.count <= storedResponseValueBytes {
            let lowercased = name.lowercased()
            guard storedResponseHeaders.contains(lowercased) || lowercased.hasPrefix("x-amz-checksum-") else {
                continue
            }
            kept[name] = value
            bytes += name.utf8.count + value.utf8.count
        }
        if bytes > storedResponseBytes {
            // Over the cap (rare): the first headers in name order that fit, the same whatever the
            // dictionary's order.
            var fitting: [String: String] = [:]
            bytes = 0
            for name in kept.keys.sorted() {
                let size = name.utf8.count + kept[name]!.utf8.count
                guard bytes + size <= storedResponseBytes else { continue }
                fitting[name] = kept[name]
                bytes += size
            }
            kept = fitting
        }
        return ServerResponse(url: response.url, statusCode: response.statusCode, headers: kept)
    }
}
