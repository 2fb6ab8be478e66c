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
        let location = PartialLocation(url: url, destination: request.destination, partialsDirectory: nil)
        var record = StoredDownload(
            id: Download.ID(), request: request, url: url, location: location,
            created: Date(timeIntervalSinceReferenceDate: 817_036_472.600_122_3))
        record.intent = .paused
        record.resume.validator = Validator(etag: "W/\"\(awkward)\"", lastModified: "Tue, 01 Dec 2026 10:00:00 GMT")
        record.resume.expectedLength = 5_000_000_000
        record.resume.durableLength = 4_000_000_000
        record.resume.suggestedFileName = awkward
        record.resume.isResumable = true
        record.systemResumeData = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) })
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

    static func minimalRecord() -> StoredDownload {
        let url = URL(string: "http://h/f")!
        let destination = Destination.file(URL(fileURLWithPath: "/tmp/f"))
        return StoredDownload(
            id: Download.ID(), request: DownloadRequest(url: url, to: destination), url: url,
            location: PartialLocation(url: url, destination: destination, partialsDirectory: nil),
            created: Date(timeIntervalSinceReferenceDate: 0))
    }
}
