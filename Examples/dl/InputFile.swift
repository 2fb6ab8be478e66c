import Downstream
import Foundation

/// One URL to download, with the options given for it alone.
struct Entry: Equatable {
    var url: URL
    var mirrors: [URL] = []
    var digest: Digest?
    /// The file name (or path relative to the output directory) to save it as.
    var out: String?
    /// What `-v` says about how it was read (a URL without a scheme is `http://`).
    var notices: [String] = []
}

/// The URL list of `-i FILE`, in the form aria2 reads:
///
/// ```
/// # comments and blank lines are skipped
/// https://example.com/a.iso
///   checksum=sha-256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
///   out=debian.iso
///   mirror=https://mirror.example.org/a.iso
/// https://example.com/b.zip	https://mirror.example.org/b.zip
/// ```
///
/// A line that starts with a letter is a URL (further URLs on it, separated by tabs, are its
/// mirrors); an indented line sets an option of the URL above it.
enum InputFile {
    /// The option lines an entry takes, for the message about an unknown one.
    static let optionNames = ["out", "checksum", "mirror"]
    /// The names of digests in aria2's `checksum=TYPE=HEX`.
    static let algorithms: [String: Digest.Algorithm] = [
        "sha-512": .sha512, "sha512": .sha512, "sha-384": .sha384, "sha384": .sha384,
        "sha-256": .sha256, "sha256": .sha256, "sha-1": .sha1, "sha1": .sha1, "md5": .md5,
    ]

    /// The entries of `text`, read from `name` (for messages: `urls.txt:3: …`).
    static func parse(_ text: String, name: String) throws(UsageError) -> [Entry] {
        var entries: [Entry] = []
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let location = "\(name):\(number + 1)"
            let content = line.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !content.isEmpty, !content.hasPrefix("#") else { continue }
            if let first = line.first, first == " " || first == "\t" {
                guard !entries.isEmpty else {
                    throw .other("\(location): an option line ('\(content)') must follow a URL")
                }
                try apply(option: content, to: &entries[entries.count - 1], at: location)
                continue
            }
            let urls = content.split(separator: "\t").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }
            var parsed: [URL] = []
            for text in urls {
                parsed.append(try Entry.url(text, at: location))
            }
            let notices = urls.compactMap { Entry.withAssumedScheme($0).notice.map { "\(location): \($0)" } }
            entries.append(Entry(url: parsed[0], mirrors: Array(parsed.dropFirst()), notices: notices))
        }
        return entries
    }

    private static func apply(option line: String, to entry: inout Entry, at location: String) throws(UsageError) {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard parts.count > 1, !value.isEmpty else {
            throw .other("\(location): '\(line)' is not NAME=VALUE (\(optionNames.joined(separator: ", ")))")
        }
        switch name {
        case "out":
            // Lists are often made by others: a name from one stays inside the output folder.
            if let problem = Entry.problem(withName: value) {
                throw .other("\(location): out=\(value) \(problem); a name from a list stays inside the output folder")
            }
            entry.out = value
        case "mirror":
            entry.mirrors.append(try Entry.url(value, at: location))
            if let notice = Entry.withAssumedScheme(value).notice { entry.notices.append("\(location): \(notice)") }
        case "checksum":
            // aria2's form: checksum=sha-256=HEX.
            let checksum = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard checksum.count == 2, let algorithm = algorithms[checksum[0].lowercased()] else {
                throw .other(
                    "\(location): checksum must be TYPE=HEX, TYPE one of sha-512, sha-384, sha-256, sha-1, md5")
            }
            entry.digest = try Digest.parse(algorithm, checksum[1], for: "\(location): checksum")
        default:
            throw .other(
                "\(location): unknown option '\(name)' (known: \(optionNames.joined(separator: ", ")))")
        }
    }
}

extension Entry {
    /// Why `name` (an input list's `out=`) would not name a file inside the output folder, if it
    /// would not: an absolute path, a `..` component, or a folder and no file name.
    static func problem(withName name: String) -> String? {
        if name.hasPrefix("/") || name.hasPrefix("~") {
            return "is an absolute path"
        }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains("..") {
            return "goes up out of the folder ('..')"
        }
        if let last = components.last, last.isEmpty || last == "." {
            return "names a folder, not a file"
        }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "holds a control character"
        }
        return nil
    }

    /// `text` as an HTTP or HTTPS URL (`http://` when it has no scheme: see
    /// ``withAssumedScheme(_:)``), or a usage error that says why not.
    static func url(_ text: String, at location: String? = nil) throws(UsageError) -> URL {
        let prefix = location.map { "\($0): " } ?? ""
        guard written(text) != .notAURL, let url = URL(string: withAssumedScheme(text).text),
            let scheme = url.scheme?.lowercased()
        else {
            throw .other("\(prefix)'\(text)' is not a URL (dl takes http:// and https:// URLs, or HOST[:PORT]/PATH)")
        }
        guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw .other("\(prefix)'\(text)' is not an http or https URL")
        }
        return url
    }
}
