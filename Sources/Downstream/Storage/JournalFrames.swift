import Foundation

/// The layout of the store's journal (see ``StoreJournal``): a file header, then frames, each a
/// whole change of one download's record.
///
/// The file header is the magic `DSJ` and the format version (1), then four zero bytes. A frame
/// is a 28-byte header, then its payload. The header is the magic `DJ`, the frame's kind (`P`: the
/// download's record is the payload, its JSON; `R`: the download is gone, no payload) and a zero
/// byte, then, little-endian, the payload's length (`UInt32`), the download's identifier (16
/// bytes), and the CRC-32 of the 24 bytes before it and of the payload. A frame cut short (a
/// process killed in the middle of its write) or whose checksum fails ends what is read.
enum JournalFrames {
    static let fileHeaderSize = 8
    static let headerSize = 28
    static let formatVersion: UInt8 = 1
    static let fileHeader: [UInt8] = [0x44, 0x53, 0x4A, formatVersion, 0, 0, 0, 0]  // "DSJ", 1
    /// Larger than any record: a length beyond it is damage, not a record.
    static let maximumPayload = 16 << 20

    enum Kind: UInt8, Sendable {
        case put = 0x50  // "P"
        case remove = 0x52  // "R"
    }

    /// A whole frame, as the scan finds it.
    struct Frame {
        var kind: Kind
        var id: UUID
        /// Where the frame starts in the file.
        var offset: Int64
        /// The frame's length, header included.
        var length: Int
        /// The whole frame's bytes; valid only during the call that hands the frame over.
        var bytes: UnsafeRawBufferPointer

        /// The frame's payload; valid only during the call that hands the frame over.
        var payload: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[headerSize...])
        }
    }

    /// The bytes of a frame.
    static func frame(_ kind: Kind, _ id: DownloadID, payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0x44, 0x4A, kind.rawValue, 0]
        bytes.reserveCapacity(headerSize + payload.count)
        append(UInt32(payload.count), to: &bytes)
        withUnsafeBytes(of: id.rawValue.uuid) { bytes.append(contentsOf: $0) }
        var checksum = bytes.withUnsafeBytes { CRC32.checksum($0) }
        checksum = payload.withUnsafeBytes { CRC32.checksum($0, continuing: checksum) }
        append(checksum, to: &bytes)
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// How a file's frames end.
    enum End: Equatable {
        /// Where the last whole frame ends: the file's end, or the start of a frame cut short.
        case whole(Int64)
        /// Bytes from this offset on are not a frame: damage, not an interrupted write.
        case damaged(Int64, String)
        /// The file is not a journal of a version this code reads.
        case newerFormat(UInt8)
        case notAJournal
    }

    /// Reads the frames of the journal at `path`, `length` bytes long, in order, handing each
    /// whole one to `body`; returns how they end. Reads a block at a time, never the whole file.
    /// - Parameter verifying: false to skip the checksums, of frames this process checked
    ///   already (a journal read again after its opening).
    static func scan(
        path: String, length: Int64, verifying: Bool = true, _ body: (Frame) -> Void
    ) throws(DownloadError) -> End {
        guard length >= Int64(fileHeaderSize) else {
            // A header whose first write was cut short is an empty journal, not damage.
            let start = length == 0 ? [] : try POSIXFile.bytes(atPath: path, in: 0..<length)
            return fileHeader.starts(with: start) ? .whole(0) : .notAJournal
        }
        let header = try POSIXFile.bytes(atPath: path, in: 0..<Int64(fileHeaderSize))
        guard header[0..<3].elementsEqual(fileHeader[0..<3]) else { return .notAJournal }
        guard header[3] == formatVersion else {
            return header[3] > formatVersion ? .newerFormat(header[3]) : .notAJournal
        }
        var pending: [UInt8] = []
        var pendingOffset = Int64(fileHeaderSize)
        var damage: String?
        try POSIXFile.read(atPath: path, from: Int64(fileHeaderSize), to: length) { block in
            guard damage == nil else { return }
            pending.append(contentsOf: block)
            var consumed = 0
            pending.withUnsafeBytes { bytes in
                while damage == nil {
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[consumed...])
                    switch parse(rest, at: pendingOffset + Int64(consumed), verifying: verifying) {
                    case .frame(let frame):
                        body(frame)
                        consumed += frame.length
                    case .incomplete:
                        return
                    case .damaged(let reason):
                        damage = reason
                    }
                }
            }
            pending.removeFirst(consumed)
            pendingOffset += Int64(consumed)
        }
        if let damage { return .damaged(pendingOffset, damage) }
        // What is left is the start of a frame whose write was cut short.
        return .whole(pendingOffset)
    }

    private enum Parsed {
        case frame(Frame)
        case incomplete
        case damaged(String)
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, at offset: Int64, verifying: Bool) -> Parsed {
        guard bytes.count >= 4 else {
            return bytes.isEmpty || isMagicPrefix(bytes) ? .incomplete : .damaged("no frame")
        }
        guard bytes[0] == 0x44, bytes[1] == 0x4A, let kind = Kind(rawValue: bytes[2]), bytes[3] == 0 else {
            return .damaged("no frame at byte \(offset)")
        }
        guard bytes.count >= headerSize else { return .incomplete }
        let announced = load(UInt32.self, bytes, at: 4)
        // Checked, not converted: a planted length above Int's 32 bits (watchOS) is damage, not a trap.
        guard let payloadLength = Int(exactly: announced), payloadLength <= maximumPayload else {
            return .damaged("a frame of \(announced) bytes")
        }
        guard bytes.count >= headerSize + payloadLength else { return .incomplete }
        if verifying {
            var checksum = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<24]))
            let payload = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<(headerSize + payloadLength)])
            checksum = CRC32.checksum(payload, continuing: checksum)
            guard checksum == load(UInt32.self, bytes, at: 24) else {
                return .damaged("the frame at byte \(offset) fails its checksum")
            }
        }
        let id = UnsafeRawBufferPointer(rebasing: bytes[8..<24]).loadUnaligned(as: uuid_t.self)
        let length = headerSize + payloadLength
        return .frame(
            Frame(
                kind: kind, id: UUID(uuid: id), offset: offset, length: length,
                bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<length])))
    }

    private static func isMagicPrefix(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let magic: [UInt8] = [0x44, 0x4A]
        return bytes.count <= 2 && bytes.elementsEqual(magic.prefix(bytes.count))
            || bytes.count == 3 && bytes[0] == 0x44 && bytes[1] == 0x4A && Kind(rawValue: bytes[2]) != nil
    }

    private static func load<Value: FixedWidthInteger>(
        _: Value.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int
    ) -> Value {
        Value(
            littleEndian: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + MemoryLayout<Value>.size)])
                .loadUnaligned(as: Value.self))
    }

    private static func append<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
