import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Body {
    /// Compares the file at `url` with the body.
    ///
    /// Streams the file in 1 MiB blocks compared with `memcmp`, so it is fast even in debug
    /// builds.
    ///
    /// - Returns: `nil` when the file holds exactly the body's bytes; otherwise the offset of
    ///   the first differing byte, or the shorter of the two lengths when one is a prefix of
    ///   the other.
    /// - Throws: `POSIXError` when the file cannot be opened or read.
    public func firstMismatch(inFileAt url: URL) throws -> Int64? {
        let descriptor = url.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { return -1 }
            return open(path, O_RDONLY | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw POSIXError.current }
        defer { _ = close(descriptor) }

        let blockSize = 1 << 20
        let actual = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { actual.deallocate() }
        let expected = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { expected.deallocate() }

        var offset: Int64 = 0
        while true {
            let got = try Body.readFully(descriptor, into: actual)
            let comparable = Int.clamped(count - offset, atMost: got)
            if comparable > 0 {
                let expectedPart = UnsafeMutableRawBufferPointer(rebasing: expected[0..<comparable])
                fill(from: offset, into: expectedPart)
                if memcmp(actual.baseAddress!, expected.baseAddress!, comparable) != 0 {
                    var index = 0
                    while actual[index] == expected[index] { index += 1 }
                    return offset + Int64(index)
                }
            }
            if got > comparable { return count }  // the file is longer than the body
            offset += Int64(got)
            if got < blockSize {  // end of file
                return offset == count ? nil : offset
            }
        }
    }

    /// Reads until `buffer` is full or the file ends; returns the number of bytes read.
    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let result = read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            if result > 0 {
                filled += result
            } else if result == 0 {
                break
            } else if errno != EINTR {
                throw POSIXError.current
            }
        }
        return filled
    }
}
