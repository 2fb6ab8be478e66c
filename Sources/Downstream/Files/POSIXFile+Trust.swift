import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What Downstream reads from its store (records, the journal, trust bundles) is obeyed: it names
/// files to continue, to replace and to delete. So it is read only from files that nobody else
/// can have written: this process's user owns them, neither their group nor others may write
/// them, they are not reached through a symbolic link, and they have one name.
extension POSIXFile {
    /// Why the file (or, with `isDirectory`, the directory) that `info` describes is not one only
    /// this process's user can have written, or nil when it is. Without `checksMode`, a file its
    /// group or others may write passes: one the user made is the user's, whatever the umask.
    static func untrustedReason(_ info: stat, isDirectory: Bool = false, checksMode: Bool = true) -> String? {
        let type = info.st_mode & S_IFMT
        if isDirectory {
            guard type == S_IFDIR else { return "it is not a directory" }
        } else {
            guard type == S_IFREG else { return "it is not a regular file" }
            guard info.st_nlink == 1 else { return "it has \(info.st_nlink) names (hard links)" }
        }
        guard info.st_uid == geteuid() else {
            return "it belongs to user \(info.st_uid), not to this process's user \(geteuid())"
        }
        let writableByOthers = mode_t(S_IWGRP | S_IWOTH)
        guard !checksMode || info.st_mode & writableByOthers == 0 else {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            return "its group or other users may write it (mode \(mode)): what they write there would be obeyed; "
                + "make it writable by its owner only (chmod go-w)"
        }
        return nil
    }

    /// Checks that the file at `path`, if there is one, is one only this process's user can have
    /// written (see ``untrustedReason(_:isDirectory:)``); a link is refused, not followed.
    static func checkTrusted(atPath path: String) throws(DownloadError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw failure(path, "cannot read the file's status")
        }
        if (info.st_mode & S_IFMT) == S_IFLNK {
            throw .fileSystem(path: path, reason: "it is a symbolic link; Downstream reads its own files only")
        }
        if let reason = untrustedReason(info) {
            throw .fileSystem(path: path, reason: reason)
        }
    }

    /// The bytes of the file at `path`, if there is one, when only this process's user can have
    /// written it (see ``untrustedReason(_:isDirectory:)``): checked on the file opened, never
    /// through a symbolic link, so that nothing can be swapped in between.
    static func readTrusted(atPath path: String) throws(DownloadError) -> Data? {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            if errno == ELOOP {
                throw .fileSystem(path: path, reason: "it is a symbolic link; Downstream reads its own files only")
            }
            throw failure(path, "cannot open for reading")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path, "cannot read the file's status") }
        if let reason = untrustedReason(info) {
            throw .fileSystem(path: path, reason: reason)
        }
        // `st_size` is an Int64 on Darwin: a file too large for this process's memory is an error,
        // not a trap (watchOS's Int has 32 bits).
        guard let size = Int(exactly: Int64(info.st_size)) else {
            throw .fileSystem(
                path: path, reason: "it is \(info.st_size) bytes, more than this process can read into memory")
        }
        var data = Data(count: size)
        var read = 0
        while read < data.count {
            let count = data.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + read, buffer.count - read, Int64(read).fileOffset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                if count == 0 { break }
                throw failure(path, "cannot read")
            }
            read += count
        }
        return data.prefix(read)
    }

    /// Why a file cannot become a download's partial file in place of another program's.
    struct ContinuationRefusal: Error {
        var reason: String
    }

    /// The length of the file at `path` if it may become a download's partial file: a regular file
    /// (not what a link names: the link would be renamed, and the bytes appended where it points),
    /// with one name (appending would change its other names too), this process's user's (see
    /// ``untrustedReason(_:isDirectory:checksMode:)``). Else why not.
    static func continuableLength(atPath path: String) -> Result<Int64, ContinuationRefusal> {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return .failure(ContinuationRefusal(reason: "it cannot be read (errno \(errno))"))
        }
        let reason: String? =
            switch info.st_mode & S_IFMT {
            case S_IFDIR: "it is a folder"
            case S_IFLNK: "it is a symbolic link: a file is continued, not what a link names"
            case S_IFREG: untrustedReason(info, checksMode: false)
            default: "it is \(specialFileKind(atPath: path) ?? "not a regular file")"
            }
        if let reason { return .failure(ContinuationRefusal(reason: reason)) }
        return .success(Int64(info.st_size))
    }

    /// Deletes the file at `path` if it is a file Downstream may have made: a regular file (a link
    /// itself is left alone, and so is what it points to), with one name (a hard link would be
    /// another name of someone's file), owned by this process's user. Returns whether it did.
    @discardableResult
    static func removeOwnFile(atPath path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1,
            info.st_uid == geteuid()
        else { return false }
        return unlink(path) == 0
    }
}

/// A file of our own that Downstream holds open for another library to read (libcurl's CA
/// bundles): others read it through ``path``, which on Linux names the open file itself
/// (`/proc/self/fd/N`), so that what is read is what was checked, whatever the directory holds
/// by then. Closed when let go.
final class HeldFile: Sendable {
    /// A path that opens the file held: the descriptor's own on Linux, else the original one
    /// (which was checked).
    let path: String
    private let descriptor: Int32

    /// Opens the file at `path` (never through a link) and checks that it is one only this
    /// process's user can have written and that it holds `expected`.
    init(path: String, holding expected: Data) throws(DownloadError) {
        let descriptor = POSIXFile.retryingOnInterrupt { open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard descriptor >= 0 else { throw POSIXFile.failure(path, "cannot open for reading") }
        var info = stat()
        let reason: String? =
            fstat(descriptor, &info) != 0
            ? "cannot read the file's status" : POSIXFile.untrustedReason(info)
        if let reason {
            POSIXFile.close(descriptor)
            throw .fileSystem(path: path, reason: reason)
        }
        // Sizes compared as Int64 first (`st_size` is an Int64 on Darwin; watchOS's Int has 32 bits).
        let sameSize = Int64(info.st_size) == Int64(expected.count)
        var held = Data(count: sameSize ? expected.count : 0)
        let count = held.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard sameSize, count == held.count, held == expected else {
            POSIXFile.close(descriptor)
            throw .fileSystem(path: path, reason: "it does not hold what Downstream wrote into it")
        }
        self.descriptor = descriptor
        let own = "/proc/self/fd/\(descriptor)"
        self.path = FileManager.default.fileExists(atPath: own) ? own : path
    }

    deinit {
        POSIXFile.close(descriptor)
    }
}
