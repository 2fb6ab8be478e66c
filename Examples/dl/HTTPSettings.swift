import Downstream
import Foundation

/// What curl's and wget's HTTP options ask of a run: `-I`, `-S` (the response heads), `-n` and
/// `--netrc-file` (credentials by host), `-b` and `--cookie-jar` (cookies), `--remove-on-error`.
struct HTTPSettings: Equatable {
    /// `-I`: each URL's response heads on standard output, and nothing downloaded.
    var headsOnly = false
    /// `-S`: each response head on standard error (none with `-q`/`-s`: curl's `-sS`).
    var showsServerResponse = false
    /// `--remove-on-error`: a file that fails keeps no bytes and no record.
    var removesFailedFiles = false
    /// `-n`: `$HOME/.netrc`, if there is one.
    var usesDefaultNetrc = false
    /// `--netrc-file`.
    var netrcFile: String?
    /// `-b`, in order: files, and `NAME=VALUE` strings (with an `=`, as curl tells them apart).
    var cookieSources: [String] = []
    /// `--cookie-jar`: where the cookies go at the end.
    var cookieJar: String?
    /// The hosts of the URLs given (and their mirrors): those a netrc's `default` entry and
    /// `-b NAME=VALUE` go to.
    var hosts: Set<String> = []

    /// The netrc's entries, once ``load(environment:)`` read them.
    private(set) var netrc: Netrc?
    /// The cookies of `-b`'s files, once read.
    private(set) var fileCookies: [Cookie] = []

    /// Why a file these options name cannot be used.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads the netrc file and `-b`'s cookie files.
    mutating func load(environment: [String: String]) throws(Problem) {
        var path = netrcFile
        if path == nil, usesDefaultNetrc, let home = environment["HOME"] {
            path = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".netrc").path
        }
        if let path {
            do {
                netrc = try Netrc.load(path, required: netrcFile != nil)
            } catch {
                throw Problem(description: error.description)
            }
        }
        for source in cookieSources where !source.contains("=") {
            do {
                fileCookies += try CookieJar.read(source)
            } catch {
                throw Problem(description: error.description)
            }
        }
    }

    /// The jar of the run, if cookies are sent or kept.
    func makeCookieJar() -> CookieJar? {
        guard !cookieSources.isEmpty || cookieJar != nil else { return nil }
        let literals = cookieSources.filter { $0.contains("=") }
        return CookieJar(
            cookies: fileCookies, literal: literals.isEmpty ? nil : literals.joined(separator: "; "),
            literalHosts: hosts)
    }

    /// What answers a server's `401`: `-u`'s credentials for its hosts, else the netrc's entry for
    /// the host (its `default` entry for the hosts of the URLs given only); once per download run,
    /// as ``Credentials/handler``.
    func authenticationHandler(
        _ credentials: Credentials?
    ) -> (@Sendable (AuthenticationChallenge) async -> AuthenticationChallenge.Decision)? {
        guard let netrc else { return credentials?.handler }
        let userHandler = credentials?.handler
        let userHosts = credentials?.hosts ?? []
        let hosts = hosts
        return { challenge in
            guard let host = challenge.response.url?.host?.lowercased() else { return .fail }
            if let userHandler, userHosts.contains(host) { return await userHandler(challenge) }
            guard !challenge.isProxy, challenge.previousFailureCount == 0, let machine = netrc.machine(for: host),
                let login = machine.login, machine.host != nil || hosts.contains(host)
            else { return .fail }
            return .useCredential(user: login, password: machine.password ?? "")
        }
    }
}
