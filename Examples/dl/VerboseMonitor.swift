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
/// (`> ` sent, `< ` received), each line after the file's name; credentials are hidden.
struct VerboseMonitor: DownloadEventMonitor {
    /// Headers whose values are not printed.
    static let secret: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    func download(_ download: Download, willSend request: URLRequest) {
        var lines = ["> \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"]
        lines += Self.headerLines(request.allHTTPHeaderFields ?? [:], prefix: ">")
        Terminal.write(Self.text(lines, of: download), to: STDERR_FILENO)
    }

    func download(_ download: Download, didReceive response: ServerResponse) {
        var lines = ["< HTTP \(response.statusCode) \(response.url?.absoluteString ?? "")"]
        lines += Self.headerLines(response.headers, prefix: "<")
        Terminal.write(Self.text(lines, of: download), to: STDERR_FILENO)
    }

    static func headerLines(_ headers: [String: String], prefix: String) -> [String] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            "\(prefix) \(name): " + (secret.contains(name.lowercased()) ? "(hidden)" : value)
        }
    }

    private static func text(_ lines: [String], of download: Download) -> String {
        let name =
            download.request.destination.fileURL?.lastPathComponent ?? download.request.url?.lastPathComponent ?? ""
        return lines.map { "\(name) \($0)\n" }.joined()
    }
}
