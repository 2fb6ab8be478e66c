import Foundation
import Testing

@testable import Downstream

/// The fast reading of records (``JSONReader``) reads exactly what `JSONDecoder` reads, or leaves
/// the record to it.
struct StoredDownloadReadingTests {
    /// The full record with only the members of the common shape (a download with no bytes to
    /// protect yet): awkward text everywhere, every optional member of the request.
    static func commonRecord() -> StoredDownload {
        var record = StoredDownloadJSONTests.fullRecord()
        record.sources = nil
        record.systemResumeData = nil
        record.resume.segments = nil
        record.resume.digest = nil
        record.resume.serverDigest = nil
        record.resume.response = nil
        return record
    }

    static func fast(_ json: Data) -> StoredDownload? {
        json.withUnsafeBytes { StoredDownload.readFast($0) }
    }

    static func decoded(_ json: Data) -> StoredDownload? {
        try? JSONDecoder().decode(StoredDownload.self, from: json)
    }

    @Test func recordsOfTheCommonShapeAreReadFastAndAsJSONDecoderReadsThem() throws {
        let url = URL(string: "https://example.com/episode.mp3")!
        let request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/podcasts")))
        let fresh = StoredDownload(
            id: Download.ID(), request: request, url: url,
            location: PartialLocation(url: url, destination: request.destination, partialsDirectory: nil))
        var started = Self.commonRecord()
        started.resume.durableLength = 0
        for record in [fresh, Self.commonRecord(), started] {
            let json = record.json
            let fast = try #require(Self.fast(json))
            #expect(fast == Self.decoded(json))
            #expect(fast == record)
        }
    }

    @Test func identifiersAreReadAsUUIDReadsThem() {
        for _ in 0..<100 {
            let uuid = UUID()
            #expect(StoredDownload.uuid(uuid.uuidString) == uuid)
            #expect(StoredDownload.uuid(uuid.uuidString.lowercased()) == uuid)
        }
        let valid = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        #expect(StoredDownload.uuid(valid) == UUID(uuidString: valid))
        for invalid in [
            "", "E621E1F8C36C495A93FC0C247A3E6E5F", "E621E1F8-C36C-495A-93FC-0C247A3E6E5",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5FF",
            "G621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-C36C-495A-93FC+0C247A3E6E5F",
            "E621E1F8-C36C-495A-93FC-0C247A3E6E5é",
        ] {
            #expect(StoredDownload.uuid(invalid) == nil, "\(invalid)")
            #expect(UUID(uuidString: invalid) == nil, "\(invalid)")
        }
    }

    @Test func recordsOfAnotherShapeAreLeftToJSONDecoder() throws {
        let full = StoredDownloadJSONTests.fullRecord()
        #expect(Self.fast(full.json) == nil)
        #expect(try full.json.withUnsafeBytes { try StoredDownload.decode($0) } == full)
    }

    @Test func textJSONReaderDoesNotTakeExactlyIsLeftToJSONDecoder() throws {
        let json = String(decoding: Self.commonRecord().json, as: UTF8.self)
        let priority = "\"priority\":\(DownloadRequest.Priority.high.value)"
        #expect(json.contains(priority))
        let variants: [String: String] = [
            "a surrogate pair escaped": json.replacingOccurrences(
                of: "\"metadata\":{", with: "\"metadata\":{\"emoji\":\"\\ud83c\\udf89\","),
            "an integer written as a fraction": json.replacingOccurrences(
                of: priority, with: "\"priority\":\(DownloadRequest.Priority.high.value).0"),
            "a leading zero": json.replacingOccurrences(
                of: priority, with: "\"priority\":0\(DownloadRequest.Priority.high.value)"),
            "an unknown member": json.replacingOccurrences(of: "\"intent\":", with: "\"future\":1,\"intent\":"),
            "a missing member": json.replacingOccurrences(of: "\"intent\":\"paused\",", with: ""),
            "a string where a number goes": json.replacingOccurrences(of: priority, with: "\"priority\":\"1\""),
            "text after the record": json + "x",
        ]
        for (name, variant) in variants {
            #expect(variant != json, "\(name): the variant changed nothing")
            let data = Data(variant.utf8)
            #expect(Self.fast(data) == nil, "\(name)")
            let read = try? data.withUnsafeBytes { try StoredDownload.decode($0) }
            #expect(read == Self.decoded(data), "\(name)")
        }
        // Bytes that are not UTF-8, inside a string.
        var invalid = Array(json.utf8)
        let title = try #require(json.range(of: "\"title\":\""))
        invalid.insert(0xFF, at: json.utf8.distance(from: json.startIndex, to: title.upperBound))
        #expect(Self.fast(Data(invalid)) == nil)
        #expect(Self.decoded(Data(invalid)) == nil)
    }
}
