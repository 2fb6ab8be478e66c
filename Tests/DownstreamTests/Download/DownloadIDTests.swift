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
