import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cookies of a run (`-b`, `--cookie-jar`): those of `-b FILE` and those the servers set,
/// sent with every request they match (redirects included), and written to the jar at the end.
final class CookieJar: Sendable {
    private let cookies: Locked<[Cookie]>
    /// `-b NAME=VALUE; …`: sent as it is, to the hosts of the URLs given only.
    private let literal: String?
    private let literalHosts: Set<String>
    private let now: @Sendable () -> Int64

    init(
        cookies: [Cookie], literal: String? = nil, literalHosts: Set<String> = [],
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.cookies = Locked(cookies)
        self.literal = literal
        self.literalHosts = literalHosts
        self.now = now
    }

    /// The `Cookie` header for a request to `url`: the literal cookies for the hosts given, then
    /// the matching cookies, those with the longer path first (RFC 6265 5.4); nil for none.
    func header(for url: URL) -> String? {
        let now = now()
        var pairs: [String] = []
        if let literal, let host = url.host?.lowercased(), literalHosts.contains(host) { pairs.append(literal) }
        let matching = cookies.withLock { cookies in cookies.filter { $0.matches(url, at: now) } }
        // Sorted by path length, stable: equal lengths keep the order they came in.
        let sorted = matching.enumerated().sorted {
            ($0.element.path.count, -$0.offset) > ($1.element.path.count, -$1.offset)
        }
        pairs += sorted.map { "\($0.element.name)=\($0.element.value)" }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// Keeps the cookies `response` sets: each replaces the one of the same name, domain and
    /// path; an expired one removes it.
    func receive(_ response: ServerResponse) {
        guard let url = response.url, let joined = response.value(forHTTPHeaderField: "Set-Cookie") else { return }
        let now = now()
        let received = Cookie.splitSetCookie(joined).compactMap { Cookie.parse(setCookie: $0, from: url, at: now) }
        guard !received.isEmpty else { return }
        cookies.withLock { cookies in
            for cookie in received {
                cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
                if !cookie.hasExpired(at: now) { cookies.append(cookie) }
            }
        }
    }

    /// The cookies that have not expired.
    var current: [Cookie] {
        let now = now()
        return cookies.withLock { $0.filter { !$0.hasExpired(at: now) } }
    }

    /// Why a cookie file cannot be read or written.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Writes ``current`` to `path` in the Netscape format, readable by its owner only: into a
    /// new file beside it, renamed over it once complete, so that a reader never sees half a
    /// jar and a failed write leaves the old one.
    func write(to path: String) throws(Problem) {
        let text = Cookie.fileText(current)
        let temporary = path + ".dl-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Problem(description: "cannot write the cookie jar \(path): \(String(cString: strerror(errno)))")
        }
        var failure = writeAll(Array(text.utf8), to: descriptor)
        if failure == 0, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0, rename(temporary, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(temporary)
            throw Problem(description: "cannot write the cookie jar \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// The cookies of the cookie file at `path`; a missing file has none (curl's `-b` and
    /// `--cookie-jar` start from nothing then).
    static func read(_ path: String) throws(Problem) -> [Cookie] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            (attributes[.size] as? NSNumber)?.intValue ?? 0 <= 64 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { throw Problem(description: "cannot read the cookie file \(path) (at most 64 MiB)") }
        return Cookie.parseFile(String(decoding: data, as: UTF8.self))
    }
}

/// Writes all of `bytes` to `descriptor`; returns 0, or the error number of the write that failed.
private func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32 {
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { return count < 0 ? errno : EIO }
        written += count
    }
    return 0
}
