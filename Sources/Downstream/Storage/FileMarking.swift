import Foundation

/// What the system is told about a file or directory Downstream writes: whether backups leave it
/// out, and its data-protection class (nil leaves the class as it is).
struct FileMarks: Sendable, Hashable {
    var excludedFromBackup: Bool
    var protection: FileProtection?
}

/// Tells the system about the files Downstream writes (see ``FileMarks``). Marking is best
/// effort: a file system that keeps no such marks (a Simulator without data protection, Linux)
/// changes nothing, and the download goes on.
protocol FileMarking: Sendable {
    func mark(_ path: String, _ marks: FileMarks)
}

/// The system's marks: resource values on Apple platforms, nothing elsewhere.
struct SystemFileMarking: FileMarking {
    func mark(_ path: String, _ marks: FileMarks) {
        #if canImport(Darwin)
            var url = URL(fileURLWithPath: path)
            var values = URLResourceValues()
            values.isExcludedFromBackup = marks.excludedFromBackup
            try? url.setResourceValues(values)
            if let protection = marks.protection {
                try? FileManager.default.setAttributes([.protectionKey: protection.type], ofItemAtPath: path)
            }
        #endif
    }
}

#if canImport(Darwin)
    extension FileProtection {
        /// Foundation's value.
        var type: FileProtectionType {
            switch code {
            case .none: .none
            case .complete: .complete
            case .completeUnlessOpen: .completeUnlessOpen
            case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
            }
        }
    }
#endif

/// How a manager marks what it writes: its own files (partial files, records, the store) with
/// the configuration's marks, delivered files as their request asks.
struct FileMarker: Sendable {
    var marking: any FileMarking = SystemFileMarking()
    /// The marks of partial files, records and the store.
    var own = FileMarks(excludedFromBackup: true, protection: .completeUntilFirstUserAuthentication)

    /// Marks a partial file, a record or a directory of the store.
    func markOwn(_ path: String) {
        marking.mark(path, own)
    }

    /// Marks a delivered file: backed up (it was a partial file, which was not), with
    /// `protection` if the request asks for one.
    func markDelivered(_ path: String, protection: FileProtection?) {
        marking.mark(path, FileMarks(excludedFromBackup: false, protection: protection))
    }
}
