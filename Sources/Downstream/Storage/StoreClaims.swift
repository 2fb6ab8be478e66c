import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which process downloads to which place, among the processes that share a store (see
/// ``DownloadManager/Configuration-swift.struct/Storage-swift.struct/isSharedByProcesses``): a
/// place is held by one manager at a time, so that two never write the same file at once.
///
/// A place is one byte of the store's `.claims` file, locked with a POSIX record lock
/// (`fcntl(F_SETLK)`) at an offset made from its path: one descriptor per store and process,
/// however many places, the kernel gives every lock up when its process dies, and a refused lock
/// names the process that holds it (`F_GETLK`). Record locks belong to a process, not to a
/// descriptor, and closing any descriptor of the file drops them all: the file is opened once per
/// process and store, and never closed. Within a process, where record locks never conflict, a
/// set of the places held does the same work.
final class StoreClaims: Sendable {
    private static let byDirectory = Locked<[String: StoreClaims]>([:])

    private let path: String
    private let descriptor: Int32
    private let held = Locked<Set<String>>([])

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// The claims of the store at `directory`, the same object for every manager of this process.
    static func of(_ directory: URL) throws(DownloadError) -> StoreClaims {
        let path = directory.appendingPathComponent(".claims", isDirectory: false).path
        let result: Result<StoreClaims, DownloadError> = byDirectory.withLock { claims in
            if let existing = claims[path] { return .success(existing) }
            do throws(DownloadError) {
                let descriptor = try POSIXFile.openForWriting(atPath: path)
                let made = StoreClaims(path: path, descriptor: descriptor)
                claims[path] = made
                return .success(made)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let claims): return claims
        case .failure(let error): throw error
        }
    }

    /// Holds `place` for this process until the claim is given up; a place another manager holds
    /// is a ``DownloadError/Kind/destinationInUse`` that names it.
    func claim(_ place: String) throws(DownloadError) -> PlaceClaim {
        let holder: String? = held.withLock { held in
            guard !held.contains(place) else { return "another manager of this process" }
            var lock = Self.lock(F_WRLCK, place)
            while fcntl(descriptor, F_SETLK, &lock) != 0 {
                // Without record locks (a file system that has none), the place is held by
                // nobody else, as in a store that is not shared.
                guard errno == EAGAIN || errno == EACCES else { break }
                var probe = Self.lock(F_WRLCK, place)
                if fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK) {
                    return "process \(probe.l_pid), which shares the store \(path.parentPath)"
                }
                // Given up between the two calls: try again.
                lock = Self.lock(F_WRLCK, place)
            }
            held.insert(place)
            return nil
        }
        if let holder { throw .destinationInUse(path: place, by: holder) }
        return PlaceClaim(place: place, claims: self)
    }

    /// Gives `place` up (see ``PlaceClaim/release()``).
    fileprivate func release(_ place: String) {
        held.withLock { held in
            guard held.remove(place) != nil else { return }
            var lock = Self.lock(F_UNLCK, place)
            _ = fcntl(descriptor, F_SETLK, &lock)
        }
    }

    /// A lock of type `type` on the byte of `place`.
    private static func lock(_ type: Int32, _ place: String) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        // A stable 62-bit offset: well within off_t, and the same in every process.
        lock.l_start = off_t(clamping: StableHash.value(place) >> 2)
        lock.l_len = 1
        return lock
    }
}

/// A place of a shared store, held by the download that writes to it (see ``StoreClaims``):
/// given up when the download completes or is cancelled, when its manager is invalidated, or when
/// it is let go of. A failed or paused download keeps it: it may go on.
final class PlaceClaim: Sendable {
    let place: String
    private let claims: StoreClaims
    private let isHeld = Locked(true)

    fileprivate init(place: String, claims: StoreClaims) {
        self.place = place
        self.claims = claims
    }

    deinit {
        release()
    }

    func release() {
        let wasHeld = isHeld.withLock { held in
            defer { held = false }
            return held
        }
        if wasHeld { claims.release(place) }
    }
}
