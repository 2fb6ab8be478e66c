import Foundation

/// The bytes of a download received so far, appended in the order they arrive.
///
/// Small chunks (16 KiB at a time, from either transport) are gathered in a buffer, and a full
/// buffer goes to a queue of the file's own, which writes it with one `pwrite` while the receiving
/// thread fills the next one. At most ``maximumBuffers`` buffers exist: when they are all full,
/// the disk is behind, and ``hasRoom(for:)`` says so rather than letting bytes pile up
/// (the transfer then waits: libcurl pauses it). The last buffer (at a checkpoint, at the end) is
/// written on the calling thread when no other is waiting, so a small file never changes thread.
///
/// A disk that takes buffers at memory speed (the page cache, tmpfs: the last full buffer was
/// written at ``memorySpeed`` or faster) gets its full buffers from the receiving thread itself,
/// when no write is waiting, as curl writes: there a hand-off costs more than the write (a wake-up,
/// the copy read from another core's cache, and a paused transfer whenever the writer is not
/// scheduled soon enough; over HTTP/2 each pause also closes and reopens the stream's window).
/// The first buffer, and every one after a slower write, goes to the queue: the receiving thread
/// never waits for a disk not known to be fast.
///
/// One thread at a time appends (the transport's); ``writtenLength`` may be read from any.
final class PartialFile: @unchecked Sendable {
    // Safe: `current`, `bufferedCount`, `submittedLength`, `length` and `queue` belong to the one
    // thread that appends at a time; what the writer queue shares with it is in `shared`, locked;
    // a buffer handed to the queue is only touched by it until it comes back as spare.
    let path: String
    /// Bytes accepted so far, written or buffered.
    private(set) var length: Int64

    /// How many buffers a file may fill before the disk must catch up.
    static let maximumBuffers = 4
    /// The rate at which a full buffer's write counts as made in memory (1 GB/s: 256 KiB in
    /// 0.26 ms), so that the next is written on the receiving thread. tmpfs and the page cache take
    /// several GB/s; a disk that pushes back (dirty pages throttled, a slow device, a network file
    /// system) does not, and writing in turn with receiving would then slow the download.
    static let memorySpeed = 1_000_000_000

    private let capacity: Int
    /// The longest a write of a buffer may take to count as made at memory speed.
    private let fastWrite: Duration
    private let disk: (any DiskSimulation)?
    private var current: UnsafeMutableRawBufferPointer
    private var bufferedCount = 0
    /// Where the next buffer handed to the queue goes in the file.
    private var submittedLength: Int64
    private var queue: DispatchQueue?
    private let shared: Locked<Shared>

    private struct Shared {
        var descriptor: Int32?
        /// Bytes handed to the file system, in order.
        var writtenLength: Int64
        var failure: DownloadError?
        /// Buffers written and free again.
        var spare: [UnsafeMutableRawBufferPointer] = []
        var allocated = 1
        /// Buffers handed to the queue and not written yet.
        var pending = 0
        /// Called once when a buffer is free again, for an appender told to wait.
        var whenRoom: (@Sendable () -> Void)?
        /// Whether the last full buffer was written at memory speed (none was yet: not known).
        var writesAtMemorySpeed = false
    }

    /// Opens the partial file at `path`, keeping its first `keptLength` bytes and discarding the
    /// rest (a partial is only ever appended to from a known good length). `memorySpeed` is for
    /// tests: the rate at which a write counts as made in memory.
    convenience init(
        path: String, keepingFirst keptLength: Int64, bufferCapacity: Int, disk: (any DiskSimulation)? = nil,
        memorySpeed: Int = PartialFile.memorySpeed
    ) throws(DownloadError) {
        try self.init(
            path: path, appendingAt: keptLength, truncating: true, bufferCapacity: bufferCapacity, disk: disk,
            memorySpeed: memorySpeed)
    }

    /// Opens the partial file at `path` to write one segment of it, from byte `offset` on,
    /// leaving every other byte of the file as it is (other segments write there). ``length``
    /// and ``writtenLength`` are offsets in the whole file.
    convenience init(
        path: String, segmentFrom offset: Int64, bufferCapacity: Int, disk: (any DiskSimulation)? = nil
    ) throws(DownloadError) {
        try self.init(
            path: path, appendingAt: offset, truncating: false, bufferCapacity: bufferCapacity, disk: disk,
            memorySpeed: Self.memorySpeed)
    }

    private init(
        path: String, appendingAt offset: Int64, truncating: Bool, bufferCapacity: Int, disk: (any DiskSimulation)?,
        memorySpeed: Int
    ) throws(DownloadError) {
        self.path = path
        self.disk = disk
        // A file that starts empty is most often new: made in one call, it needs no checks and
        // no truncation.
        let created = truncating && offset == 0 ? try POSIXFile.createNew(atPath: path) : nil
        let descriptor: Int32
        if let created {
            descriptor = created
        } else {
            descriptor = try POSIXFile.openForWriting(atPath: path)
        }
        if truncating, created == nil {
            do {
                try POSIXFile.truncate(descriptor, to: offset, path: path)
            } catch {
                POSIXFile.close(descriptor)
                throw error
            }
        }
        length = offset
        submittedLength = offset
        capacity = max(bufferCapacity, 1)
        fastWrite = .seconds(Double(capacity) / Double(max(1, memorySpeed)))
        current = .allocate(byteCount: capacity, alignment: 16)
        shared = Locked(Shared(descriptor: descriptor, writtenLength: offset))
    }

    deinit {
        close()
        current.deallocate()
        shared.withLock { shared in
            for buffer in shared.spare { buffer.deallocate() }
            shared.spare = []
        }
    }

    /// Bytes handed to the file system.
    var writtenLength: Int64 {
        shared.withLock { $0.writtenLength }
    }

    /// Whether `count` more bytes can be appended without waiting for the disk.
    func hasRoom(for count: Int) -> Bool {
        bufferedCount + count <= capacity || count >= capacity || shared.withLock { Self.hasSpareBuffer($0) }
    }

    /// Calls `body` once a buffer is free: at once if one is, else on the writer's thread when
    /// the disk has written one (or the file was closed). One call waits at a time.
    func whenRoom(_ body: @escaping @Sendable () -> Void) {
        let isFree = shared.withLock { shared in
            let isFree = Self.hasSpareBuffer(shared) || shared.descriptor == nil
            if !isFree { shared.whenRoom = body }
            return isFree
        }
        if isFree { body() }
    }

    private static func hasSpareBuffer(_ shared: Shared) -> Bool {
        !shared.spare.isEmpty || shared.allocated < maximumBuffers || shared.failure != nil
    }

    /// Appends `bytes`, waiting for the disk if every buffer is full (see ``hasRoom(for:)``). On failure, the bytes that did not reach the file are dropped
    /// and ``writtenLength`` says how far the file is good.
    func append(_ bytes: UnsafeRawBufferPointer) throws(DownloadError) {
        guard !bytes.isEmpty else { return }
        if bufferedCount + bytes.count > capacity {
            try handOff()
        }
        if bytes.count >= capacity {
            try flush()
            try write(bytes, at: submittedLength)
            submittedLength += Int64(bytes.count)
        } else {
            UnsafeMutableRawBufferPointer(rebasing: current[bufferedCount...]).copyMemory(from: bytes)
            bufferedCount += bytes.count
        }
        length += Int64(bytes.count)
    }

    /// Hands every byte appended to the file system and returns once they are there.
    func flush() throws(DownloadError) {
        let pending = shared.withLock { $0.pending }
        if pending == 0, bufferedCount > 0 {
            // Nothing waits before it: written here, without a change of thread.
            let last = UnsafeRawBufferPointer(rebasing: current[..<bufferedCount])
            bufferedCount = 0
            try write(last, at: submittedLength)
            submittedLength += Int64(last.count)
        } else if pending > 0 {
            try handOff()
            queue?.sync {}
        }
        try throwFailure()
    }

    /// Flushes and puts the bytes on the disk (`fsync`).
    func synchronize() throws(DownloadError) {
        try flush()
        if let descriptor = shared.withLock({ $0.descriptor }) {
            try POSIXFile.synchronize(descriptor, path: path)
        }
    }

    /// Closes the file once the buffers handed to the disk are written. Bytes still in the buffer
    /// being filled are dropped.
    func close() {
        queue?.sync {}
        let (descriptor, whenRoom) = shared.withLock { shared in
            defer {
                shared.descriptor = nil
                shared.whenRoom = nil
            }
            return (shared.descriptor, shared.whenRoom)
        }
        if let descriptor {
            POSIXFile.close(descriptor)
        }
        whenRoom?()
        length = writtenLength
        submittedLength = length
        bufferedCount = 0
    }

    /// Hands the buffer being filled to the writer queue and takes an empty one: a spare, a new
    /// one, or, when the disk is behind, the first one written.
    private func handOff() throws(DownloadError) {
        try throwFailure()
        guard bufferedCount > 0 else { return }
        if shared.withLock({ $0.pending == 0 && $0.writesAtMemorySpeed }) {
            let full = UnsafeRawBufferPointer(rebasing: current[..<bufferedCount])
            bufferedCount = 0
            try writeTimed(full, at: submittedLength)
            submittedLength += Int64(full.count)
            return
        }
        // Only the queue touches it until it is spare again.
        nonisolated(unsafe) let full = current
        let count = bufferedCount
        let offset = submittedLength
        let next: UnsafeMutableRawBufferPointer? = shared.withLock { shared in
            shared.pending += 1
            if let spare = shared.spare.popLast() { return spare }
            guard shared.allocated < Self.maximumBuffers else { return nil }
            shared.allocated += 1
            return .allocate(byteCount: capacity, alignment: 16)
        }
        submittedLength += Int64(count)
        bufferedCount = 0
        let queue = writerQueue()
        queue.async { [self] in
            let isFailed = shared.withLock { $0.failure != nil }
            if !isFailed {
                try? writeTimed(UnsafeRawBufferPointer(rebasing: full[..<count]), at: offset)
            }
            let whenRoom = shared.withLock { shared in
                shared.pending -= 1
                shared.spare.append(full)
                defer { shared.whenRoom = nil }
                return shared.whenRoom
            }
            whenRoom?()
        }
        if let next {
            current = next
        } else {
            queue.sync {}
            current = shared.withLock { $0.spare.removeLast() }
        }
    }

    private func writerQueue() -> DispatchQueue {
        if let queue { return queue }
        let queue = DispatchQueue(label: "Downstream.partial-file")
        self.queue = queue
        return queue
    }

    /// Writes a buffer, and notes whether the disk took it at memory speed (see ``memorySpeed``).
    private func writeTimed(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        let start = ContinuousClock.now
        defer {
            let isFast = ContinuousClock.now - start <= fastWrite
            shared.withLock { $0.writesAtMemorySpeed = isFast }
        }
        try write(bytes, at: offset)
    }

    /// Writes `bytes` at `offset` (the calling thread's, or the queue's: never both at once).
    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(DownloadError) {
        guard let descriptor = shared.withLock({ $0.descriptor }) else {
            throw .fileSystem(path: path, reason: "the partial file is closed")
        }
        let (written, errorNumber) = POSIXFile.write(descriptor, bytes, at: offset)
        disk?.account(written)
        let failure = errorNumber.map { POSIXFile.failure(path, "cannot write", errorNumber: $0) }
        shared.withLock { shared in
            shared.writtenLength += Int64(written)
            if let failure, shared.failure == nil { shared.failure = failure }
        }
        if let failure { throw failure }
    }

    /// The first write that failed, if one did: then nothing more is written, and ``length``
    /// comes back to ``writtenLength``.
    private func throwFailure() throws(DownloadError) {
        guard let failure = shared.withLock({ $0.failure }) else { return }
        length = writtenLength
        submittedLength = length
        bufferedCount = 0
        throw failure
    }
}
