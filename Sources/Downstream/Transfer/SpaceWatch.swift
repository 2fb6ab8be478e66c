/// Keeps a body of unknown length (chunked, or compressed and decoded) from filling the disk: the
/// free space is read after every ``interval`` bytes, and the body stops before it leaves the file
/// system less than its ``reserve(ofSize:)`` free. (A body of known length was measured against
/// the free space before its first byte.)
struct SpaceWatch {
    /// Bytes between two readings of the free space.
    static let interval: Int64 = 1 << 20

    /// The free space a body of unknown length leaves on a file system of `size` bytes: 5 % of it,
    /// at most 64 MiB.
    static func reserve(ofSize size: Int64) -> Int64 {
        min(size / 20, 64 << 20)
    }

    /// The directory of the file being written.
    let directory: String
    private var nextReading: Int64

    /// Watches a file whose length is `length` now.
    init(directory: String, from length: Int64) {
        self.directory = directory
        nextReading = length + Self.interval
    }

    /// Why the file cannot grow past `length` bytes, of which `unwritten` are still in its buffers
    /// (the disk has not counted them yet), when a reading is due and finds the disk nearly full.
    mutating func shortage(at length: Int64, unwritten: @autoclosure () -> Int64) -> DownloadError? {
        guard length >= nextReading else { return nil }
        nextReading = length + Self.interval
        guard let space = POSIXFile.space(atPath: directory) else { return nil }
        let reserve = Self.reserve(ofSize: space.size)
        guard space.available - unwritten() < reserve + Self.interval else { return nil }
        return .insufficientSpace(
            path: directory,
            reason: "the body's length is not known, and after \(length) bytes only \(space.available) bytes are "
                + "free; Downstream leaves \(reserve) free (5 % of the disk, at most 64 MiB)")
    }
}
