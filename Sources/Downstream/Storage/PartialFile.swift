import Foundation

/// The bytes of a download received so far, appended in the order they arrive.
///
/// Small chunks (URLSession delivers at most 16 KiB at a time on Linux) are gathered in a fixed
/// buffer and written with one `pwrite` per buffer, so the per-chunk cost is a `memcpy`.
/// A `PartialFile` is used from one serial queue at a time (the session's delegate queue).
final class PartialFile {
    let path: String
    /// Bytes accepted so far, written or buffered.
    private(set) var length: Int64
    /// Bytes handed to the file system.
    private(set) var writtenLength: Int64

    private var descriptor: Int32?
    private let buffer: UnsafeMutableRawBufferPointer
    private var bufferedCount = 0
    private let throttle: DiskThrottle?

    /// Opens the partial file at `path`, keeping its first `keptLength` bytes and discarding the
    /// rest (a partial is only ever appended to from a known good length).
    init(
        path: String, keepingFirst keptLength: Int64, bufferCapacity: Int, throttle: DiskThrottle?
    ) throws(DownloadError) {
        self.path = path
        self.throttle = throttle
        let descriptor = try POSIXFile.openForWriting(atPath: path)
        do {
            try POSIXFile.truncate(descriptor, to: keptLength, path: path)
        } catch {
            POSIXFile.close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.length = keptLength
        self.writtenLength = keptLength
        self.buffer = .allocate(byteCount: max(bufferCapacity, 1), alignment: 16)
    }

    deinit {
        close()
        buffer.deallocate()
    }

    /// Appends `bytes`. On failure, the bytes that did not reach the file are dropped and
    /// ``writtenLength`` says how far the file is good.
    func append(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        guard !bytes.isEmpty else { return }
        if bufferedCount + bytes.count > buffer.count {
            try flush()
        }
        if bytes.count >= buffer.count {
            try writeThrough(bytes)
        } else {
            UnsafeMutableRawBufferPointer(rebasing: buffer[bufferedCount...]).copyMemory(from: bytes)
            bufferedCount += bytes.count
        }
        length += Int64(bytes.count)
    }

    /// Hands the buffered bytes to the file system.
    func flush() throws(DownloadError) {
        guard bufferedCount > 0 else { return }
        let pending = UnsafeRawBufferPointer(rebasing: buffer[..<bufferedCount])
        bufferedCount = 0
        try writeThrough(pending)
    }

    /// Flushes and puts the bytes on the disk (`fsync`).
    func synchronize() throws(DownloadError) {
        try flush()
        if let descriptor {
            try POSIXFile.synchronize(descriptor, path: path)
        }
    }

    /// Closes the file. Buffered bytes that were not flushed are dropped.
    func close() {
        if let descriptor {
            POSIXFile.close(descriptor)
        }
        descriptor = nil
        length = writtenLength
        bufferedCount = 0
    }

    private func writeThrough(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        guard let descriptor else {
            throw .fileSystem(path: path, reason: "the partial file is closed")
        }
        let (written, errorNumber) = POSIXFile.write(descriptor, bytes, at: writtenLength)
        writtenLength += Int64(written)
        throttle?.account(written)
        if let errorNumber {
            length = writtenLength
            throw POSIXFile.failure(path, "cannot write", errorNumber: errorNumber)
        }
    }
}
