import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `.netrc` file as curl reads it (`-n`, `--netrc-file`): `machine HOST login USER password
/// PASS` entries, a `default` entry for every other host, `account` values and `macdef` macros
/// skipped, tokens separated by any whitespace (across lines too), a value in double quotes with
/// `\"`, `\\`, `\n`, `\r` and `\t` inside (curl 7.84 and later), and `#` to the end of a line a
/// comment.
struct Netrc: Equatable {
    /// One entry: the credentials for `host` (nil: the `default` entry).
    struct Machine: Equatable {
        var host: String?
        var login: String?
        var password: String?
    }

    var machines: [Machine] = []

    /// The most bytes a netrc file may have: a larger one is not a netrc file.
    static let maximumSize = 1 << 20

    /// The entry for `host` (case-insensitive): the first `machine` that names it, else the
    /// `default` entry; nil when neither has a login.
    func machine(for host: String) -> Machine? {
        let host = host.lowercased()
        let named = machines.first { $0.host?.lowercased() == host }
        guard let entry = named ?? machines.first(where: { $0.host == nil }), entry.login != nil else { return nil }
        return entry
    }

    /// The entries of `text`. Unknown words are skipped, as curl skips them; a keyword without its
    /// value at the end of the file ends the entry without it.
    init(parsing text: String) {
        var tokens = Tokens(text)
        var current: Machine?
        while let token = tokens.next() {
            switch token {
            case "machine":
                if let current { machines.append(current) }
                current = tokens.next().map { Machine(host: $0) }
            case "default":
                if let current { machines.append(current) }
                current = Machine(host: nil)
            case "login":
                let value = tokens.next()
                current?.login = value
            case "password":
                let value = tokens.next()
                current?.password = value
            case "account":
                _ = tokens.next()
            case "macdef":
                tokens.skipMacro()
            default:
                break
            }
        }
        if let current { machines.append(current) }
    }

    /// The words of a netrc file, one after the other.
    private struct Tokens {
        private let scalars: [Unicode.Scalar]
        private var index = 0

        init(_ text: String) {
            scalars = Array(text.unicodeScalars)
        }

        private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
                || scalar == "\u{0B}"
        }

        mutating func next() -> String? {
            while index < scalars.count {
                let scalar = scalars[index]
                if Self.isSpace(scalar) {
                    index += 1
                } else if scalar == "#" {
                    while index < scalars.count, scalars[index] != "\n" { index += 1 }
                } else {
                    return scalar == "\"" ? quoted() : plain()
                }
            }
            return nil
        }

        private mutating func plain() -> String {
            var word = String.UnicodeScalarView()
            while index < scalars.count, !Self.isSpace(scalars[index]) {
                word.append(scalars[index])
                index += 1
            }
            return String(word)
        }

        /// A value in double quotes, from its opening quote; an unclosed one ends at the end of the file.
        private mutating func quoted() -> String {
            var word = String.UnicodeScalarView()
            index += 1
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == "\"" { break }
                if scalar == "\\", index < scalars.count {
                    let escaped = scalars[index]
                    index += 1
                    switch escaped {
                    case "n": word.append("\n")
                    case "r": word.append("\r")
                    case "t": word.append("\t")
                    default: word.append(escaped)
                    }
                } else {
                    word.append(scalar)
                }
            }
            return String(word)
        }

        /// A `macdef` macro: its name, then its lines up to an empty line.
        mutating func skipMacro() {
            while index < scalars.count, scalars[index] != "\n" { index += 1 }
            var previousWasNewline = false
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == "\n" {
                    if previousWasNewline { return }
                    previousWasNewline = true
                } else if scalar != "\r" {
                    previousWasNewline = false
                }
            }
        }
    }

    /// Why a netrc file cannot be used.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The netrc file at `path`: it must be a regular file that neither the group nor others can
    /// read or write (it holds passwords). `required`: a missing file is an error (`--netrc-file`)
    /// rather than no entries (`-n` without `~/.netrc`, as curl).
    static func load(_ path: String, required: Bool) throws(Problem) -> Netrc {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if errno == ENOENT, !required { return Netrc() }
            throw Problem(description: "cannot read the netrc file \(path): \(reason)")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Problem(description: "the netrc file \(path) is not a regular file")
        }
        guard status.st_mode & 0o066 == 0 else {
            throw Problem(
                description: "the netrc file \(path) can be read or changed by other users, and it holds"
                    + " passwords: make it yours alone with chmod 600 \(path)")
        }
        guard status.st_size <= maximumSize else {
            throw Problem(description: "the netrc file \(path) is larger than 1 MiB: it is not a netrc file")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if count < 0 {
                    throw Problem(
                        description: "cannot read the netrc file \(path): \(String(cString: strerror(errno)))")
                }
                break
            }
            bytes += buffer[..<count]
            guard bytes.count <= maximumSize else {
                throw Problem(description: "the netrc file \(path) is larger than 1 MiB: it is not a netrc file")
            }
        }
        return Netrc(parsing: String(decoding: bytes, as: UTF8.self))
    }

    private init() {}
}
