/// The bytes just before a resume point, as the partial file holds them, and how far the first
/// bytes of a response matched them.
///
/// Every request that continues bytes on disk asks for these bytes again (a validator may be kept
/// by a replaced file); the response's first bytes must be the same before a single byte is
/// written. Bytes that differ mean the server's file is not the one the partial file holds.
///
/// A long stretch (a whole partial that a server sent again, see
/// ``ResponseDecision/BodyPlan/repeatsPartial``) is read from the disk a window at a time:
/// ``consume(_:)`` compares within the current window, ``readNextWindow()`` reads the next.
struct OverlapCheck: Sendable {
    /// The partial file's bytes the response must repeat next: the current window.
    private(set) var expected: [UInt8]
    /// How many bytes of the window the response repeated so far.
    private var matchedInWindow = 0
    /// How many bytes the response must repeat in all.
    let length: Int64
    /// How many of them the response repeated so far.
    private(set) var matched: Int64 = 0
    /// Where the expected bytes are, when they are read a window at a time.
    private let source: (path: String, start: Int64)?
    private let windowSize: Int

    init(expected: [UInt8]) {
        self.expected = expected
        length = Int64(expected.count)
        source = nil
        windowSize = expected.count
    }

    /// The bytes of the file at `path` in `range`, read `windowSize` bytes at a time.
    init(path: String, range: Range<Int64>, windowSize: Int = 1 << 20) throws(DownloadError) {
        length = range.upperBound - range.lowerBound
        source = (path, range.lowerBound)
        self.windowSize = max(1, windowSize)
        expected = try POSIXFile.bytes(
            atPath: path, in: range.lowerBound..<range.lowerBound + min(length, Int64(self.windowSize)))
    }

    /// Why a body whose overlap differs is not continued at `resumePoint`.
    func mismatch(before resumePoint: Int64) -> String {
        "the \(length) bytes before byte \(resumePoint) are not those on disk"
    }

    /// Whether every expected byte was matched: what follows in the body is new.
    var isComplete: Bool { matched == length }

    /// Whether the window was matched and more bytes are to come: read them first.
    var needsNextWindow: Bool { matchedInWindow == expected.count && !isComplete }

    /// Compares the body's next bytes with the expected ones of the current window. Returns how
    /// many of `bytes` were compared (the rest is new once ``isComplete``, else compared with the
    /// next window), or nil at the first byte that differs.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = min(bytes.count, expected.count - matchedInWindow)
        guard count > 0 else { return 0 }
        let equal = expected.withUnsafeBytes { expected in
            UnsafeRawBufferPointer(rebasing: expected[matchedInWindow..<matchedInWindow + count]).elementsEqual(
                UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        }
        guard equal else { return nil }
        matchedInWindow += count
        matched += Int64(count)
        return count
    }

    /// Reads the next window of expected bytes from the disk.
    mutating func readNextWindow() throws(DownloadError) {
        guard let source, needsNextWindow else { return }
        let start = source.start + matched
        expected = try POSIXFile.bytes(
            atPath: source.path, in: start..<start + min(length - matched, Int64(windowSize)))
        matchedInWindow = 0
    }
}
