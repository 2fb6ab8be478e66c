import Foundation

/// The URLs a download may take its file from, and the one it uses now.
///
/// At first, the request's URL and then its mirrors. A fresh URL given for one of them (a signed
/// link that expired, see ``Download/setURL(_:)``) takes its place. Kept in the download's record,
/// so that a relaunch continues with the URL in use.
struct SourceList: Codable, Equatable, Sendable {
    /// Every source, in the order they are tried.
    private(set) var urls: [URL]
    /// The source in use.
    private(set) var index = 0

    /// The request's URL followed by its mirrors; `urls` must not be empty.
    init(_ urls: [URL]) {
        precondition(!urls.isEmpty, "a download has at least one URL")
        self.urls = urls
    }

    /// The URL in use.
    var current: URL { urls[index] }

    /// Replaces the URL in use by `url`.
    mutating func replaceCurrent(with url: URL) {
        urls[index] = url
    }

    /// Uses the source at `index`.
    mutating func select(_ index: Int) {
        precondition(urls.indices.contains(index), "no source \(index) among \(urls.count)")
        self.index = index
    }

    /// The index of the first source after the one in use, cycling, that is not in `excluded`.
    func next(excluding excluded: Set<Int>) -> Int? {
        for step in 1..<max(urls.count, 1) {
            let candidate = (index + step) % urls.count
            if !excluded.contains(candidate) { return candidate }
        }
        return nil
    }

    /// Whether `url` is one of the sources.
    func contains(_ url: URL) -> Bool {
        urls.contains(url)
    }
}
