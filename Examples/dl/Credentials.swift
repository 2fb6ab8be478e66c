import Downstream
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-u USER[:PASSWORD]`, curl's and wget's `--user`: the credentials dl answers a server's
/// `401` with (HTTP Digest when the server offers it, else Basic; never in a scheme it did not
/// offer), for the hosts of the command's URLs only: a redirect to another host does not get
/// them. Without a password, dl asks for it on the terminal of its standard input,
/// without echo.
struct Credentials: Equatable {
    var user: String
    /// Nil until asked for (``withPassword(askingOn:)``).
    var password: String?
    /// The hosts that may have them: those of the URLs given (and their mirrors).
    var hosts: Set<String> = []

    /// `USER[:PASSWORD]`: the password is what follows the first colon.
    init(_ value: String) throws(UsageError) {
        let parts = value.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard !parts[0].isEmpty else {
            throw .invalidValue(option: "-u", value: value, expected: "USER or USER:PASSWORD")
        }
        user = parts[0]
        password = parts.count == 2 ? parts[1] : nil
    }

    /// The credentials with a password: the one given, or one read from `terminal` (a terminal's
    /// descriptor) after a prompt; a usage error when there is no terminal to ask on.
    func withPassword(askingOn terminal: Int32?) throws(UsageError) -> Credentials {
        guard password == nil else { return self }
        guard let terminal else {
            throw .other("-u \(user) has no password and there is no terminal to ask for it on: give -u USER:PASSWORD")
        }
        var asked = self
        asked.password = try Self.readPassword(from: terminal, prompt: "Enter host password for user '\(user)': ")
        return asked
    }

    /// The handler that answers a challenge from one of ``hosts``, once per download run: a
    /// second challenge means the server refused them (dl then fails with the status).
    var handler: @Sendable (AuthenticationChallenge) async -> AuthenticationChallenge.Decision {
        let (user, password, hosts) = (user, password ?? "", hosts)
        return { challenge in
            guard !challenge.isProxy, challenge.previousFailureCount == 0,
                let host = challenge.response.url?.host?.lowercased(), hosts.contains(host)
            else { return .fail }
            return .useCredential(user: user, password: password)
        }
    }

    /// Writes `prompt` to `terminal` and reads a line from it with echo off (restored after).
    static func readPassword(from terminal: Int32, prompt: String) throws(UsageError) -> String {
        var saved = termios()
        let canHide = tcgetattr(terminal, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(terminal, TCSANOW, &hidden)
        }
        defer {
            if canHide {
                _ = tcsetattr(terminal, TCSANOW, &saved)
                Terminal.write("\n", to: terminal)
            }
        }
        Terminal.write(prompt, to: terminal)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(terminal, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            if byte != UInt8(ascii: "\r") { line.append(byte) }
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// The terminal to ask on: standard input, if it is one (as wget's `--ask-password`; a
    /// command whose input is a pipe or a file is not asked).
    static func terminal() -> Int32? {
        isatty(STDIN_FILENO) == 1 ? STDIN_FILENO : nil
    }
}
