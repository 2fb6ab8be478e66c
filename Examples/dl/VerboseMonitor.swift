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
    func download(_ download: Download, willSend request: URLRequest) {
        var lines = ["> \(request.httpMethod ?? "GET") \(request.url.map(LogText.url) ?? "?")"]
        lines += Self.headerLines(request.allHTTPHeaderFields ?? [:], prefix: ">")
        Terminal.write(Self.text(lines, of: download), to: STDERR_FILENO)
    }

    func download(_ download: Download, didReceive response: ServerResponse) {
        var lines = ["< HTTP \(response.statusCode) \(response.url.map(LogText.url) ?? "")"]
        lines += Self.headerLines(response.headers, prefix: "<")
        Terminal.write(Self.text(lines, of: download), to: STDERR_FILENO)
    }

    static func headerLines(_ headers: [String: String], prefix: String) -> [String] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            let lowercased = name.lowercased()
            var shown = LogText.isCredential(header: name) ? "(hidden)" : value
            if lowercased == "location" || lowercased == "content-location", let url = URL(string: value) {
                shown = LogText.url(url)
            }
            return LogText.escaped("\(prefix) \(name): \(shown)")
        }
    }

    private static func text(_ lines: [String], of download: Download) -> String {
        let name =
            download.request.destination.fileURL?.lastPathComponent ?? download.request.url?.lastPathComponent ?? ""
        return lines.map { "\(LogText.escaped(name)) \($0)\n" }.joined()
    }
}
