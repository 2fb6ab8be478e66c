@testable import Downstream
import Foundation
import Testing
import DownstreamTesting

/// The partial file gathers chunks in buffers and hands full ones to the disk on a queue of its
/// own: the bytes land in order, and when the disk is behind it says so instead of piling up.
@Suite(.timeLimit(.minutes(1)))
struct PartialFileTests {
    @Test func theFileHoldsExactlyTheBytesAppendedInOrder() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.partial").path
        let file = try PartialFile(path: path, keepingFirst: 0, bufferCapacity: 4096)
        var appended: [UInt8] = []
        // Seeded: the system's generator costs a system call per byte, on a thread of the pool.
        var generator = SplitMix64(seed: 0x9A47_1A1F)
        // Chunks smaller than a buffer, and now and then one larger (written through).
        for index in 0..<600 {
            let count = index % 97 == 0 ? 10_000 : Int.random(in: 1...3000, using: &generator)
            let chunk = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try chunk.withUnsafeBytes { try file.append($0) }
            appended += chunk
        }
        try file.flush()
        #expect(file.length == Int64(appended.count))
        #expect(file.writtenLength == Int64(appended.count))
        file.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(appended))
    }

    /// A file that starts empty is made in one call when there is none (owner-only), and an
    /// existing one is cut to nothing, as before.
    @Test func aFileStartingEmptyIsNewAndOwnerOnlyOrCutToNothing() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.partial").path
        for existing in [nil, Data(repeating: 7, count: 5000)] {
            if let existing { try existing.writeWithoutSync(to: URL(fileURLWithPath: path)) }
            let file = try PartialFile(path: path, keepingFirst: 0, bufferCapacity: 4096)
            try [UInt8](repeating: 1, count: 10).withUnsafeBytes { try file.append($0) }
            try file.flush()
            file.close()
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(repeating: 1, count: 10))
            if existing == nil {
                let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(permissions == 0o600)
            }
        }
    }

    @Test func whenEveryBufferWaitsForTheDiskThereIsNoRoomUntilOneIsWritten() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.partial").path
        let disk = GatedDisk()
        defer { disk.open() }
        let file = try PartialFile(path: path, keepingFirst: 0, bufferCapacity: 4096, disk: disk)
        let chunk = [UInt8](repeating: 7, count: 1024)
        var appended = 0
        while file.hasRoom(for: chunk.count) {
            try chunk.withUnsafeBytes { try file.append($0) }
            appended += chunk.count
            #expect(appended <= PartialFile.maximumBuffers * 4096, "bytes pile up while the disk writes none")
            if appended > PartialFile.maximumBuffers * 4096 { return }
        }
        // Every buffer is full: one at the disk, the others waiting, the last being filled.
        #expect(appended == PartialFile.maximumBuffers * 4096)
        #expect(file.writtenLength == 0)

        let (rooms, room) = AsyncStream<Void>.makeStream()
        file.whenRoom { room.yield() }
        disk.allow(1)
        for await _ in rooms { break }
        #expect(file.writtenLength == 4096)
        #expect(file.hasRoom(for: chunk.count))

        disk.open()
        try chunk.withUnsafeBytes { try file.append($0) }
        try file.flush()
        #expect(file.writtenLength == Int64(appended + chunk.count))
        file.close()
        #expect(FileManager.default.contents(atPath: path) == Data(repeating: 7, count: appended + chunk.count))
    }

    /// The first full buffer goes to the queue; once a write was made at memory speed, the next
    /// full buffer is written by the appending thread itself when no write waits (as curl writes),
    /// and a disk slower than that never makes it wait.
    @Test(arguments: [true, false])
    func aDiskAtMemorySpeedIsWrittenByTheAppendingThread(isFast: Bool) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.partial").path
        let disk = ThreadRecordingDisk()
        // Every write counts as made at memory speed (1 byte/s), or none does.
        let file = try PartialFile(
            path: path, keepingFirst: 0, bufferCapacity: 4096, disk: disk, memorySpeed: isFast ? 1 : Int.max)
        let chunks = (0..<4).map { [UInt8](repeating: UInt8($0), count: 3000) }
        // The second chunk hands the first off; this thread waits while it is written (`flush()`
        // may write on the calling thread: it comes after).
        try chunks[0].withUnsafeBytes { try file.append($0) }
        try chunks[1].withUnsafeBytes { try file.append($0) }
        disk.waitForWrite()
        try file.flush()
        disk.waitForWrite()
        try chunks[2].withUnsafeBytes { try file.append($0) }
        try chunks[3].withUnsafeBytes { try file.append($0) }
        disk.waitForWrite()
        let threads = disk.threads
        let appendingThread = pthread_self()
        #expect(threads.count == 3)
        #expect(pthread_equal(threads[0], appendingThread) == 0, "a disk not known to be fast is written by the queue")
        #expect((pthread_equal(threads[2], appendingThread) != 0) == isFast)
        try file.flush()
        file.close()
        #expect(FileManager.default.contents(atPath: path) == Data(chunks.joined()))
    }

    @Test func segmentsWriteTheirOwnBytesAndLeaveTheOthersAlone() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("file.partial").path
        let whole = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        // The first third is on disk already, from an earlier run.
        try Data(whole[0..<100_000]).writeWithoutSync(to: URL(fileURLWithPath: path))
        let second = try PartialFile(path: path, segmentFrom: 100_000, bufferCapacity: 4096)
        let third = try PartialFile(path: path, segmentFrom: 200_000, bufferCapacity: 4096)
        // Chunks of both segments, interleaved, as two connections deliver them.
        for start in stride(from: 0, to: 100_000, by: 1000) {
            try whole[(200_000 + start)..<(200_000 + start + 1000)].withUnsafeBytes { try third.append($0) }
            try whole[(100_000 + start)..<(100_000 + start + 1000)].withUnsafeBytes { try second.append($0) }
        }
        try second.flush()
        try third.flush()
        #expect(second.writtenLength == 200_000)
        #expect(third.writtenLength == 300_000)
        second.close()
        third.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(whole))
    }

    @Test func aFileWithRoomCallsAtOnce() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try PartialFile(
            path: directory.appendingPathComponent("file.partial").path, keepingFirst: 0, bufferCapacity: 4096)
        let called = Locked(false)
        file.whenRoom { called.withLock { $0 = true } }
        #expect(called.withLock { $0 })
    }

    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("partial-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// A disk that notes the thread of each write.
private final class ThreadRecordingDisk: DiskSimulation {
    private let recorded = Locked<[pthread_t]>([])
    private let writes = DispatchSemaphore(value: 0)

    var threads: [pthread_t] { recorded.withLock { $0 } }

    func account(_ bytes: Int) {
        let thread = pthread_self()
        recorded.withLock { $0.append(thread) }
        writes.signal()
    }

    /// Returns once one more write was made (counting from the last call).
    func waitForWrite() {
        writes.wait()
    }
}
