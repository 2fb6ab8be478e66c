import Foundation

/// What a later attempt needs to resume a partial file safely, kept on disk beside it.
///
/// The record says which file the partial belongs to (URL and validator), how long that file
/// is, how many bytes were on disk when it was written, and the name the server suggested.
/// The partial file's real length wins over ``durableLength`` when resuming: bytes are only
/// appended, and the validator guards against a file that changed on the server.
struct ResumeRecord: Codable, Equatable, Sendable {
    static let currentVersion = 1

    var version = ResumeRecord.currentVersion
    /// The URL the download asked for (before redirects).
    var url: URL
    var validator = Validator()
    var expectedLength: Int64?
    /// Bytes of the partial file known to be written when the record was saved.
    var durableLength: Int64 = 0
    /// The file name the server suggested (`Content-Disposition`, else the final URL).
    var suggestedFileName: String?
    /// False when the partial file must not be continued: the server's answer cannot be resumed
    /// with a range (a compressed body), or a request that starts over was not answered yet.
    var isResumable = true

    init(url: URL) {
        self.url = url
    }

    /// Reads the record at `url`; nil if there is none or it cannot be used (other version,
    /// damaged): a partial without a usable record is downloaded again from the start.
    static func load(from url: URL) -> ResumeRecord? {
        guard let data = try? Data(contentsOf: url),
            let record = try? JSONDecoder().decode(ResumeRecord.self, from: data),
            record.version == currentVersion
        else { return nil }
        return record
    }

    /// Writes the record atomically: a reader sees the old record or the new one, never a mix.
    func save(to url: URL) throws(DownloadError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let data = try encoder.encode(self)
            try AtomicFile.write(data, to: url)
        } catch let error as DownloadError {
            throw error
        } catch {
            throw .fileSystem(path: url.path, reason: "cannot encode the resume record: \(error)")
        }
    }
}
