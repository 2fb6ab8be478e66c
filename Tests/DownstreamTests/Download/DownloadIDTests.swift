import Foundation
import Testing

@testable import Downstream

struct DownloadIDTests {
    @Test func newIdentifiersAreRandomVersion4UUIDs() {
        let ids = (0..<1000).map { _ in Download.ID() }
        #expect(Set(ids).count == ids.count)
        for id in ids {
            let bytes = id.rawValue.uuid
            #expect(bytes.6 >> 4 == 4, "version 4")
            #expect(bytes.8 >> 6 == 0b10, "RFC 4122 variant")
            // What Foundation parses back is the same identifier.
            #expect(UUID(uuidString: id.rawValue.uuidString) == id.rawValue)
        }
    }

    /// The text records hold is Foundation's, for every byte value in every place.
    @Test func anIdentifiersTextIsFoundationsUUIDString() {
        var ids = (0..<1000).map { _ in Download.ID() }
        for byte in [UInt8(0x00), 0x0F, 0xA5, 0xF0, 0xFF] {
            ids.append(
                Download.ID(
                    rawValue: UUID(
                        uuid: (
                            byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte, byte,
                            byte
                        ))))
        }
        for id in ids {
            #expect(id.text == id.rawValue.uuidString)
            #expect(id.description == id.rawValue.uuidString)
        }
    }

    /// The random bytes come from a pool shared by every thread: no two identifiers made at
    /// once get the same bytes.
    @Test func identifiersMadeOnManyThreadsAtOnceAreDistinct() async {
        let ids = await withTaskGroup(of: [Download.ID].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<500).map { _ in Download.ID() } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(ids.count == 4000)
        #expect(Set(ids).count == ids.count)
    }
}
