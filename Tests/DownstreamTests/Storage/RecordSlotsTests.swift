import Foundation
import Testing

@testable import Downstream

struct RecordSlotsTests {
    @Test func crc32MatchesTheStandardCheckValue() {
        let check = Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(check == 0xCBF4_3926)
        // Continuing over two parts gives the checksum of the whole.
        let first = Array("1234".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(Array("56789".utf8).withUnsafeBytes { CRC32.checksum($0, continuing: first) } == check)
        #expect([UInt8]().withUnsafeBytes { CRC32.checksum($0) } == 0)
    }

    @Test func theLatestWholeCopyIsRead() throws {
        let position = RecordSlots.firstPosition(for: 10)
        #expect(position.slotSize == 2048)
        var file = RecordSlots.file(Data("first".utf8), at: position)
        #expect(file.count == 4096)
        #expect(RecordSlots.read(Data(file)) == .record(Data("first".utf8), position, hasTornSlot: false))

        // Copies alternate between the slots.
        var latest = position
        for copy in 1...5 {
            latest = latest.next
            write(RecordSlots.slot(Data("copy \(copy)".utf8), at: latest), into: &file, at: latest.offset)
            #expect(RecordSlots.read(Data(file)) == .record(Data("copy \(copy)".utf8), latest, hasTornSlot: false))
        }
        #expect(latest.offset == 2048)
    }

    @Test func aTornWriteLeavesTheCopyBefore() {
        let position = RecordSlots.firstPosition(for: 100)
        var file = RecordSlots.file(Data(repeating: 0x41, count: 100), at: position)
        write(RecordSlots.slot(Data(repeating: 0x42, count: 100), at: position.next), into: &file, at: 2048)
        let third = position.next.next
        let slot = RecordSlots.slot(Data(repeating: 0x43, count: 100), at: third)
        // Every cut of the third copy, from none of it to all but its last byte.
        for written in 0..<slot.count {
            var torn = file
            write(Array(slot[..<written]), into: &torn, at: third.offset)
            guard case .record(let payload, let at, let isTorn) = RecordSlots.read(Data(torn)) else {
                Issue.record("no record after \(written) bytes written")
                continue
            }
            #expect(payload == Data(repeating: 0x42, count: 100) && at == position.next, "\(written) bytes written")
            // The first bytes of a header are those of the copy it replaces: torn once they differ.
            #expect(isTorn == (written > 8), "\(written) bytes written")
        }
        write(slot, into: &file, at: third.offset)
        #expect(RecordSlots.read(Data(file)) == .record(Data(repeating: 0x43, count: 100), third, hasTornSlot: false))
    }

    @Test func aFlippedBitIsCaught() {
        let position = RecordSlots.firstPosition(for: 5)
        let file = RecordSlots.file(Data("hello".utf8), at: position)
        for index in 0..<(RecordSlots.headerSize + 5) {
            var damaged = file
            damaged[index] ^= 0x10
            #expect(RecordSlots.read(Data(damaged)) != .record(Data("hello".utf8), position, hasTornSlot: false))
        }
    }

    /// A hostile store writes sizes no copy could have, with a checksum that matches them (a
    /// CRC is no signature): the copy is refused before any sum that could overflow (on
    /// watchOS, whose `Int` has 32 bits, converting these sizes would trap).
    @Test func aPlantedSizeBeyondThirtyTwoBitsIsNoCopy() {
        let position = RecordSlots.firstPosition(for: 5)
        for (field, planted) in [(4, UInt32.max), (16, UInt32.max), (16, UInt32(Int32.max)), (4, UInt32(Int32.max))] {
            var file = RecordSlots.file(Data("hello".utf8), at: position)
            withUnsafeBytes(of: planted.littleEndian) { file.replaceSubrange(field..<field + 4, with: $0) }
            var checksum = file[0..<20].withUnsafeBytes { CRC32.checksum($0) }
            checksum = file[RecordSlots.headerSize..<RecordSlots.headerSize + 5].withUnsafeBytes {
                CRC32.checksum($0, continuing: checksum)
            }
            withUnsafeBytes(of: checksum.littleEndian) { file.replaceSubrange(20..<24, with: $0) }
            if case .record = RecordSlots.read(Data(file)) {
                Issue.record("a copy whose field at \(field) says \(planted) was read")
            }
        }
    }

    @Test func emptyDamagedAndNewerFiles() {
        #expect(RecordSlots.read(Data()) == .empty)
        #expect(RecordSlots.read(Data(count: 4096)) == .empty)
        if case .damaged = RecordSlots.read(Data("{\"version\": 1}".utf8)) {
        } else {
            Issue.record("plain JSON is not a record file")
        }
        var newer = RecordSlots.file(Data("x".utf8), at: RecordSlots.firstPosition(for: 1))
        newer[3] = RecordSlots.formatVersion + 1
        #expect(RecordSlots.read(Data(newer)) == .newerFormat(RecordSlots.formatVersion + 1))
    }

    @Test func bigRecordsGetBiggerSlots() {
        #expect(RecordSlots.firstPosition(for: 1000).slotSize == 2048)
        #expect(RecordSlots.firstPosition(for: 1001).slotSize == 4096)
        let position = RecordSlots.firstPosition(for: 50_000)
        #expect(position.slotSize == 131_072)
        #expect(position.fits(2 * 50_000))
        #expect(!position.fits(position.slotSize))
        let payload = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        #expect(
            RecordSlots.read(Data(RecordSlots.file(payload, at: position)))
                == .record(payload, position, hasTornSlot: false))
    }

    private func write(_ bytes: [UInt8], into file: inout [UInt8], at offset: Int) {
        file.replaceSubrange(offset..<offset + bytes.count, with: bytes)
    }
}
