/// The data-protection class of a file on Apple platforms: when its contents can be read and
/// written, relative to the device's lock (Foundation's `FileProtectionType`). Other platforms
/// have no such classes: there it changes nothing.
///
/// A background download writes while the device may be locked: its partial file and records
/// need a class that allows it (``completeUntilFirstUserAuthentication``, the default of
/// ``DownloadManager/Configuration-swift.struct/Storage-swift.struct/fileProtection``). A file
/// with ``complete`` protection cannot be written or moved while the device is locked.
public struct FileProtection: Sendable, Hashable, CustomStringConvertible {
    enum Code: String, Sendable, Codable {
        case none
        case complete
        case completeUnlessOpen
        case completeUntilFirstUserAuthentication
    }

    let code: Code

    /// No protection: readable and writable at any time.
    public static let none = FileProtection(code: .none)
    /// Readable and writable only while the device is unlocked.
    public static let complete = FileProtection(code: .complete)
    /// Created while locked, and kept open, a file can still be written; opened only while
    /// unlocked.
    public static let completeUnlessOpen = FileProtection(code: .completeUnlessOpen)
    /// Readable and writable once the user has unlocked the device after it started.
    public static let completeUntilFirstUserAuthentication = FileProtection(code: .completeUntilFirstUserAuthentication)

    public var description: String { code.rawValue }
}
