import Downstream
import Foundation

/// An HTTP cookie as RFC 6265 stores it, read from and written to the Netscape cookie file that
/// curl (`-b`, `-c`) and wget (`--load-cookies`, `--save-cookies`) share: a line of seven
/// tab-separated fields (domain, whether subdomains match, path, secure, expiry in seconds since
/// 1970 with 0 for the session, name, value), `#HttpOnly_` before the domain of an HTTP-only one.
struct Cookie: Equatable {
    /// The host or domain, lowercased, without a leading dot.
    var domain: String
    /// Whether hosts under ``domain`` match too (a `Domain` attribute); else the host alone.
    var includesSubdomains: Bool
    var path: String
    /// Sent over HTTPS only.
    var isSecure: Bool
    /// Seconds since 1970 when it ends; nil for a session cookie (0 in the file).
    var expires: Int64?
    var name: String
    var value: String
    var isHTTPOnly = false

    /// The first line of a cookie file, as curl and wget write it.
    static let fileHeader = "# Netscape HTTP Cookie File"
    /// The longest line of a cookie file that is read: a longer one is skipped.
    static let maximumLineLength = 16_384

    /// Whether it has ended at `now` (seconds since 1970).
    func hasExpired(at now: Int64) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether it goes with a request for `url` at `now` (RFC 6265 5.4: domain, path, secure,
    /// expiry).
    func matches(_ url: URL, at now: Int64) -> Bool {
        guard let host = url.host?.lowercased(), !hasExpired(at: now) else { return false }
        if isSecure, url.scheme?.lowercased() != "https" { return false }
        return Self.domain(host, matches: domain, includingSubdomains: includesSubdomains)
            && Self.path(Self.requestPath(of: url), matches: path)
    }

    static func domain(_ host: String, matches domain: String, includingSubdomains: Bool) -> Bool {
        if host == domain { return true }
        // An address has no subdomains.
        guard includingSubdomains, !host.contains(":"), !host.allSatisfy({ $0.isNumber || $0 == "." }) else {
            return false
        }
        return host.hasSuffix("." + domain)
    }

    /// RFC 6265 5.1.4: the same path, or a folder of it.
    static func path(_ requestPath: String, matches cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return requestPath.count == cookiePath.count || cookiePath.hasSuffix("/")
            || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// The path a cookie without a `Path` attribute gets: the request path's folder (RFC 6265 5.1.4).
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    // MARK: - The Netscape cookie file

    /// The cookies of a cookie file's `text`. Comments, blank lines and lines that are not a
    /// cookie (another number of fields, a name that is empty, an expiry that is not a number,
    /// a line longer than ``maximumLineLength``) are skipped, as curl skips them.
    static func parseFile(_ text: String) -> [Cookie] {
        var cookies: [Cookie] = []
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            guard line.utf8.count <= maximumLineLength, let cookie = fileLine(line) else { continue }
            cookies.append(cookie)
        }
        return cookies
    }

    private static func fileLine(_ line: Substring) -> Cookie? {
        var line = line.hasSuffix("\r") ? line.dropLast() : line
        var isHTTPOnly = false
        if line.hasPrefix("#HttpOnly_") {
            line = line.dropFirst("#HttpOnly_".count)
            isHTTPOnly = true
        } else if line.hasPrefix("#") {
            return nil
        }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        // A cookie with an empty value has six fields in some files (the value's tab dropped).
        guard fields.count == 7 || fields.count == 6 else { return nil }
        var domain = fields[0].lowercased()
        if domain.hasPrefix(".") { domain.removeFirst() }
        // wget writes the port of a server on another port than 80 or 443: cookies have none.
        if let colon = domain.lastIndex(of: ":"), domain[domain.index(after: colon)...].allSatisfy(\.isASCII),
            domain[domain.index(after: colon)...].allSatisfy(\.isNumber),
            !domain[..<colon].contains(":") || domain[..<colon].hasSuffix("]")
        {
            domain = String(domain[..<colon])
        }
        guard !domain.isEmpty, !fields[5].isEmpty, let expiry = Int64(fields[4]), expiry >= 0,
            fields[2].hasPrefix("/")
        else { return nil }
        return Cookie(
            domain: domain, includesSubdomains: fields[1].uppercased() == "TRUE", path: String(fields[2]),
            isSecure: fields[3].uppercased() == "TRUE", expires: expiry == 0 ? nil : expiry,
            name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "", isHTTPOnly: isHTTPOnly)
    }

    /// Its line in a cookie file.
    var fileLine: String {
        let domainField = (includesSubdomains ? "." : "") + domain
        return [
            (isHTTPOnly ? "#HttpOnly_" : "") + domainField, includesSubdomains ? "TRUE" : "FALSE", path,
            isSecure ? "TRUE" : "FALSE", String(expires ?? 0), name, value,
        ].joined(separator: "\t")
    }

    /// The text of a cookie file with `cookies`.
    static func fileText(_ cookies: [Cookie]) -> String {
        var text = fileHeader + "\n# Written by dl: each line is a cookie a server set. Keep it private.\n\n"
        for cookie in cookies { text += cookie.fileLine + "\n" }
        return text
    }

    // MARK: - Set-Cookie

    /// The cookie a `Set-Cookie` value from `url`'s server sets at `now` (RFC 6265 5.2 and 5.3);
    /// nil for one to ignore (no name, a `Domain` the host is not in). An expired one is returned:
    /// it removes the cookie it replaces.
    static func parse(setCookie value: String, from url: URL, at now: Int64) -> Cookie? {
        guard let host = url.host?.lowercased(), !host.isEmpty, value.utf8.count <= maximumLineLength else {
            return nil
        }
        var parts = value.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = pair[..<equals].trimmingCharacters(in: .whitespaces)
        let cookieValue = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        // A tab or a line break would break the cookie file's line.
        guard !name.isEmpty, !(name + cookieValue).contains(where: { $0 == "\t" || $0.isNewline }) else {
            return nil
        }
        var cookie = Cookie(
            domain: host, includesSubdomains: false, path: defaultPath(of: url), isSecure: false, expires: nil,
            name: name, value: cookieValue)
        var maxAge: Int64?
        for attribute in parts {
            let split = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = split[0].trimmingCharacters(in: .whitespaces).lowercased()
            let argument = split.count == 2 ? split[1].trimmingCharacters(in: .whitespaces) : ""
            switch key {
            case "domain":
                var domain = argument.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                // Only the host's own domain, and not a top-level one (there is no public suffix list here).
                guard
                    domain == host
                        || (domain.contains(".") && Self.domain(host, matches: domain, includingSubdomains: true))
                else { return nil }
                cookie.domain = domain
                cookie.includesSubdomains = true
            case "path":
                cookie.path = argument.hasPrefix("/") ? argument : defaultPath(of: url)
            case "expires":
                if let date = HTTPDate.parse(argument) { cookie.expires = max(1, Int64(date.timeIntervalSince1970)) }
            case "max-age":
                if let seconds = Int64(argument) {
                    maxAge = seconds <= 0 ? 1 : now.addingReportingOverflow(seconds).partialValue
                }
            case "secure":
                cookie.isSecure = true
            case "httponly":
                cookie.isHTTPOnly = true
            default:
                continue
            }
        }
        if let maxAge { cookie.expires = maxAge }
        return cookie
    }

    /// The `Set-Cookie` values in `joined`: transports join several `Set-Cookie` headers with
    /// `, `, and an `Expires` date has a comma of its own. A comma starts a new cookie when what
    /// follows it, up to the next `;` or `,`, is `NAME=…`.
    static func splitSetCookie(_ joined: String) -> [String] {
        var values: [String] = []
        var current = ""
        var rest = joined[...]
        while let comma = rest.firstIndex(of: ",") {
            current += rest[..<comma]
            let after = rest[rest.index(after: comma)...]
            let next = after.prefix { $0 != ";" && $0 != "," }
            if let equals = next.firstIndex(of: "="), !next[..<equals].trimmingCharacters(in: .whitespaces).isEmpty,
                !next[..<equals].trimmingCharacters(in: .whitespaces).contains(" ")
            {
                values.append(current)
                current = ""
            } else {
                current += ","
            }
            rest = after
        }
        current += rest
        values.append(current)
        return values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
