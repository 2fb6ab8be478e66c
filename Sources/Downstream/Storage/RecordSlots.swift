import Foundation

/// The layout of a record file: two slots of equal size, written alternately in place.
///
/// An update overwrites the older slot, so that a write torn by a power cut leaves the newer
/// one whole, and needs no new file (on ext4 a new file costs an inode allocation, which is
/// slow after many deletions; see the store). The file is twice the slot size long; the copy
/// with sequence number `n` is in slot `n % 2`; a reader takes the whole copy with the higher
/// sequence.
///
/// A slot is a 24-byte header, then the payload. The header is the magic `DSR` and the format
/// version (1), then, little-endian: the slot size (`UInt32`), the sequence (`UInt64`), the
/// payload's length (`UInt32`), and the CRC-32 of the 20 bytes before it and of the payload.
enum RecordSlots {
    static let headerSize = 24
    /// Where a slot's sequence number ends: magic, version, slot size, then the sequence.
    static let sequenceEnd = 16
    static let formatVersion: UInt8 = 1
    private static let magic: [UInt8] = [0x44, 0x53, 0x52]  // "DSR"
    /// Two slots of the smallest size fill one 4 KiB block.
    private static let minimumSlotSize = 2048

    /// Where the latest copy of a record is: its sequence number (hence its slot), and the size
    /// of the file's slots.
    struct Position: Sendable, Equatable {
        var sequence: UInt64
        var slotSize: Int

        var offset: Int { sequence % 2 == 0 ? 0 : slotSize }

        /// The position of the copy after this one.
        var next: Position { Position(sequence: sequence + 1, slotSize: slotSize) }

        func fits(_ payloadCount: Int) -> Bool {
            headerSize + payloadCount <= slotSize
        }
    }

    /// The position of the first copy of a record of `payloadCount` bytes: its slots leave room
    /// for the record to grow to twice its size.
    static func firstPosition(for payloadCount: Int) -> Position {
        var slotSize = minimumSlotSize
        while slotSize < 2 * (headerSize + payloadCount) {
            slotSize *= 2
        }
        return Position(sequence: 0, slotSize: slotSize)
    }

    /// The bytes of a slot holding `payload` as the copy at `position`.
    static func slot(_ payload: Data, at position: Position) -> [UInt8] {
        precondition(position.fits(payload.count), "the payload does not fit in its slot")
        var bytes = magic + [formatVersion]
        append(UInt32(position.slotSize), to: &bytes)
        append(position.sequence, to: &bytes)
        append(UInt32(payload.count), to: &bytes)
        var checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
        checksum = payload.withUnsafeBytes { CRC32.checksum($0, continuing: checksum) }
        append(checksum, to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// A whole file whose only copy is `payload` at `position`.
    static func file(_ payload: Data, at position: Position) -> [UInt8] {
        var file = [UInt8](repeating: 0, count: 2 * position.slotSize)
        let slot = slot(payload, at: position)
        file.replaceSubrange(position.offset..<position.offset + slot.count, with: slot)
        return file
    }

    /// What a record file holds.
    enum Contents: Equatable {
        /// The latest whole copy. `hasTornSlot` says the other slot holds an interrupted write.
        case record(Data, Position, hasTornSlot: Bool)
        /// Nothing: the process ended while creating the file.
        case empty
        /// No whole copy.
        case damaged(String)
        /// A layout of a newer version of Downstream.
        case newerFormat(UInt8)
    }

    static func read(_ file: Data) -> Contents {
        let bytes = [UInt8](file)
        guard bytes.contains(where: { $0 != 0 }) else { return .empty }
        if bytes.count >= 4, Array(bytes[0..<3]) == magic, bytes[3] > formatVersion {
            return .newerFormat(bytes[3])
        }
        // Slot 0 says the slot size; if it is torn, the file's length does (it was set when the
        // file was made, and slot 0 is only rewritten after slot 1 was written).
        let first = copy(in: bytes, at: 0, slotSize: nil)
        let slotSize = first?.position.slotSize ?? bytes.count / 2
        let second = slotSize >= headerSize ? copy(in: bytes, at: slotSize, slotSize: slotSize) : nil
        let copies = [first, second].compactMap { $0 }
        guard let latest = copies.max(by: { $0.position.sequence < $1.position.sequence }) else {
            return .damaged("no slot holds a whole copy of the record")
        }
        let otherOffset = latest.position.offset == 0 ? slotSize : 0
        let other = bytes.dropFirst(otherOffset).prefix(slotSize)
        let hasTornSlot = copies.count == 1 && other.contains { $0 != 0 }
        return .record(latest.payload, latest.position, hasTornSlot: hasTornSlot)
    }

    /// The whole copy in the slot at `offset`, if there is one.
    private static func copy(
        in bytes: [UInt8], at offset: Int, slotSize expected: Int?
    ) -> (payload: Data, position: Position)? {
        guard offset + headerSize <= bytes.count, Array(bytes[offset..<offset + 3]) == magic,
            bytes[offset + 3] == formatVersion
        else { return nil }
        // Sizes read from the file are checked before any sum: a planted one above Int's 32 bits
        // (watchOS) or past the file's end is no copy, never a trap. The slots lie within the file
        // (made 2 slots long), or the file is a first copy torn while it was made: the slot size
        // is then the one `firstPosition` gives. No planted size makes a later copy be written
        // gigabytes into the file.
        guard let slotSize = Int(exactly: integer(UInt32.self, in: bytes, at: offset + 4)),
            let count = Int(exactly: integer(UInt32.self, in: bytes, at: offset + 16)),
            count <= bytes.count - offset - headerSize
        else { return nil }
        let sequence = integer(UInt64.self, in: bytes, at: offset + 8)
        let checksum = integer(UInt32.self, in: bytes, at: offset + 20)
        let position = Position(sequence: sequence, slotSize: slotSize)
        guard slotSize >= minimumSlotSize, slotSize == expected ?? slotSize, position.offset == offset,
            position.fits(count), slotSize <= bytes.count || position == firstPosition(for: count)
        else { return nil }
        let payload = bytes[offset + headerSize..<offset + headerSize + count]
        var computed = bytes[offset..<offset + 20].withUnsafeBytes { CRC32.checksum($0) }
        computed = payload.withUnsafeBytes { CRC32.checksum($0, continuing: computed) }
        guard computed == checksum else { return nil }
        return (Data(payload), position)
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func integer<Value: FixedWidthInteger>(_: Value.Type, in bytes: [UInt8], at offset: Int) -> Value {
        var value: Value = 0
        for index in (0..<MemoryLayout<Value>.size).reversed() {
            value = value << 8 | Value(bytes[offset + index])
        }
        return value
    }
}
