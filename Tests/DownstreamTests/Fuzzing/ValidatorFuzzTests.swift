import Foundation
import Testing

@testable import Downstream

/// Whatever `ETag` and `Last-Modified` a server sends, the validator compares them as they are,
/// guards a range request with what it may, and is stored and read back unchanged, with the
/// other server text a record keeps (the suggested name, the response's headers).
@Suite(Fuzzer.hangLimit)
struct ValidatorFuzzTests {
    static let etags = Fuzzer.Corpus(
        [
            "\"v1\"", "W/\"v1\"", "\"\"", "W/\"\"", "\"33a64df551425fcc55e4d42a148795d9f25f89d4\"", "W/\"0815\"", "*",
            "\"xyzzy\", \"r2d2xxxx\"", "\"5eb63bbbe01eeed093cb22bb8f5acdc3-2\"", "w/\"lower\"", "\"é\"", "unquoted",
        ],
        tokens: ["W/", "\"", ",", "*", "\\"])

    /// A validator of a response: each header present or not.
    static func validator(_ fuzz: inout Fuzzer) -> Validator {
        Validator(
            etag: fuzz.oneIn(4) ? nil : fuzz.text(Self.etags),
            lastModified: fuzz.oneIn(4) ? nil : fuzz.text(HTTPDateFuzzTests.corpus))
    }

    @Test func validatorsCompareWhatTheServerSentAndGuardRangesWithWhatTheyMay() async throws {
        let fuzz = try await Fuzzer.run(seed: 0x7A11_DA7E, rounds: 100_000) { fuzz in
            let stored = Self.validator(&fuzz)
            let received = fuzz.oneIn(4) ? stored : Self.validator(&fuzz)
            fuzz.expect(!stored.differs(from: stored), "\(stored) differs from itself")
            let differs = stored.differs(from: received)
            fuzz.expect(differs == received.differs(from: stored), "\(stored) and \(received) differ one way")
            let etagsDiffer = stored.etag != nil && received.etag != nil && stored.etag != received.etag
            let datesDiffer =
                stored.lastModified != nil && received.lastModified != nil
                && stored.lastModified != received.lastModified
            fuzz.expect(differs == (etagsDiffer || datesDiffer), "\(stored) and \(received) differ: \(differs)")
            fuzz.expect(stored.isEmpty == (stored.etag == nil && stored.lastModified == nil), "empty: \(stored)")
            // A weak entity tag never guards a range (RFC 9110, section 13.1.5).
            let strong = stored.etag.flatMap { Validator.isStrong($0) ? $0 : nil }
            fuzz.expect(
                stored.ifRangeValue == (strong ?? stored.lastModified),
                "If-Range \(stored.ifRangeValue ?? "none") for \(stored)")
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }

    /// The server text a record keeps, as the store's JSON writes and reads it.
    struct ServerText: Codable, Equatable {
        var etag: String?
        var lastModified: String?
        var suggestedFileName: String?
        var headers: [String: String]

        var json: [UInt8] {
            var writer = JSONWriter()
            writer.object { writer in
                writer.string("etag", etag)
                writer.string("lastModified", lastModified)
                writer.string("suggestedFileName", suggestedFileName)
                writer.dictionary("headers", headers)
            }
            return writer.bytes
        }

        /// Read as the store's fast reader reads a record's text; nil where it leaves the text to
        /// `JSONDecoder`.
        init?(fast json: [UInt8]) {
            var read = ServerText(headers: [:])
            let isRead = json.withUnsafeBytes { bytes in
                var reader = JSONReader(bytes)
                do {
                    try reader.members { reader, key throws(JSONReader.Unsupported) in
                        switch key {
                        case "etag": read.etag = try reader.optionalString()
                        case "lastModified": read.lastModified = try reader.optionalString()
                        case "suggestedFileName": read.suggestedFileName = try reader.optionalString()
                        case "headers": read.headers = try reader.stringDictionary()
                        default: throw JSONReader.Unsupported()
                        }
                    }
                    return reader.isAtEnd
                } catch {
                    return false
                }
            }
            guard isRead else { return nil }
            self = read
        }

        init(
            etag: String? = nil, lastModified: String? = nil, suggestedFileName: String? = nil,
            headers: [String: String]
        ) {
            self.etag = etag
            self.lastModified = lastModified
            self.suggestedFileName = suggestedFileName
            self.headers = headers
        }
    }

    @Test func serverTextInARecordReadsBackAsItWasWritten() async throws {
        let url = URL(string: "https://example.com/file.bin")!
        let request = DownloadRequest(url: url, to: .directory(URL(fileURLWithPath: "/tmp/downloads")))
        let fresh = StoredDownload(
            id: Download.ID(), request: request, url: url,
            location: PartialLocation(url: url, destination: request.destination, partialsDirectory: nil))
        let fuzz = try await Fuzzer.run(seed: 0x5_70AE, rounds: 100_000) { fuzz in
            // One text from a server, in one of the places a record keeps one.
            var text = ServerText(headers: [:])
            switch fuzz.below(5) {
            case 0: text.etag = fuzz.text(Self.etags)
            case 1: text.lastModified = fuzz.text(HTTPDateFuzzTests.corpus)
            case 2: text.suggestedFileName = FileName.sanitize(fuzz.text(FileNameFuzzTests.names))
            case 3: text.headers = ["ETag": fuzz.text(Self.etags), "Content-Length": "1000"]
            default: text.headers = [fuzz.text(ResponseHeadFuzzTests.words): "gzip"]
            }
            let json = text.json
            // The fast reader takes every text the writer writes (it escapes nothing it refuses).
            let fast = ServerText(fast: json)
            fuzz.expect(fast == text, "read fast as \(String(describing: fast))")
            if fuzz.oneIn(8) {
                let decoded = try? JSONDecoder().decode(ServerText.self, from: Data(json))
                fuzz.expect(decoded == text, "decoded as \(String(describing: decoded))")
            }
            // Now and then, in a whole record, read fast when it has no response.
            if fuzz.oneIn(32) {
                var record = fresh
                record.resume.validator = Validator(etag: text.etag, lastModified: text.lastModified)
                record.resume.suggestedFileName = text.suggestedFileName
                if !text.headers.isEmpty {
                    record.resume.response = ServerResponse(url: url, statusCode: 206, headers: text.headers)
                }
                let json = record.json
                let read = StoredDownloadReadingTests.fast(json) ?? StoredDownloadReadingTests.decoded(json)
                // What a record keeps of a response: the headers continuing needs.
                var kept = record
                kept.resume.response = record.resume.response.map(StoredDownload.storedResponse)
                fuzz.expect(read == kept, "the record read as \(String(describing: read?.resume))")
            }
        }
        fuzz.recordIssues()
        #expect(fuzz.rounds >= 100_000)
    }
}
