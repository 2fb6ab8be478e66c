extension String {
    /// The directory part of this path: what is before its last `/` (`/` for a file at the root,
    /// `.` for a path without a directory).
    var parentPath: String {
        guard let slash = lastIndex(of: "/") else { return "." }
        return slash == startIndex ? "/" : String(self[..<slash])
    }

    /// The name part of this path: what is after its last `/` (all of it without one).
    var pathName: String {
        guard let slash = lastIndex(of: "/") else { return self }
        return String(self[index(after: slash)...])
    }
}
