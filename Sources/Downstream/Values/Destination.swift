import Foundation

/// Where a download's file goes.
///
/// A file appears at its destination only when it is complete: until then the bytes live in a
/// partial file (see ``DownloadManager/Configuration/Storage``), which is renamed into place at
/// the end. Missing intermediate directories are created.
public struct Destination: Sendable, Hashable, CustomStringConvertible {
    enum Location: Hashable {
        case file(URL)
        case directory(URL)
    }

    let location: Location
    /// What happens when the destination file already exists.
    public var conflictPolicy: ConflictPolicy

    /// Whether the finished file is put in place through a file coordinator: on Apple platforms a
    /// coordinated write (`NSFileCoordinator`, replacing the item), so that iCloud Drive, a File
    /// Provider, or an extension that reads an app group's container sees the file appear whole
    /// and is told of it; on Linux, which has no file coordination, the same placement without it.
    /// The file still appears only complete, as one version (see <doc:OneFileOneVersion>). False by
    /// default: a coordinated write waits for the other readers and writers of the file.
    public var isCoordinated = false

    /// Saves the download as exactly this file.
    ///
    /// - Parameters:
    ///   - url: a `file:` URL.
    ///   - ifExists: what to do when the file exists. By default the download fails with
    ///     ``DownloadError/Kind/destinationExists`` and keeps its data, before it starts when the
    ///     file is already there and again at the end.
    public static func file(_ url: URL, ifExists: ConflictPolicy = .fail) -> Destination {
        Destination(location: .file(standardized(url)), conflictPolicy: ifExists)
    }

    /// Saves the download in this directory, under the name the server suggests.
    ///
    /// The name comes from the response's `Content-Disposition` header, else from the last
    /// component of the final URL, and is made safe: no path separators, no `..`, no leading dot,
    /// no control or format characters (a bidirectional control would make the name display as
    /// another), at most 255 bytes with its extension kept (see ``fileName(for:)``).
    ///
    /// - Parameters:
    ///   - url: a `file:` URL of a directory.
    ///   - ifExists: what to do when a file of that name exists. By default the new file gets a
    ///     unique name (`name (1).ext`), as a browser does.
    public static func directory(_ url: URL, ifExists: ConflictPolicy = .uniqueName) -> Destination {
        Destination(location: .directory(standardized(url)), conflictPolicy: ifExists)
    }

    /// The name a directory destination gives the file of `url` when the server suggests none:
    /// the last component of its path, made safe as any name Downstream derives (no separators,
    /// no leading dot, no control or format characters, a reserved Windows name prefixed, at most
    /// 255 bytes with the extension kept); `download` when the path has none.
    ///
    /// ```swift
    /// Destination.fileName(for: URL(string: "https://example.com/a/invoice%E2%80%AEfdp.exe")!)
    /// // "invoicefdp.exe": without the right-to-left override, it displays as it is
    /// ```
    public static func fileName(for url: URL) -> String {
        FileName.suggested(contentDisposition: nil, url: url)
    }

    /// `url` as an absolute file URL without `.` or `..` components; itself when it is one
    /// already (standardizing makes a new URL, and apps make thousands of destinations).
    private static func standardized(_ url: URL) -> URL {
        // An app that queues files one by one makes the same destination each time: the last
        // one is remembered (`URL.path` decodes the URL on every read).
        if let last = lastStandardized.value, last.given == url { return last.standardized }
        let isStandard = url.isFileURL && url.baseURL == nil && isStandardPath(url.path)
        let standardized = isStandard ? url : url.standardizedFileURL
        lastStandardized.withLock { $0 = (url, standardized) }
        return standardized
    }

    /// The last URL given to ``standardized(_:)``, and what it made of it.
    private static let lastStandardized = Locked<(given: URL, standardized: URL)?>(nil)

    /// Whether `path` is absolute, without empty (`//`), `.` or `..` components: read in one pass
    /// over its bytes.
    static func isStandardPath(_ path: String) -> Bool {
        var bytes = path.utf8.makeIterator()
        guard bytes.next() == UInt8(ascii: "/") else { return false }
        // The component being read: its length, and whether it is only dots.
        var length = 0
        var onlyDots = true
        while true {
            let byte = bytes.next()
            guard byte == nil || byte == UInt8(ascii: "/") else {
                length += 1
                onlyDots = onlyDots && byte == UInt8(ascii: ".")
                continue
            }
            if length == 0 {
                // A slash after a slash; a slash at the end is fine.
                if byte != nil { return false }
            } else if length <= 2, onlyDots {
                return false
            }
            if byte == nil { return true }
            (length, onlyDots) = (0, true)
        }
    }

    /// The directory the file goes into.
    public var directoryURL: URL {
        switch location {
        case .file(let url): url.deletingLastPathComponent()
        case .directory(let url): url
        }
    }

    /// The path of ``directoryURL``, without making a URL.
    var directoryPath: String { paths.directory }

    /// The file or directory the destination names.
    private var namedURL: URL {
        switch location {
        case .file(let url), .directory(let url): url
        }
    }

    /// The path of the file or directory the destination names.
    var path: String { namedURL.path }

    /// The paths of a destination, decoded once: its exact file's (for a file destination) and
    /// its directory's.
    struct Paths: Sendable {
        var file: String?
        var directory: String
    }

    /// The destination's paths (a URL's path is decoded each time it is read).
    var paths: Paths {
        switch location {
        case .file(let url):
            let path = url.path
            return Paths(file: path, directory: path.parentPath)
        case .directory(let url):
            return Paths(file: nil, directory: url.path)
        }
    }

    /// The path of the file or directory, through `paths`: the same as ``path``.
    func path(through paths: inout LastPath) -> String {
        paths.path(of: namedURL)
    }

    /// The exact file, for a destination made with ``file(_:ifExists:)``.
    public var fileURL: URL? {
        if case .file(let url) = location { url } else { nil }
    }

    public var description: String {
        switch location {
        case .file(let url): "file \(url.path) (\(conflictPolicy))"
        case .directory(let url): "directory \(url.path) (\(conflictPolicy))"
        }
    }
}

extension Destination {
    /// What happens when the destination file already exists.
    public struct ConflictPolicy: Sendable, Hashable, CustomStringConvertible {
        enum Code: String, Sendable, Codable {
            case fail, replace, uniqueName, useExisting, replaceIfChanged, continueExisting
        }

        let code: Code

        /// Fail with ``DownloadError/Kind/destinationExists``. A file that exists before the
        /// download starts fails it at once, without a request and without leaving a record; one
        /// that appears while it runs fails it at the end, with the downloaded data kept. For a
        /// directory destination, whose name comes from the response, a name that is taken fails
        /// the download when the response's head comes, before its first byte is written.
        public static let fail = ConflictPolicy(code: .fail)
        /// Replace the existing file (atomically: it is whole at every moment).
        public static let replace = ConflictPolicy(code: .replace)
        /// Keep the existing file and save the new one as `name (1).ext`, `name (2).ext`, …
        public static let uniqueName = ConflictPolicy(code: .uniqueName)
        /// Keep the existing file and take it as the download's: the download completes at once
        /// with it, without a request and without leaving a record (wget's `--no-clobber`). A file
        /// that appears while the download runs wins too: the downloaded bytes are discarded.
        ///
        /// For a directory destination, whose name comes from the server, the name looked for
        /// before the first request is the one the URL gives (or the one a previous response
        /// gave); the name the response gives is looked for again at the end.
        public static let useExisting = ConflictPolicy(code: .useExisting)
        /// Download again only if the server's file changed since the existing copy (wget's `-N`,
        /// curl's `-z`): the first request is conditional, with the `ETag` and `Last-Modified` of
        /// the copy this manager delivered last time (kept in its store across relaunches), or
        /// else with the existing file's modification time. `304 Not Modified` completes the
        /// download with the existing file; a new file replaces it atomically at the end.
        public static let replaceIfChanged = ConflictPolicy(code: .replaceIfChanged)
        /// Continue the existing file when it is the start of the server's file (wget's
        /// `--continue`, curl's `-C -`): a file that another program, or an interrupted copy, left
        /// at the destination becomes the download's first bytes, and only the rest is downloaded.
        ///
        /// The first request asks for the rest from a little before the file's end (the last
        /// ``DownloadManager/Configuration/Resumption/overlapLength``
        /// bytes, at least 64 KiB, or the whole file if it is smaller) and compares those bytes
        /// with the file's before anything is written. Only when they match does the file become
        /// the download's partial file (renamed to where partial files go); the rest is appended
        /// to it, and the whole file appears at the destination when it is complete. A file as long
        /// as the server's whose last bytes match is the download's file: the download completes
        /// with it, untouched.
        ///
        /// The file is left exactly as it was (its bytes and its modification time), and the
        /// download fails with ``DownloadError/Kind/existingFileNotContinued`` (its
        /// ``DownloadError/reason`` says why), when the file cannot be continued: its last bytes differ from the server's, the server's file is not longer, the
        /// server sends no ranges (its whole file for a range), or the file is a folder. Until the
        /// bytes matched, nothing touches it: a pause, a failed request, or a process killed during
        /// the comparison leaves it where it was.
        ///
        /// A download that has bytes of its own (it ran before) continues those, and a file that
        /// appears at the destination meanwhile fails it at the end, as with ``fail``. Once
        /// continued, the file is the download's partial file: cancelling the download without
        /// keeping its data deletes it. Only for a file destination: a directory destination, whose
        /// name comes from the response, treats this as ``fail``.
        public static let continueExisting = ConflictPolicy(code: .continueExisting)

        public var description: String {
            switch code {
            case .fail: "fail if it exists"
            case .replace: "replace if it exists"
            case .uniqueName: "unique name if it exists"
            case .useExisting: "use the existing file"
            case .replaceIfChanged: "replace if changed on the server"
            case .continueExisting: "continue the existing file"
            }
        }
    }
}

/// The path of the URL asked for last, kept: `URL.path` decodes the URL on every call, and an app
/// that queues thousands of downloads gives most of them the same directory.
struct LastPath {
    private var last: (url: URL, path: String)?

    mutating func path(of url: URL) -> String {
        if let last, last.url == url { return last.path }
        let path = url.path
        last = (url, path)
        return path
    }
}
