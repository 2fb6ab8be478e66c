import Foundation

/// The last events of a download, kept with its record (see ``StoredDownload/history``), bounded:
/// at most ``maximumEntries`` entries and ``maximumBytes`` bytes of JSON; a new entry drops the
/// oldest ones until both hold. A record that says more (planted, or of another version) is cut
/// the same way as it is read, keeping its newest entries.
struct DownloadHistory: Codable, Equatable, Sendable {
    static let maximumEntries = 32
    static let maximumBytes = 4 << 10

    private(set) var entries: [DownloadHistoryEntry]

    init(_ entries: [DownloadHistoryEntry] = []) {
        self.entries = entries
        trim()
    }

    /// Adds `entry`, dropping the oldest entries over the bounds.
    mutating func append(_ entry: DownloadHistoryEntry) {
        entries.append(entry)
        trim()
    }

    private mutating func trim() {
        if entries.count > Self.maximumEntries {
            entries.removeFirst(entries.count - Self.maximumEntries)
        }
        var bytes = entries.reduce(0) { $0 + Self.jsonLength(of: $1) }
        while bytes > Self.maximumBytes, !entries.isEmpty {
            bytes -= Self.jsonLength(of: entries.removeFirst())
        }
    }

    /// The bytes `entry` takes in a record, with the comma before it.
    private static func jsonLength(of entry: DownloadHistoryEntry) -> Int {
        var writer = JSONWriter(capacity: 256)
        writer.object { entry.writeMembers(&$0) }
        return writer.bytes.count + 1
    }

    init(from decoder: any Decoder) throws {
        // Entry by entry, keeping the newest: a planted record may hold millions. A history is
        // for people: one that cannot be read ends at its first entry that cannot, and never
        // costs the download its record.
        var entries: [DownloadHistoryEntry] = []
        if var container = try? decoder.unkeyedContainer() {
            while !container.isAtEnd, let entry = try? container.decode(DownloadHistoryEntry.self) {
                entries.append(entry)
                if entries.count > 2 * Self.maximumEntries {
                    entries.removeFirst(entries.count - Self.maximumEntries)
                }
            }
        }
        self.init(entries)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(contentsOf: entries)
    }
}

extension DownloadHistoryEntry {
    /// Writes the entry's members as `JSONEncoder` would (those that are nil left out).
    func writeMembers(_ writer: inout JSONWriter) {
        writer.date("date", date)
        writer.string("kind", kind.rawValue)
        let texts: [(StaticString, String?)] = [
            ("url", url), ("range", range), ("ifRange", ifRange), ("contentRange", contentRange),
            ("contentLength", contentLength), ("etag", etag), ("lastModified", lastModified),
            ("errorKind", errorKind), ("message", message),
        ]
        for (key, text) in texts {
            writer.string(key, text)
        }
        writer.integer("statusCode", statusCode)
        writer.double("retryDelay", retryDelay)
        writer.integer("offset", offset)
    }
}
