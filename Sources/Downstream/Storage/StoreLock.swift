import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A manager's hold on its store: exclusive, or shared with the other managers of a store shared
/// by processes (``DownloadManager/Configuration-swift.struct/Storage-swift.struct/isSharedByProcesses``).
///
/// Among processes it is a POSIX record lock (`fcntl(F_SETLK)`) on the store's `.lock` file, one
/// descriptor per store and process, released by the kernel when the process ends; within the
/// process, where record locks never conflict, a table of the stores held does the same job.
/// Unlike a `flock` lock, a record lock is not copied into a child process that anything in this
/// process spawns: a store a manager just gave up is free at once, so taking it never waits. A
/// store in use fails at once, naming the process that has it.
final class StoreLock: Sendable {
    private struct Held {
        var descriptor: Int32
        var isShared: Bool
        var holders: Int
    }

    /// The stores this process holds, by the path of their `.lock` file.
    private static let held = Locked<[String: Held]>([:])

    private let path: String
    private let isReleased = Locked(false)

    private init(path: String) {
        self.path = path
    }

    /// Takes the store at `directory`: `shared` with other managers that share it, or alone.
    static func take(_ directory: URL, shared: Bool) throws(DownloadError) -> StoreLock {
        let path = directory.appendingPathComponent(".lock", isDirectory: false).path
        let result: Result<StoreLock, DownloadError> = held.withLock { held in
            if var holding = held[path] {
                guard shared, holding.isShared else {
                    return .failure(inUse(directory, by: "another manager of this process", shared: shared))
                }
                holding.holders += 1
                held[path] = holding
                return .success(StoreLock(path: path))
            }
            let descriptor: Int32
            do throws(DownloadError) {
                descriptor = try POSIXFile.openForWriting(atPath: path)
            } catch {
                return .failure(error)
            }
            var lock = wholeFile(shared ? F_RDLCK : F_WRLCK)
            while fcntl(descriptor, F_SETLK, &lock) != 0 {
                // Without record locks (a file system that has none), the store is taken.
                guard errno == EAGAIN || errno == EACCES else { break }
                var probe = wholeFile(shared ? F_RDLCK : F_WRLCK)
                if fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) {
                    POSIXFile.close(descriptor)
                    return .failure(inUse(directory, by: "process \(probe.l_pid)", shared: shared))
                }
                // Given up between the two calls: try again.
                lock = wholeFile(shared ? F_RDLCK : F_WRLCK)
            }
            held[path] = Held(descriptor: descriptor, isShared: shared, holders: 1)
            return .success(StoreLock(path: path))
        }
        // Not `result.get()`: its throws are untyped in the iOS 16 SDK's standard library.
        switch result {
        case .success(let lock): return lock
        case .failure(let error): throw error
        }
    }

    deinit {
        release()
    }

    /// Gives the store up; the last holder in this process closes the descriptor, which releases
    /// the record lock.
    func release() {
        guard isReleased.setFirst() else { return }
        Self.held.withLock { held in
            guard var holding = held[path] else { return }
            holding.holders -= 1
            if holding.holders > 0 {
                held[path] = holding
            } else {
                held[path] = nil
                POSIXFile.close(holding.descriptor)
            }
        }
    }

    private static func inUse(_ directory: URL, by holder: String, shared: Bool) -> DownloadError {
        .managerUnavailable(
            "the download store \(directory.path) is in use by \(holder)"
                + (shared ? ", which does not share it" : "")
                + "; give each manager its own identifier or store directory, "
                + "or share the store (storage.isSharedByProcesses) in every one of them")
    }

    private static func wholeFile(_ type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return lock
    }
}
