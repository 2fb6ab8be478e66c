import Foundation
import Testing

/// A file another program left where a download goes, dated at a time no download sets: its
/// modification time shows whether anything touched it.
enum PlantedFile {
    static let date = Date(timeIntervalSince1970: 1_600_000_000)

    /// Writes `data` at `url`, dated ``date``.
    static func plant(_ data: Data, at url: URL) throws {
        try data.writeWithoutSync(to: url)
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    }

    /// Expects the file at `url` to be `data`, dated ``date``: untouched.
    static func expectUntouched(
        _ url: URL, holds data: Data, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(try Data(contentsOf: url) == data, "the file's bytes changed", sourceLocation: sourceLocation)
        let modified = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        #expect(modified == date, "the file's modification time changed", sourceLocation: sourceLocation)
    }
}
