import Foundation

/// The URLs a download may take its file from, and the one it uses now.
///
/// At first, the request's URL and then its mirrors. A fresh URL given for one of them (a signed
/// link that expired, see ``Download/setURL(_:)``) takes its place. Kept in the download's record,
/// so that a relaunch continues with the URL in use. (The first URL is kept apart from the others:
/// most downloads have no mirror, and thousands of queued downloads then make no array each.)
struct SourceList: Codable, Equatable, Sendable {
    private var first: URL
    private var others: [URL]
    /// The source in use.
    private(set) var index = 0

    /// The request's URL followed by its mirrors; `urls` must not be empty.
    init(_ urls: [URL]) {
        precondition(!urls.isEmpty, "a download has at least one URL")
        first = urls[0]
        others = Array(urls.dropFirst())
    }

    /// Every source, in the order they are tried.
    var urls: [URL] { [first] + others }

    var count: Int { others.count + 1 }

    /// The URL in use.
    var current: URL { index == 0 ? first : others[index - 1] }

    /// Replaces the URL in use by `url`.
    mutating func replaceCurrent(with url: URL) {
        if index == 0 { first = url } else { others[index - 1] = url }
    }

    /// Uses the source at `index`.
    mutating func select(_ index: Int) {
        precondition((0..<count).contains(index), "no source \(index) among \(count)")
        self.index = index
    }

    /// The index of the first source after the one in use, cycling, that is not in `excluded`.
    func next(excluding excluded: Set<Int>) -> Int? {
        for step in 1..<max(count, 1) {
            let candidate = (index + step) % count
            if !excluded.contains(candidate) { return candidate }
        }
        return nil
    }

    private enum CodingKeys: String, CodingKey {
        case urls, index
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let urls = try container.decode([URL].self, forKey: .urls)
        guard !urls.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .urls, in: container, debugDescription: "no URL")
        }
        self.init(urls)
        let index = try container.decode(Int.self, forKey: .index)
        guard (0..<count).contains(index) else {
            throw DecodingError.dataCorruptedError(
                forKey: .index, in: container, debugDescription: "no source \(index) among \(count)")
        }
        self.index = index
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(urls, forKey: .urls)
        try container.encode(index, forKey: .index)
    }
}
