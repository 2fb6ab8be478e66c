import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-O -`: copies the download's partial file to standard output while it grows, in order, as
/// far as the download's progress says its bytes are on the disk (dl has the library write each
/// chunk as it comes, see `Session.configuration`). The download itself goes on into dl's store
/// as any other does: a retry continues the file there, and a rerun finds its bytes.
///
/// The bytes written cannot be taken back. Before each read goes on past them, the last 64 KiB
/// written (kept in memory) are read again and compared: a file that was cut and written anew
/// (the library restarted it: the server's file changed, or it ignored a range) with other bytes
/// there ends the stream instead of sending a new version after the old one's start. The
/// session ends it at a ``DownloadEvent/restarted`` event too, whatever the bytes.
///
/// On a terminal, unless forced, bytes that look binary (a NUL byte, or text that is not UTF-8,
/// in the first 4 KiB; a NUL byte later) are refused before they are written, as curl refuses.
///
/// Reads and writes happen on a queue of the stream's own: a reader that is slow to take the
/// bytes holds that queue, never the session (the download goes on into the store meanwhile).
final class StandardOutputStream: @unchecked Sendable {
    // Safe: every stored property but the constants is touched only on `queue`.

    /// Why the stream ended before the file's end.
    enum Failure: Error, Equatable {
        /// The reader of standard output went away (`EPIPE`).
        case closed(written: Int64)
        /// The bytes look binary and standard output is a terminal.
        case binary(written: Int64)
        /// The file's bytes changed under what was already written.
        case changed(written: Int64)
        /// A read or write failed.
        case failed(String, written: Int64)

        var written: Int64 {
            switch self {
            case .closed(let written), .binary(let written), .changed(let written), .failed(_, let written): written
            }
        }
    }

    /// How many of the last bytes written are compared again before the next are written: the
    /// library's own overlap when it resumes.
    static let comparedTail = 64 * 1024
    /// How many first bytes tell text from binary on a terminal.
    static let sniffedLength = 4096
    private static let readLength = 1 << 20

    private let queue = DispatchQueue(label: "dl.standard-output")
    private let output: Int32
    private let refusesBinary: Bool
    private var partial: URL
    private var descriptor: Int32?
    /// Bytes written to standard output.
    private var written: Int64 = 0
    /// The last bytes written, at most ``comparedTail``.
    private var tail: [UInt8] = []
    /// Where ``pump()`` reads the tail again and what follows it: made once, not at every
    /// progress (20 a second), each time a 1 MiB zeroed array.
    private var buffer = [UInt8](repeating: 0, count: comparedTail + readLength)
    /// Bytes the progress says are on the disk: never read past them, so that bytes an earlier
    /// run left, not confirmed yet, never go out.
    private var limit: Int64 = 0
    /// Until the download's first answer: bytes an earlier run kept wait for the server to
    /// confirm them (``DownloadEvent/resumed(at:)``) or replace them.
    private var waitsForAnswer: Bool
    private var isComplete = false
    private var sniffed = false
    private var failure: Failure?
    private let onFailure: @Sendable (Failure) -> Void

    /// A stream of the file that `partial` grows into to `output`. `keptBytes`: what an earlier
    /// run kept there (then nothing is written before the server's answer). `refusesBinary`: for
    /// a terminal that was not forced. `onFailure` is called once, on the stream's queue, when the
    /// stream ends early.
    init(
        partial: URL, keptBytes: Int64, refusesBinary: Bool, output: Int32 = STDOUT_FILENO,
        onFailure: @escaping @Sendable (Failure) -> Void
    ) {
        self.partial = partial
        self.output = output
        self.refusesBinary = refusesBinary
        self.onFailure = onFailure
        waitsForAnswer = keptBytes > 0
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    /// The download's progress says `bytes` are on the disk: writes what is new.
    func advance(to bytes: Int64) {
        queue.async { [self] in
            limit = bytes
            pump()
        }
    }

    /// The server answered: the file's bytes from now on are its, resumed or from the first byte.
    func answered() {
        queue.async { [self] in
            waitsForAnswer = false
            pump()
        }
    }

    /// The library started the file over: fine before the first byte went out, an end after.
    func restarted() async -> Failure? {
        await run { [self] in
            waitsForAnswer = false
            guard failure == nil, written > 0 else { return failure }
            return end(.changed(written: written))
        }
    }

    /// The file is complete at `file`: writes the rest of it; returns why it could not be.
    func finish(at file: URL) async -> Failure? {
        await run { [self] in
            guard failure == nil else { return failure }
            // The same file, moved: read from its new name (with the tail compared again).
            if let descriptor { close(descriptor) }
            descriptor = nil
            partial = file
            waitsForAnswer = false
            isComplete = true
            limit = .max
            pump()
            guard failure == nil else { return failure }
            guard let descriptor, let length = try? Self.length(of: descriptor), length == written else {
                return end(.failed("\(file.path) is not the file written to standard output", written: written))
            }
            return nil
        }
    }

    /// Writes the bytes on the disk up to `bytes` (a paused or failed download's; never fewer than
    /// the progress said before), and returns once they went out: a run that ends on Ctrl-C or a
    /// failure leaves none of them behind.
    func drain(upTo bytes: Int64) async {
        await run { [self] in
            limit = max(limit, bytes)
            pump()
        }
    }

    /// Bytes written to standard output so far.
    func writtenCount() async -> Int64 {
        await run { [self] in written }
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Writes the bytes on the disk past those written, up to ``limit``.
    private func pump() {
        guard failure == nil, !waitsForAnswer, written < limit else { return }
        if descriptor == nil {
            let opened = open(partial.path, O_RDONLY | O_CLOEXEC)
            // Not there yet: the first bytes make it.
            guard opened >= 0 else { return }
            descriptor = opened
        }
        guard let descriptor else { return }
        while failure == nil, written < limit {
            let start = written - Int64(tail.count)
            // At most readLength (1 MiB): no clamping happens.
            let wanted = tail.count + Int(clamping: min(Int64(Self.readLength), limit - written))
            // An offset in a file: within off_t's range, which is at least 64 bits on every platform.
            let offset = off_t(clamping: start)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                end(.failed("cannot read \(partial.path): \(String(cString: strerror(errno)))", written: written))
                return
            }
            // Shorter than what was written: cut, to be written anew; the tail decides once it is.
            guard count > tail.count else { return }
            guard buffer[..<tail.count].elementsEqual(tail) else {
                end(.changed(written: written))
                return
            }
            var fresh = buffer[tail.count..<count]
            if refusesBinary {
                if !sniffed {
                    // Enough to tell, or all there is.
                    guard fresh.count >= Self.sniffedLength || isComplete else { return }
                    sniffed = true
                    if Self.looksBinary(fresh.prefix(Self.sniffedLength), isWhole: fresh.count <= Self.sniffedLength) {
                        end(.binary(written: written))
                        return
                    }
                }
                if let zero = fresh.firstIndex(of: 0) {
                    // Text up to there, then binary: what came before goes out.
                    fresh = fresh[..<zero]
                    if !write(fresh) { return }
                    end(.binary(written: written))
                    return
                }
            }
            if !write(fresh) { return }
        }
    }

    /// Writes `bytes` to the output and keeps their tail; false when the stream ended.
    private func write(_ bytes: ArraySlice<UInt8>) -> Bool {
        var copy = Array(bytes)
        if let errorNumber = copy.withUnsafeMutableBytes({ Terminal.writeAll($0, to: output) }) {
            if errorNumber == EPIPE {
                end(.closed(written: written))
            } else {
                end(
                    .failed(
                        "cannot write to standard output: \(String(cString: strerror(errorNumber)))", written: written))
            }
            return false
        }
        written += Int64(copy.count)
        tail += copy
        if tail.count > Self.comparedTail {
            tail.removeFirst(tail.count - Self.comparedTail)
        }
        return true
    }

    @discardableResult
    private func end(_ failure: Failure) -> Failure {
        guard self.failure == nil else { return self.failure ?? failure }
        self.failure = failure
        onFailure(failure)
        return failure
    }

    private static func length(of descriptor: Int32) throws -> Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw POSIXError(.EIO) }
        return Int64(info.st_size)
    }

    /// Whether `bytes`, a file's first, look binary: a NUL byte, or not UTF-8 (a character cut at
    /// the end of bytes that are not the whole file is fine).
    static func looksBinary(_ bytes: some Collection<UInt8>, isWhole: Bool) -> Bool {
        if bytes.contains(0) { return true }
        let bytes = Array(bytes)
        return !isUTF8(bytes.dropLast(isWhole ? 0 : cutCharacterLength(bytes)))
    }

    /// How many of the last bytes of `bytes` are the start of a character cut off: a lead byte
    /// that announces more bytes than follow it, and the continuation bytes that do.
    private static func cutCharacterLength(_ bytes: [UInt8]) -> Int {
        // A character is at most 4 bytes: one cut at the end leaves at most 3.
        for count in 1...min(3, bytes.count) {
            let lead = bytes[bytes.count - count]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
            if length > 0 { return length > count ? count : 0 }
            // A continuation byte (10xxxxxx) goes on back to its lead; anything else ends the search.
            if lead & 0xC0 != 0x80 { return 0 }
        }
        return 0
    }

    private static func isUTF8(_ bytes: some Collection<UInt8>) -> Bool {
        let failed = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return !failed
    }
}
