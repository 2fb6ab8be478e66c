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

/// `-I` (curl's `--head`): the response heads of each URL, redirects followed, on standard
/// output, and nothing downloaded.
extension Session {
    /// Asks for each job's head with `manager`; prints every head it got, as curl's `-IL` does
    /// (its status, then its headers, credentials hidden, then an empty line). Returns 0 when each
    /// URL ended with a 2xx or 3xx answer, else the status of the worst.
    func printHeads(with manager: DownloadManager) async -> ExitCode {
        let headers = Dictionary(plan.headers.map { ($0.name, $0.value) }) { _, last in last }
        var codes: [ExitCode] = []
        for job in plan.jobs {
            var request = URLRequest(url: job.url)
            for (name, value) in Self.headers(headers, cookies: cookieJar, for: job.url) {
                request.setValue(value, forHTTPHeaderField: name)
            }
            let heads: [ServerResponse]
            do {
                heads = try await manager.responseHeads(for: request)
            } catch {
                Terminal.write("failed \(LogText.escaped(job.name)): \(Describe.reason(error))\n", to: STDERR_FILENO)
                codes.append(ExitCode.failure(error))
                continue
            }
            for head in heads {
                cookieJar?.receive(head)
                let status = HTTPURLResponse.localizedString(forStatusCode: head.statusCode)
                let lines = ["HTTP \(head.statusCode) \(status)"] + VerboseMonitor.headerLines(head.headers, prefix: "")
                Terminal.write(lines.joined(separator: "\n") + "\n\n", to: STDOUT_FILENO)
            }
            codes.append(Self.exitCode(of: heads.last, name: job.name))
        }
        return ExitCode.combined(codes)
    }

    /// The status of a `-I` whose last head is `head`: a 4xx or 5xx is a failure, said on
    /// standard error.
    private static func exitCode(of head: ServerResponse?, name: String) -> ExitCode {
        guard let code = head?.statusCode, code >= 400 else { return .success }
        Terminal.write(
            "failed \(LogText.escaped(name)): the server answered HTTP \(code)"
                + " (\(HTTPURLResponse.localizedString(forStatusCode: code)))\n", to: STDERR_FILENO)
        return code == 401 || code == 407 ? .authentication : .httpStatus
    }
}
