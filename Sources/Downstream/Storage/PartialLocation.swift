import Foundation

/// Where a download keeps its partial file.
///
/// The location depends only on the request's URL and destination, so that a new download of the
/// same URL to the same place (after a cancel that kept the data) finds the bytes received before:
/// - a file destination `movie.mp4`: `movie.mp4.partial` beside it;
/// - a directory destination (the name is known only from the response): `<url name>.<hash>.partial`
///   in that directory;
/// - with a partials directory configured: `<name>.<hash>.partial` there.
struct PartialLocation: Hashable, Sendable {
    static let partialExtension = "partial"
    /// The URL that stands for a request's missing one (the request fails before it is used).
    static let noURL = URL(fileURLWithPath: "/invalid")

    /// The partial file's path. Kept as text: a download keeps its location for its whole life,
    /// and a URL costs several times the memory of its path.
    let path: String

    var partialURL: URL {
        URL(fileURLWithPath: path, isDirectory: false)
    }

    init(path: String) {
        self.path = path
    }

    /// - Parameter separateFrom: for a download that must not share its partial file with another
    ///   of the same URL and destination, its identifier, which goes into the name.
    /// - Parameter destinationPath: `destination.path`, when the caller has it (it costs a URL's
    ///   decoding).
    init(
        url: URL, destination: Destination, destinationPath: String? = nil, partialsDirectory: URL?,
        separateFrom id: DownloadID? = nil
    ) {
        // `URL.path` decodes the URL every time: read once.
        let destinationPath = destinationPath ?? destination.path
        let isFile = destination.fileURL != nil
        if partialsDirectory == nil, id == nil, isFile,
            Self.nameLength(of: destinationPath) + 1 + Self.partialExtension.utf8.count <= FileName.maximumByteCount
        {
            path = destinationPath + "." + Self.partialExtension
            return
        }
        // Otherwise `<name>.<key>.partial`, the name cut to fit: a file name may be 255 bytes
        // long, and its partial file's name too.
        let directoryPath = isFile ? destinationPath.parentPath : destinationPath
        // The hash of "target|url" (and "|id"), without joining them; the target is the file, or
        // "directory/*".
        var hash = StableHash.value(destinationPath)
        hash = StableHash.value(isFile ? "|" : "/*|", continuing: hash)
        hash = StableHash.value(url.absoluteString, continuing: hash)
        if let id { hash = StableHash.value("|\(id)", continuing: hash) }
        let key = StableHash.hex(of: hash)
        let name: String
        switch destination.location {
        case .file(let file):
            name = file.lastPathComponent
        case .directory:
            name = FileName.sanitize(FileName.fromURL(url) ?? FileName.fallback)
        }
        let shortName = FileName.truncated(name, limit: 200)
        // Made in one piece, of exactly its length: a queue of 100,000 keeps as many.
        let directory = partialsDirectory?.path ?? directoryPath
        let separator = directory.hasSuffix("/") ? "" : "/"
        let shortKey = partialsDirectory == nil ? key.prefix(8) : key[...]
        var path = String()
        path.reserveCapacity(
            directory.utf8.count + separator.utf8.count + shortName.utf8.count + shortKey.utf8.count
                + Self.partialExtension.utf8.count + 2)
        path += directory
        path += separator
        path += shortName
        path += "."
        path.append(contentsOf: shortKey)
        path += "."
        path += Self.partialExtension
        self.path = path
    }
}

extension PartialLocation {
    /// The UTF-8 length of the name part of `path` (what follows its last `/`), without making it.
    private static func nameLength(of path: String) -> Int {
        var length = 0
        for byte in path.utf8.reversed() {
            if byte == UInt8(ascii: "/") { break }
            length += 1
        }
        return length
    }

    /// Why `path`, a partial file a record names for a download to `destination`, is not where
    /// Downstream puts such a file, or nil when it is: an absolute path without `.` or `..`, named
    /// `….partial`, beside its destination (`<file>.partial`, or `<name>.<key>.partial` for a
    /// directory or a download kept apart) or in the manager's partials directory
    /// (`<name>.<key>.partial`). A record that names another place is not acted on: what a record
    /// says is deleted, written and continued.
    static func misplacement(
        of path: String, destinationPath: String, destinationIsDirectory: Bool, partialsDirectory: String?
    ) -> String? {
        // (Made only for a misplaced file: 100,000 records are checked at a launch.)
        var problem: String { "\(path) is not where Downstream puts the partial file of \(destinationPath)" }
        guard isPlainAbsolute(path), isPlainAbsolute(destinationPath) else {
            return problem + " (not a plain absolute path)"
        }
        let name = path.pathName
        let directory = path.parentPath
        let besideDestination = destinationIsDirectory ? destinationPath : destinationPath.parentPath
        if directory == besideDestination {
            if !destinationIsDirectory, name == destinationPath.pathName + "." + partialExtension { return nil }
            if isKeyed(name, keyLength: 8) { return nil }
        }
        if let partialsDirectory, directory == trimmed(partialsDirectory), isKeyed(name, keyLength: 16) {
            return nil
        }
        return problem
            + " (beside it in \(besideDestination)"
            + (partialsDirectory.map { ", or in the partials directory \(trimmed($0))" } ?? "") + ")"
    }

    /// Whether `name` is `<something>.<key>.partial` with a key of `keyLength` hexadecimal digits.
    /// (ASCII hexadecimal digits, as Downstream writes keys. Bytes, not characters, here and
    /// below: 100,000 records are checked at a launch.)
    private static func isKeyed(_ name: String, keyLength: Int) -> Bool {
        let suffix = ("." + partialExtension).utf8
        let bytes = name.utf8
        guard bytes.count > suffix.count, bytes.reversed().starts(with: suffix.reversed()) else { return false }
        let stem = bytes.dropLast(suffix.count)
        guard let dot = stem.lastIndex(of: UInt8(ascii: ".")), dot != stem.startIndex else { return false }
        let key = stem[stem.index(after: dot)...]
        return key.count == keyLength && key.allSatisfy(\.isASCIIHexDigit)
    }

    /// Whether `path` is absolute, with no empty, `.` or `..` component and no NUL.
    private static func isPlainAbsolute(_ path: String) -> Bool {
        Destination.isStandardPath(path) && (path == "/" || path.utf8.last != UInt8(ascii: "/"))
            && !path.utf8.contains(0)
    }

    private static func trimmed(_ directory: String) -> String {
        directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII hexadecimal digit.
    fileprivate var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
