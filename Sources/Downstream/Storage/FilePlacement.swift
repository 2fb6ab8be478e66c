import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Moves a complete partial file to its destination, honouring the conflict policy.
///
/// The destination appears in one step, whole, never written in place: a rename; for "do not
/// replace", a rename that fails if the name is taken (`renameat2` with `RENAME_NOREPLACE` on
/// Linux, `renamex_np` with `RENAME_EXCL` on Apple platforms), or, where the file system has no
/// such rename, a hard link (which fails atomically if the name is taken) and an unlink.
package enum FilePlacement {
    /// Creates the destination's directory and fails early when an exact destination file exists
    /// and may not be replaced, or is a device, a pipe or a socket (never replaced).
    /// - Parameter paths: `destination.paths`, when the caller has them.
    static func prepare(_ destination: Destination, paths: Destination.Paths? = nil) throws(DownloadError) {
        let paths = paths ?? destination.paths
        try createDirectory(atPath: paths.directory)
        if let file = paths.file { try refuseSpecialFile(at: file) }
        if let file = paths.file, destination.conflictPolicy == .fail, POSIXFile.exists(atPath: file) {
            throw .destinationExists(path: file)
        }
    }

    /// Moves the partial file at `partialPath` to `destination`, named `suggestedName` for a
    /// directory destination. Returns where the file is now. Works on paths: a URL's path is
    /// decoded each time it is read, and a small file's delivery read them a dozen times.
    package static func place(
        _ partialPath: String, at destination: Destination, suggestedName: String
    ) throws(DownloadError) -> URL {
        // The partial file is private to its owner; the delivered file gets the usual mode.
        _ = chmod(partialPath, mode_t(0o666) & ~processUmask)
        guard destination.isCoordinated else {
            return try placeUncoordinated(partialPath, at: destination, suggestedName: suggestedName)
        }
        let target = destination.fileURL ?? named(suggestedName, in: destination.directoryPath).url
        return try FileCoordination.replacing(target) { () throws(DownloadError) in
            try placeUncoordinated(partialPath, at: destination, suggestedName: suggestedName)
        }
    }

    /// Moves the partial file to its destination, making the destination's directory again if it
    /// went away since the download started.
    private static func placeUncoordinated(
        _ partialPath: String, at destination: Destination, suggestedName: String
    ) throws(DownloadError) -> URL {
        do {
            return try move(partialPath, to: destination, suggestedName: suggestedName)
        } catch {
            // The directory was made when the download started; if it went away since, again.
            guard !POSIXFile.isDirectory(atPath: destination.directoryPath) else { throw error }
            try createDirectory(atPath: destination.directoryPath)
            return try move(partialPath, to: destination, suggestedName: suggestedName)
        }
    }

    private static func move(
        _ partial: String, to destination: Destination, suggestedName: String
    ) throws(DownloadError) -> URL {
        let target: (url: URL, path: String) =
            destination.fileURL.map { ($0, destination.path) }
            ?? named(suggestedName, in: destination.directoryPath)
        switch destination.conflictPolicy.code {
        case .replace, .replaceIfChanged:
            try refuseSpecialFile(at: target.path)
            try move(partial, to: target.path)
            return target.url
        case .useExisting:
            // A file that appeared meanwhile is the download's file.
            if try !moveIfAbsent(partial, to: target.path) { POSIXFile.remove(atPath: partial) }
            return target.url
        case .fail, .continueExisting:
            // (A file that was continued is the partial file now: one there is another.)
            guard try moveIfAbsent(partial, to: target.path) else { throw .destinationExists(path: target.path) }
            return target.url
        case .uniqueName:
            if try moveIfAbsent(partial, to: target.path) { return target.url }
            let (directory, name) = (target.path.parentPath, target.path.pathName)
            for number in 1..<10_000 {
                let candidate = named(FileName.numbered(name, number), in: directory)
                if try moveIfAbsent(partial, to: candidate.path) { return candidate.url }
            }
            throw .destinationExists(path: target.path)
        }
    }

    /// Fails when `path` is a device, a pipe or a socket: a rename would put a regular file in its
    /// place (`/dev/null` replaced, for a process allowed to write in `/dev`).
    private static func refuseSpecialFile(at path: String) throws(DownloadError) {
        guard let kind = POSIXFile.specialFileKind(atPath: path) else { return }
        throw .fileSystem(
            path: path, reason: "it is \(kind), not a regular file: a download never replaces one")
    }

    /// The file `name` in the directory at `directory`, as a URL and a path.
    private static func named(_ name: String, in directory: String) -> (url: URL, path: String) {
        let path = POSIXFile.path(name, in: directory)
        return (URL(fileURLWithPath: path, isDirectory: false), path)
    }

    static func createDirectory(atPath path: String) throws(DownloadError) {
        // The common case, a directory that is there, costs one call.
        if POSIXFile.isDirectory(atPath: path) { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .fileSystem(path: path, reason: "cannot create the directory: \(error.localizedDescription)")
        }
    }

    /// Renames `source` to `target`, replacing it; copies first across file systems.
    static func move(_ source: URL, to target: URL) throws(DownloadError) {
        try move(source.path, to: target.path)
    }

    /// Renames the file at `source` to `target`, replacing it; copies first across file systems.
    static func move(_ source: String, to target: String) throws(DownloadError) {
        if rename(source, target) == 0 { return }
        guard errno == EXDEV else { throw POSIXFile.failure(target, "cannot move the file into place") }
        let copy = try copyBeside(source, target)
        guard rename(copy, target) == 0 else {
            let failure = POSIXFile.failure(target, "cannot move the file into place")
            POSIXFile.remove(atPath: copy)
            throw failure
        }
        POSIXFile.remove(atPath: source)
    }

    /// Moves `source` to `target` unless `target` exists; returns false if it does.
    private static func moveIfAbsent(_ source: String, to target: String) throws(DownloadError) -> Bool {
        if let renamed = renameUnlessTaken(source, target) { return renamed }
        if link(source, target) == 0 {
            POSIXFile.remove(atPath: source)
            return true
        }
        switch errno {
        case EEXIST:
            return false
        case EXDEV:
            let copy = try copyBeside(source, target)
            defer { POSIXFile.remove(atPath: copy) }
            guard try moveIfAbsent(copy, to: target) else { return false }
            POSIXFile.remove(atPath: source)
            return true
        case EPERM, ENOTSUP, EMLINK, ENOSYS:
            // A file system without hard links: check, then rename (not atomic, the best there is).
            guard !POSIXFile.exists(atPath: target) else { return false }
            try move(source, to: target)
            return true
        default:
            throw POSIXFile.failure(target, "cannot move the file into place")
        }
    }

    /// Renames `source` to `target` in one call that fails if `target` exists: true if renamed,
    /// false if the name is taken, nil if the system or the file system has no such call (or it
    /// failed otherwise: the caller's way then says why).
    private static func renameUnlessTaken(_ source: String, _ target: String) -> Bool? {
        #if canImport(Darwin)
            guard renamex_np(source, target, UInt32(RENAME_EXCL)) != 0 else { return true }
            return errno == EEXIST ? false : nil
        #elseif canImport(Glibc)
            // Looked up at run time: the Glibc module does not declare it (it needs _GNU_SOURCE).
            guard let renameat2 else { return nil }
            // 1: RENAME_NOREPLACE, from <linux/fs.h>.
            guard renameat2(AT_FDCWD, source, AT_FDCWD, target, 1) != 0 else { return true }
            return errno == EEXIST ? false : nil
        #else
            return nil
        #endif
    }

    #if !canImport(Darwin) && canImport(Glibc)
        private typealias RenameAt2 =
            @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

        /// glibc's `renameat2` (2.28 and later), if the process's C library has it.
        private static let renameat2: RenameAt2? = dlsym(nil, "renameat2").map {
            unsafeBitCast($0, to: RenameAt2.self)
        }
    #endif

    private static func copyBeside(_ source: String, _ target: String) throws(DownloadError) -> String {
        let copy = POSIXFile.path(
            ".\(target.pathName).\(UInt32.random(in: .min ... .max)).copy", in: target.parentPath)
        do {
            try FileManager.default.copyItem(atPath: source, toPath: copy)
        } catch {
            POSIXFile.remove(atPath: copy)
            throw .fileSystem(path: copy, reason: "cannot copy across file systems: \(error.localizedDescription)")
        }
        return copy
    }

    /// The process's file mode creation mask, read without changing it (`umask(2)` can only be
    /// read by setting it, which would race with other threads creating files).
    private static let processUmask: mode_t = {
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
                let value = mode_t(line.dropFirst("Umask:".count).trimmingWhitespace, radix: 8)
            {
                return value
            }
        #endif
        return 0o022
    }()
}
