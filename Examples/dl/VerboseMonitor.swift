import Downstream
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-v`: every request and response head, on standard error as curl's `-v` prints them
/// (`> ` sent, `< ` received), each line after the file's name; credentials are hidden (headers
/// that carry them, a URL's user information and its credential-looking query values, also in a
/// `Location`), and what the server sent is escaped (see `LogText`).
struct VerboseMonitor: DownloadEventMonitor {
    /// Whether requests are printed too (`-v`), or responses only (`-S`).
    var showsRequests = true

    func download(_ download: Download, willSend request: URLRequest) {
        guard showsRequests else { return }
        var lines = ["> \(request.httpMethod ?? "GET") \(request.url.map(LogText.url) ?? "?")"]
        lines += Self.headerLines(request.allHTTPHeaderFields ?? [:], prefix: ">")
        Terminal.write(Self.text(lines, name: Self.name(of: download)), to: STDERR_FILENO)
    }

    func download(_ download: Download, didReceive response: ServerResponse) {
        Terminal.write(Self.responseText(response, name: Self.name(of: download)), to: STDERR_FILENO)
    }

    /// The lines of `response`'s head, after the file's `name`.
    static func responseText(_ response: ServerResponse, name: String) -> String {
        var lines = ["< HTTP \(response.statusCode) \(response.url.map(LogText.url) ?? "")"]
        lines += headerLines(response.headers, prefix: "<")
        return text(lines, name: name)
    }

    /// `headers`, sorted by name, each line after `prefix` (none when it is empty).
    static func headerLines(_ headers: [String: String], prefix: String) -> [String] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            let lowercased = name.lowercased()
            var shown = LogText.isCredential(header: name) ? "(hidden)" : value
            if lowercased == "location" || lowercased == "content-location", let url = URL(string: value) {
                shown = LogText.url(url)
            }
            return LogText.escaped("\(prefix.isEmpty ? "" : prefix + " ")\(name): \(shown)")
        }
    }

    private static func name(of download: Download) -> String {
        download.request.destination.fileURL?.lastPathComponent ?? download.request.url?.lastPathComponent ?? ""
    }

    private static func text(_ lines: [String], name: String) -> String {
        lines.map { "\(LogText.escaped(name)) \($0)\n" }.joined()
    }
}
