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

/// What a run's HTTP options set up: `-H` and cookies on every request, credentials from `-u` and
/// the netrc file, the response heads of `-v` and `-S`, and the cookie jar written at the end.
extension Session {
    func configureHTTP(_ configuration: inout DownloadManager.Configuration) {
        // -H and cookies go with every request through the adapter, not in the requests: the
        // store keeps no credentials, so the download an earlier run left gets them again from
        // this run.
        let headers = Dictionary(plan.headers.map { ($0.name, $0.value) }) { _, last in last }
        let jar = cookieJar
        if !headers.isEmpty || jar != nil {
            configuration.authentication.requestAdapter = { adaptation in
                Self.headers(headers, cookies: jar, for: adaptation.url)
            }
        }
        configuration.authentication.handler = plan.http.authenticationHandler(plan.credentials)
        // -S adds nothing to -v, and prints nothing with -q (curl's -sS: failures are printed anyway).
        let printsHeads = plan.mode == .verbose || (plan.http.showsServerResponse && plan.mode != .quiet)
        var monitors: [any DownloadEventMonitor] = []
        if plan.mode == .verbose {
            monitors.append(VerboseMonitor())
        } else if printsHeads {
            monitors.append(VerboseMonitor(showsRequests: false))
        }
        if let jar { monitors.append(CookieMonitor(jar: jar)) }
        configuration.eventMonitors = monitors
        guard printsHeads || jar != nil else { return }
        // Monitors see the responses whose body is the file; the redirects before it come here.
        let names = Dictionary(plan.jobs.map { ($0.url, $0.name) }) { first, _ in first }
        configuration.redirects.handler = { redirect in
            if printsHeads {
                let name = names[redirect.originalURL] ?? redirect.originalURL.lastPathComponent
                Terminal.write(VerboseMonitor.responseText(redirect.response, name: name), to: STDERR_FILENO)
            }
            guard let jar, let url = redirect.request.url else { return .follow }
            jar.receive(redirect.response)
            var request = redirect.request
            let cookies = Self.headers(headers, cookies: jar, for: url).first { $0.key.lowercased() == "cookie" }
            request.setValue(cookies?.value, forHTTPHeaderField: "Cookie")
            return .follow(request)
        }
    }

    /// `headers` (`-H`) with the cookies for `url` (after a `-H 'Cookie: …'`, if there is one).
    nonisolated static func headers(_ headers: [String: String], cookies: CookieJar?, for url: URL) -> [String: String]
    {
        guard let cookies, let header = cookies.header(for: url) else { return headers }
        var headers = headers
        if let name = headers.keys.first(where: { $0.lowercased() == "cookie" }), let given = headers[name] {
            headers[name] = given + "; " + header
        } else {
            headers["Cookie"] = header
        }
        return headers
    }

    /// `--cookie-jar`: writes the jar once the downloads ended; the status of a jar that cannot
    /// be written (the files are saved all the same).
    func saveCookies() -> ExitCode {
        guard let path = plan.http.cookieJar, let cookieJar else { return .success }
        do {
            try cookieJar.write(to: path)
            return .success
        } catch {
            Terminal.write("dl: \(error.description)\n", to: STDERR_FILENO)
            return .fileSystem
        }
    }
}

/// Keeps the cookies the servers set (`Set-Cookie`) in the run's jar.
struct CookieMonitor: DownloadEventMonitor {
    let jar: CookieJar

    func download(_ download: Download, didReceive response: ServerResponse) {
        jar.receive(response)
    }
}

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
