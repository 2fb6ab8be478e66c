import Testing

@testable import Downstream

/// Partial files are named with the stable hash: it must never change, or a new version would
/// not find the bytes an earlier one kept.
struct StableHashTests {
    @Test func theHashAndItsHexAreTheSameAsEver() {
        // FNV-1a's published value for the empty string and for "a".
        #expect(StableHash.value("") == 0xcbf2_9ce4_8422_2325)
        #expect(StableHash.value("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(StableHash.hex("") == "cbf29ce484222325")
        #expect(StableHash.hex("a") == "af63dc4c8601ec8c")
        for text in ["/first.bin", "https://example.com/episode.mp3", "é", String(repeating: "x", count: 1000)] {
            let digits = String(StableHash.value(text), radix: 16)
            #expect(StableHash.hex(text) == String(repeating: "0", count: 16 - digits.count) + digits)
        }
    }

    @Test func hashingTextsInARowIsHashingThemJoined() {
        let parts = ["/downloads/*", "|", "https://example.com/é.mp3", ""]
        let inARow = parts.reduce(StableHash.start) { StableHash.value($1, continuing: $0) }
        #expect(inARow == StableHash.value(parts.joined()))
        #expect(StableHash.hex(of: inARow) == StableHash.hex(parts.joined()))
    }
}
