import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directories a record names its files relative to, so that it still names them after they
/// moved: iOS gives an updated app a new container path (the Simulator does on every install),
/// and a record with absolute paths would point outside the sandbox.
///
/// The bases are the directories the app registers
/// (``DownloadManager/Configuration-swift.struct/Storage-swift.struct/relocatableDirectories``),
/// the store's own directory, and the home directory (the app's container on Apple platforms;
/// `$HOME` on Linux, see ``HomeDirectory``). A path is stored relative to the deepest base it is
/// inside, as `~<base>/<rest>`, and absolute when it is inside none. Paths as older versions
/// stored them (absolute) are read as they are.
///
/// A process without a home directory (on Linux: `HOME` unset and a uid the password database
/// does not know) has no `home` base: it stores paths relative to the other bases or absolute,
/// and a record that names its files relative to the home directory is not resolved (the store
/// keeps it, and reports it, until a launch with a home directory).
struct PathBases: Sendable, Equatable {
    /// A base: its name in records, and its path (with symbolic links as given, and resolved:
    /// `/var` and `/private/var` are the same directory on Apple platforms).
    struct Base: Sendable, Equatable {
        let name: String
        let path: String
        let resolvedPath: String
    }

    /// Deepest first.
    let bases: [Base]

    /// - Parameters:
    ///   - home: the home directory; nil when the process has none.
    ///   - store: the store's directory.
    ///   - registered: the app's directories, by name.
    init(home: String?, store: String, registered: [String: URL] = [:]) {
        var bases = [Self.base("store", store)]
        if let home { bases.append(Self.base("home", home)) }
        for (name, url) in registered {
            bases.append(Self.base("app." + name, url.path))
        }
        self.bases = bases.filter { !$0.path.isEmpty }.sorted {
            ($0.path.count, $0.name) > ($1.path.count, $1.name)
        }
    }

    private static func base(_ name: String, _ path: String) -> Base {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        return Base(name: name, path: trimmed, resolvedPath: resolved(trimmed))
    }

    /// `path` with its symbolic links resolved (`realpath`), or as it is when it does not exist.
    private static func resolved(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// How a record stores `path`: relative to the deepest base it is inside, else as it is.
    /// Compares bytes, as file systems do, and makes nothing until it has the answer (a record is
    /// written for every download queued).
    func stored(_ path: String) -> String {
        // Apple platforms' /var and /tmp are links into /private.
        let privatePrefix = "/private"
        let unprivate: Substring? =
            path.utf8.starts(with: (privatePrefix + "/").utf8)
            ? Substring(path.utf8.dropFirst(privatePrefix.utf8.count)) : nil
        let inside = { (prefix: String) -> Substring? in
            Self.rest(of: path[...], under: prefix) ?? unprivate.flatMap { Self.rest(of: $0, under: prefix) }
        }
        for base in bases {
            if let rest = inside(base.path) ?? (base.resolvedPath == base.path ? nil : inside(base.resolvedPath)) {
                return "~\(base.name)" + rest
            }
        }
        return path
    }

    /// The path that a record's `stored` path names now, or nil when it names a base that is not
    /// one any more.
    func resolved(_ stored: String) -> String? {
        guard stored.hasPrefix("~") else { return stored }
        let name = stored.dropFirst().prefix { $0 != "/" }
        guard let base = bases.first(where: { $0.name == name }) else { return nil }
        return base.path + stored.dropFirst(1 + name.count)
    }

    /// What follows `prefix` in `path` (empty, or from a `/`), if `path` is `prefix` or inside it.
    private static func rest(of path: Substring, under prefix: String) -> Substring? {
        guard prefix != "/", path.utf8.starts(with: prefix.utf8) else { return nil }
        let rest = Substring(path.utf8.dropFirst(prefix.utf8.count))
        return rest.isEmpty || rest.utf8.first == UInt8(ascii: "/") ? rest : nil
    }
}
