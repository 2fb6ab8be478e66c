import Foundation
import Testing

@testable import Downstream

struct StoredDownloadJSONTests {
    /// A record with every member set, and text that needs escaping everywhere text goes.
    static func fullRecord() -> StoredDownload {
        let awkward = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7} é ✓ 🎉"
        let url = URL(string: "https://example.com/a%20b/file.bin?x=1&y=%22")!
        var request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/dir \(awkward)")))
        request.urlRequest.setValue(awkward, forHTTPHeaderField: "X-Awkward")
        request.urlRequest.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
        request.metadata = ["title": awkward, "": "empty key"]
        request.priority = .high
        request.expectedDigest = .sha256(String(repeating: "a1", count: 32))
        request.onRejectedFile = .keep
        request.maximumBytesPerSecond = 5_000_000
        request.maximumConnections = 8
        request.minimumSegmentSize = 1 << 20
        request.fileProtection = .complete
        request.networkAccess = NetworkAccess(allowsCellular: false, allowsConstrained: true)
        request.earliestBeginDate = Date(timeIntervalSinceReferenceDate: 817_040_000.25)
        request.expectedByteCount = 5_000_000_000
        request.mirrors = [
            URL(string: "https://mirror.example.org/a%20b/file.bin")!, URL(string: "http://[::1]:8080/f")!,
        ]
        let location = PartialLocation(url: url, destination: request.destination, partialsDirectory: nil)
        var record = StoredDownload(
            id: Download.ID(), request: request, url: url, location: location,
            created: Date(timeIntervalSinceReferenceDate: 817_036_472.600_122_3))
        record.intent = .paused
        var sources = SourceList([url] + request.mirrors)
        sources.select(2)
        sources.replaceCurrent(
            with: URL(
                string:
                    "http://[::1]:8080/f?sig=\(awkward.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")!
        )
        record.sources = sources
        record.resume.validator = Validator(etag: "W/\"\(awkward)\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")
        record.resume.expectedLength = 5_000_000_000
        record.resume.durableLength = 4_000_000_000
        record.resume.suggestedFileName = awkward
        record.resume.isResumable = true
        record.resume.segments = [
            SavedSegment(start: 0, end: 4_000_000_000, durable: 4_000_000_000),
            SavedSegment(start: 4_000_000_000, end: 5_000_000_000, durable: 123_456_789),
        ]
        record.systemResumeData = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) })
        var digest = RunningDigest(.sha256)
        Data(awkward.utf8).withUnsafeBytes { digest.update($0) }
        record.resume.digest = digest
        record.resume.serverDigest = ServerDigest(.crc32c, bytes: [0xE3, 0x06, 0x92, 0x83], header: awkward)
        record.resume.response = ServerResponse(
            url: url, statusCode: 206, headers: ["Content-Range": "bytes 0-9/10", "Content-Disposition": awkward])
        return record
    }

    @Test func whatIsWrittenReadsBackTheSame() throws {
        for record in [Self.fullRecord(), Self.minimalRecord()] {
            let decoded = try JSONDecoder().decode(StoredDownload.self, from: record.json)
            #expect(decoded == record)
        }
    }

    @Test func itIsTheJSONThatJSONEncoderWrites() throws {
        // The same members with the same values: a member added to the record but not to the
        // writer shows up here.
        for record in [Self.fullRecord(), Self.minimalRecord()] {
            let ours = try JSONSerialization.jsonObject(with: record.json) as? NSDictionary
            let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? NSDictionary
            #expect(ours != nil)
            #expect(ours == foundation)
        }
    }

    @Test func aStoredRequestGivesBackItsDigestAndRejectedFilePolicy() {
        let request = Self.fullRecord().downloadRequest
        #expect(request.expectedDigest == .sha256(String(repeating: "a1", count: 32)))
        #expect(request.onRejectedFile == .keep)
        #expect(request.mirrors.count == 2)
        #expect(Self.minimalRecord().downloadRequest.expectedDigest == nil)
        #expect(Self.minimalRecord().downloadRequest.onRejectedFile == .discard)
    }

    @Test func aDigestStateSurvivesItsTextAndRejectsDamagedText() throws {
        for algorithm in [Digest.Algorithm.sha256, .sha1, .md5, .crc32c, .crc32] {
            var digest = RunningDigest(algorithm)
            let bytes = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
            bytes.prefix(700).withUnsafeBytes { digest.update($0) }
            var restored = try #require(RunningDigest(serialized: digest.serialized))
            bytes.suffix(300).withUnsafeBytes { digest.update($0) }
            bytes.suffix(300).withUnsafeBytes { restored.update($0) }
            #expect(restored.finalized() == digest.finalized())
        }
        let text = RunningDigest(.sha256).serialized
        for damaged in [
            "", "sha256", "sha512:0::", text.replacingOccurrences(of: "sha256:0:", with: "sha256:5:"),
            text.replacingOccurrences(of: "sha256:0:", with: "md5:0:"), text + "zz", "crc32c:0:00000000:00",
            "crc32:0:0000000000000000:",
        ] {
            #expect(RunningDigest(serialized: damaged) == nil, "\(damaged)")
        }
    }

    static func minimalRecord() -> StoredDownload {
        let url = URL(string: "http://h/f")!
        let destination = Destination.file(URL(fileURLWithPath: "/tmp/f"))
        return StoredDownload(
            id: Download.ID(), request: DownloadRequest(url: url, to: destination), url: url,
            location: PartialLocation(url: url, destination: destination, partialsDirectory: nil),
            created: Date(timeIntervalSinceReferenceDate: 0))
    }
}
