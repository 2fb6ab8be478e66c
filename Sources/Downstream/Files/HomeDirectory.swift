import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's home directory: the one place Downstream learns it, for the store's default
/// place and as the base that records name files relative to (see ``PathBases``).
///
/// On Linux it is `$HOME` when that is a non-empty absolute path (as wget, curl, aria2 and the XDG
/// base directory specification read it), else the password database's home of the process's
/// user, else none: a container's arbitrary uid with `HOME` unset has no home directory.
/// Foundation does not do this on Linux (measured, Swift 6.3.1): `NSHomeDirectory()` and
/// `homeDirectoryForCurrentUser` give the password database's home whatever `$HOME` says, and for
/// a uid without an entry `$HOME` made absolute against the working directory (also when it is
/// relative or empty), or `/var/empty` when it is unset.
///
/// On Apple platforms it is the system's (`NSHomeDirectory()`): the app's container in a sandbox.
enum HomeDirectory {
    /// The home directory's path, or nil when the process has none.
    static var current: String? {
        #if canImport(Darwin)
            NSHomeDirectory()
        #else
            path(home: getenv("HOME").map { String(cString: $0) }) { passwordDatabaseHome(of: geteuid()) }
        #endif
    }

    /// The home directory given `home` (the value of `HOME`, if set) and the password database's
    /// home of the process's user: `home` if it is a non-empty absolute path, else the database's
    /// if that is one, else nil.
    static func path(home: String?, passwordDatabase: () -> String?) -> String? {
        if let home, home.hasPrefix("/") { return home }
        guard let entry = passwordDatabase(), entry.hasPrefix("/") else { return nil }
        return entry
    }

    /// The home directory of user `uid` in the password database (`getpwuid_r`); nil when the
    /// user has no entry, or it has no home.
    static func passwordDatabaseHome(of uid: uid_t) -> String? {
        var size = max(Int(sysconf(Int32(_SC_GETPW_R_SIZE_MAX))), 1024)
        while size <= 1 << 20 {
            var entry = passwd()
            var found: UnsafeMutablePointer<passwd>?
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
            defer { buffer.deallocate() }
            let result = getpwuid_r(uid, &entry, buffer, size, &found)
            if result == ERANGE {
                size *= 2
                continue
            }
            guard result == 0, found != nil, let directory = entry.pw_dir else { return nil }
            let path = String(cString: directory)
            return path.isEmpty ? nil : path
        }
        return nil
    }

    /// Why the process has no home directory, in words for an error (which says what to set).
    static var absence: String {
        "there is no home directory (HOME is not an absolute path, and user \(geteuid()) has no home in the "
            + "password database)"
    }
}
