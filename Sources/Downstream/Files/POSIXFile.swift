import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers over the POSIX calls the storage layer needs, with `DownloadError` failures.
package enum POSIXFile {
    /// Opens (creating with owner-only permissions) a file of our own for writing.
    static func openForWriting(_ url: URL, exclusive: Bool = false) throws(DownloadError) -> Int32 {
        try openForWriting(atPath: url.path, exclusive: exclusive)
    }

    /// Opens (creating with owner-only permissions) a file of our own for writing: never through a
    /// symbolic link, and only a regular file with one name that this process's user owns (see
    /// ``checkIsOwnFile(_:path:)``). Anything else is a `fileSystem` error naming `path`, and
    /// nothing is written.
    package static func openForWriting(atPath path: String, exclusive: Bool = false) throws(DownloadError) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (exclusive ? O_EXCL : 0)
        return try ownFile(retryingOnInterrupt { open(path, flags, 0o600) }, path: path)
    }

    /// Creates the file at `path` (owner-only permissions) and opens it for writing, if there is
    /// nothing at `path`: a file this call made is regular, empty, ours and has one name, so it
    /// needs none of the checks of ``openForWriting(atPath:exclusive:)``. Nil when something is
    /// there already (a file, a link, anything): open it the checked way then.
    static func createNew(atPath path: String) throws(DownloadError) -> Int32? {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let descriptor = retryingOnInterrupt { open(path, flags, 0o600) }
        guard descriptor < 0 else { return descriptor }
        if errno == EEXIST { return nil }
        throw failure(path, "cannot create")
    }

    /// Opens an existing file of our own with `flags` (`O_NOFOLLOW` and `O_CLOEXEC` added),
    /// checked as ``openForWriting(atPath:exclusive:)`` checks it; nil if there is none.
    static func openExistingOwnFile(atPath path: String, flags: Int32) throws(DownloadError) -> Int32? {
        let descriptor = retryingOnInterrupt { open(path, flags | O_NOFOLLOW | O_CLOEXEC) }
        if descriptor < 0, errno == ENOENT { return nil }
        return try ownFile(descriptor, path: path)
    }

    /// `descriptor`, just opened, if it is a file of our own; else it is closed and the error says
    /// why.
    private static func ownFile(_ descriptor: Int32, path: String) throws(DownloadError) -> Int32 {
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw .fileSystem(
                    path: path,
                    reason: "it is a symbolic link; Downstream writes its own files only, never through a link")
            }
            throw failure(path, "cannot open for writing")
        }
        do {
            try checkIsOwnFile(descriptor, path: path)
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Whether the open file is one that Downstream may write: a regular file (not a device, a
    /// pipe or a directory), with one name (a hard link would change another name's file too),
    /// owned by this process's user (a file another user made in a shared folder is theirs).
    private static func checkIsOwnFile(_ descriptor: Int32, path: String) throws(DownloadError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path, "cannot read the file's status") }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .fileSystem(path: path, reason: "it is not a regular file; Downstream writes its own files only")
        }
        guard info.st_nlink == 1 else {
            throw .fileSystem(
                path: path,
                reason: "it has \(info.st_nlink) names (hard links); writing it would change the file of the others")
        }
        guard info.st_uid == geteuid() else {
            throw .fileSystem(
                path: path, reason: "it belongs to user \(info.st_uid), not to this process's user \(geteuid())")
        }
    }

    /// Writes all of `bytes` at `offset`; returns how many bytes were written before a failure.
    package static func write(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64
    ) -> (written: Int, errorNumber: Int32?) {
        var written = 0
        while written < bytes.count {
            let result = pwrite(
                descriptor, bytes.baseAddress! + written, bytes.count - written, (offset + Int64(written)).fileOffset)
            if result < 0 {
                if errno == EINTR { continue }
                return (written, errno)
            }
            if result == 0 { return (written, EIO) }
            written += result
        }
        return (written, nil)
    }

    /// Reads the bytes of the file at `path` from `start` up to `end`, in order, handing each
    /// block (at most `blockSize` bytes, valid only during the call) to `body`.
    static func read(
        atPath path: String, from start: Int64, to end: Int64, blockSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(DownloadError) {
        guard end > start else { return }
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw failure(path, "cannot open for reading") }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, blockSize), alignment: 16)
        defer { buffer.deallocate() }
        var position = start
        while position < end {
            let wanted = Int.clamped(end - position, atMost: buffer.count)
            let count = pread(descriptor, buffer.baseAddress, wanted, position.fileOffset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw count == 0
                    ? .fileSystem(path: path, reason: "the file ended at byte \(position), before byte \(end)")
                    : failure(path, "cannot read")
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            position += Int64(count)
        }
    }

    /// The bytes of the file at `path` in `range`: for small ranges.
    static func bytes(atPath path: String, in range: Range<Int64>) throws(DownloadError) -> [UInt8] {
        guard let count = Int(exactly: range.upperBound - range.lowerBound) else {
            throw .fileSystem(path: path, reason: "\(range.upperBound - range.lowerBound) bytes do not fit in memory")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        try read(atPath: path, from: range.lowerBound, to: range.upperBound, blockSize: count) {
            bytes.append(contentsOf: $0)
        }
        return bytes
    }

    static func truncate(_ descriptor: Int32, to length: Int64, path: String) throws(DownloadError) {
        guard retryingOnInterrupt({ ftruncate(descriptor, length.fileOffset) }) == 0 else {
            throw failure(path, "cannot truncate to \(length) bytes")
        }
    }

    /// Reserves the disk space of a file of `length` bytes, where the file system can do it
    /// without writing (Linux `fallocate`); the file is then `length` bytes long. Elsewhere it
    /// does nothing: later writes take their space as they go.
    static func reserve(_ descriptor: Int32, length: Int64, path: String) throws(DownloadError) {
        #if os(Linux)
            guard let fallocate = linuxFallocate,
                retryingOnInterrupt({ fallocate(descriptor, 0, 0, length.fileOffset) }) != 0
            else { return }
            if errno == ENOSPC {
                throw .insufficientSpace(path: path, reason: "no room for the file's \(length) bytes")
            }
        #endif
    }

    #if os(Linux)
        /// Linux's `fallocate`, which Glibc's module does not show (it is a GNU extension); unlike
        /// `posix_fallocate` it never falls back to writing zeros.
        private static let linuxFallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
            guard let symbol = dlsym(nil, "fallocate") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
        }()
    #endif

    /// Creates `directory` (and its parents) if needed; a directory it creates is readable by
    /// its owner only.
    static func createPrivateDirectory(_ directory: URL) throws(DownloadError) {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .fileSystem(
                path: directory.path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }

    /// Checks that `directory` (followed if it is a link) is a directory this process's user owns
    /// and that neither its group nor others may write (see ``untrustedReason(_:isDirectory:)``):
    /// a store that a link planted in a shared folder points into another user's directory is
    /// refused, and so is one where others could plant records.
    static func checkIsOwnDirectory(_ directory: URL) throws(DownloadError) {
        var info = stat()
        guard stat(directory.path, &info) == 0 else { throw failure(directory, "cannot read the directory's status") }
        if let reason = untrustedReason(info, isDirectory: true) {
            throw .fileSystem(path: directory.path, reason: reason)
        }
    }

    /// Asks the file system to put the file's data and size on the disk (`fsync`).
    static func synchronize(_ descriptor: Int32, path: String) throws(DownloadError) {
        guard retryingOnInterrupt({ fsync(descriptor) }) == 0 else {
            throw failure(path, "cannot write to the disk")
        }
    }

    /// Synchronizes the file at `url`.
    static func synchronize(_ url: URL) throws(DownloadError) {
        let descriptor = retryingOnInterrupt { open(url.path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw failure(url, "cannot open to write it to the disk") }
        defer { close(descriptor) }
        try synchronize(descriptor, path: url.path)
    }

    package static func close(_ descriptor: Int32) {
        _ = closeDescriptor(descriptor)
    }

    /// The size of the regular file at `url`, or nil if there is none.
    static func length(of url: URL) -> Int64? {
        length(atPath: url.path)
    }

    static func length(atPath path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    static func isDirectory(atPath path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// What is at `path` when it is neither a regular file, a directory nor a link: "a device",
    /// "a pipe" or "a socket" (`/dev/null`, a FIFO); nil otherwise, or when nothing is there.
    static func specialFileKind(atPath path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return nil
        }
    }

    /// `name` in `directory`.
    static func path(_ name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    static func exists(_ url: URL) -> Bool {
        exists(atPath: url.path)
    }

    /// Whether anything (a link included) is at `path`.
    static func exists(atPath path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Sets the modification and access times of the file at `path` to `date`, to the
    /// microsecond (as `curl -R` does); false if they could not be set.
    @discardableResult
    package static func setModificationTime(_ date: Date, atPath path: String) -> Bool {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((interval - seconds) * 1_000_000) * 1000)
        let times = [time, time]
        return utimensat(AT_FDCWD, path, times, 0) == 0
    }

    static func remove(_ url: URL) {
        _ = unlink(url.path)
    }

    static func remove(atPath path: String) {
        _ = unlink(path)
    }

    static func failure(_ url: URL, _ what: String, errorNumber: Int32 = errno) -> DownloadError {
        failure(url.path, what, errorNumber: errorNumber)
    }

    static func failure(_ path: String, _ what: String, errorNumber: Int32 = errno) -> DownloadError {
        let reason = "\(what): \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
        if errorNumber == ENOSPC || errorNumber == EDQUOT {
            return .insufficientSpace(path: path, reason: reason)
        }
        return .fileSystem(path: path, reason: reason)
    }

    /// The bytes an unprivileged process may still write on the file system that holds `path`,
    /// or nil if the file system does not say (a pseudo file system such as `/proc` says it has
    /// no blocks at all: it has no room to tell of, and a write there fails for its own reason).
    static func availableBytes(atPath path: String) -> Int64? {
        space(atPath: path)?.available
    }

    /// The bytes an unprivileged process may still write on the file system that holds `path`,
    /// and the file system's size, or nil if it does not say (see ``availableBytes(atPath:)``).
    static func space(atPath path: String) -> (available: Int64, size: Int64)? {
        var status = statvfs()
        guard statvfs(path, &status) == 0, status.f_blocks > 0 else { return nil }
        func bytes(_ blocks: some BinaryInteger) -> Int64 {
            let (bytes, overflow) = Int64(blocks).multipliedReportingOverflow(by: Int64(status.f_frsize))
            return overflow ? Int64.max : bytes
        }
        return (bytes(status.f_bavail), bytes(status.f_blocks))
    }

    static func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result == -1 && errno == EINTR { continue }
            return result
        }
    }

    private static func closeDescriptor(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
            Darwin.close(descriptor)
        #elseif canImport(Musl)
            Musl.close(descriptor)
        #else
            Glibc.close(descriptor)
        #endif
    }
}

/// Writes whole files atomically: write a temporary file beside the target, then rename it.
enum AtomicFile {
    private static let temporarySuffix = ".downstream-tmp"

    /// Whether `name` is a temporary file of ``write(_:to:)``, left behind if the process died
    /// while writing.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(temporarySuffix)
    }

    /// - Parameter synchronize: whether the new file is on the disk (`fsync`) before it replaces
    ///   the old one, so that a power cut leaves the old file or the new one, never an empty one.
    static func write(
        _ data: Data, to url: URL, synchronize: Bool = false
    ) throws(DownloadError) {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(
                ".\(url.lastPathComponent).\(UInt32.random(in: .min ... .max))\(temporarySuffix)", isDirectory: false)
        let descriptor = try POSIXFile.openForWriting(temporary, exclusive: true)
        var failure: DownloadError?
        data.withUnsafeBytes { bytes in
            if let errorNumber = POSIXFile.write(descriptor, bytes, at: 0).errorNumber {
                failure = POSIXFile.failure(temporary, "cannot write", errorNumber: errorNumber)
            }
        }
        if failure == nil, synchronize {
            do {
                try POSIXFile.synchronize(descriptor, path: temporary.path)
            } catch {
                failure = error
            }
        }
        POSIXFile.close(descriptor)
        if failure == nil, rename(temporary.path, url.path) != 0 {
            failure = POSIXFile.failure(url, "cannot rename \(temporary.lastPathComponent) into place")
        }
        if let failure {
            POSIXFile.remove(temporary)
            throw failure
        }
    }
}
