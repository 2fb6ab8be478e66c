@testable import Downstream
@testable import DownstreamTesting
import Foundation
import Testing

/// The libcurl transport's decoder of compressed bodies: what it hands on is the decoded file, a
/// bounded piece at a time, also when the receiver pauses it anywhere; damaged and cut streams
/// fail. (It also checks the testing library's gzip bodies, which the decoder reads.)
@Suite(
    .timeLimit(.minutes(1)),
    .enabled(if: CurlBodyDecoder.zlibUnavailability == nil, "zlib is the libcurl transport's, on Linux"))
struct CurlBodyDecoderTests {
    @Test(arguments: [1, 2, 258, 259, 260, 1_000, 65_536, 100_003, 4_000_000] as [Int64])
    func aCompressionBombDecodesToItsZerosAPieceAtATime(_ count: Int64) throws {
        let body = Body.gzippedZeros(count: count)
        if count >= 4_000_000 {
            // About a thousandth, as gzip -9 makes it.
            #expect(body.count < count / 900)
        }
        let decoded = try Self.decode(body, coding: .gzip, chunk: 16_384)
        #expect(decoded.bytes.count == Int(count))
        #expect(decoded.bytes.allSatisfy { $0 == 0 })
        #expect(decoded.largestPiece <= CurlBodyDecoder.pieceSize)
    }

    @Test func aStoredGzipFileDecodesToItsBytesWhateverTheChunks() throws {
        let file = Body.pattern(count: 300_001, seed: 31)
        let expected = file.bytes(0..<file.count)
        for chunk in [1, 7, 1_000, 65_536, 1 << 20] {
            let decoded = try Self.decode(.gzip(file), coding: .gzip, chunk: chunk)
            #expect(decoded.bytes == [UInt8](expected), "chunks of \(chunk)")
        }
        // An empty file is a gzip file too.
        #expect(try Self.decode(.gzip(.data(Data())), coding: .gzip, chunk: 100).bytes.isEmpty)
    }

    @Test func aReceiverThatPausesAnywhereGetsEveryByteOnce() throws {
        let file = Body.pattern(count: 400_000, seed: 32)
        let compressed = [UInt8](Body.gzip(file).bytes(0..<Body.gzip(file).count))
        let decoder = CurlBodyDecoder(.gzip)
        var output: [UInt8] = []
        var answers = 0
        var offset = 0
        var pauses = 0
        while offset < compressed.count {
            let chunk = Array(compressed[offset..<min(offset + 20_000, compressed.count)])
            // Every third piece is answered `later` first: the same bytes come again, as libcurl
            // delivers them again after a pause.
            let reception = try chunk.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { piece -> BodyReception? in
                    answers += 1
                    if answers % 3 == 0 { return .later }
                    output += piece
                    return .taken
                }
            }
            if reception == .later {
                pauses += 1
            } else {
                offset += chunk.count
            }
        }
        #expect(decoder.finish() == nil)
        #expect(pauses > 0)
        #expect(output == [UInt8](file.bytes(0..<file.count)))
    }

    @Test func gzipMembersOneAfterAnotherAreOneFileAndWhatFollowsTheLastIsIgnored() throws {
        let first = Body.pattern(count: 70_000, seed: 33)
        let second = Body.pattern(count: 5_000, seed: 34)
        let stream = Self.bytes(.gzip(first)) + Self.bytes(.gzip(second)) + [0, 0, 0, 0]
        let decoded = try Self.decode(.data(Data(stream)), coding: .gzip, chunk: 4_096)
        #expect(decoded.bytes == Self.bytes(first) + Self.bytes(second))
    }

    @Test func deflateIsAZlibStreamOrRawDeflate() throws {
        let file = Body.pattern(count: 150_000, seed: 35)
        let gzip = Self.bytes(.gzip(file))
        // The gzip file's deflate blocks, without its header and trailer.
        let raw = Array(gzip[10..<(gzip.count - 8)])
        var adler = (a: UInt32(1), b: UInt32(0))
        for byte in Self.bytes(file) {
            adler.a = (adler.a + UInt32(byte)) % 65_521
            adler.b = (adler.b + adler.a) % 65_521
        }
        let checksum = adler.b << 16 | adler.a
        let zlib = [0x78, 0x01] + raw + (0..<4).reversed().map { UInt8((checksum >> (8 * $0)) & 0xFF) }
        for stream in [zlib, raw] {
            let decoded = try Self.decode(.data(Data(stream)), coding: .deflate, chunk: 3_000)
            #expect(decoded.bytes == Self.bytes(file))
        }
    }

    @Test func aDamagedOrCutStreamFails() throws {
        let file = Body.pattern(count: 100_000, seed: 36)
        var damaged = Self.bytes(.gzip(file))
        // The CRC-32 in the trailer.
        damaged[damaged.count - 6] ^= 0xFF
        let error = try #require(throws: TransportFailure.self) {
            try Self.decode(.data(Data(damaged)), coding: .gzip, chunk: 10_000)
        }
        #expect(error.code == .cannotDecodeContentData)
        #expect(error.reason.hasPrefix("the gzip body is damaged"))

        let cut = Array(Self.bytes(.gzip(file)).dropLast(100))
        let decoder = CurlBodyDecoder(.gzip)
        _ = try cut.withUnsafeBytes { try decoder.decode($0) { _ in .taken } }
        #expect(decoder.finish()?.reason == "the gzip body ends before its compressed stream does")

        let notGzip = Self.bytes(file)
        #expect(throws: TransportFailure.self) { try Self.decode(.data(Data(notGzip)), coding: .gzip, chunk: 500) }
    }

    @Test func theCodingsItDecodesAreThoseOfTheHeader() {
        #expect(CurlBodyDecoder.coding(of: "gzip") == .gzip)
        #expect(CurlBodyDecoder.coding(of: " X-GZIP ") == .gzip)
        #expect(CurlBodyDecoder.coding(of: "deflate") == .deflate)
        #expect(CurlBodyDecoder.coding(of: "identity") == nil)
        #expect(CurlBodyDecoder.coding(of: "br") == nil)
        #expect(CurlBodyDecoder.coding(of: "gzip, gzip") == nil)
        #expect(CurlBodyDecoder.coding(of: nil) == nil)
    }

    // MARK: - Helpers

    static func bytes(_ body: Body) -> [UInt8] {
        [UInt8](body.bytes(0..<body.count))
    }

    /// Decodes `body` fed in chunks of `chunk` bytes; the decoded bytes and the largest piece.
    static func decode(
        _ body: Body, coding: CurlBodyDecoder.Coding, chunk: Int
    ) throws -> (bytes: [UInt8], largestPiece: Int) {
        let decoder = CurlBodyDecoder(coding)
        var output: [UInt8] = []
        var largest = 0
        var offset: Int64 = 0
        while offset < body.count {
            let length = min(Int64(chunk), body.count - offset)
            let part = body.bytes(offset..<(offset + length))
            _ = try part.withUnsafeBytes { bytes in
                try decoder.decode(bytes) { piece in
                    output += piece
                    largest = max(largest, piece.count)
                    return .taken
                }
            }
            offset += length
        }
        if let failure = decoder.finish() { throw failure }
        return (output, largest)
    }
}
