import Foundation

/// A header given on the command line (`-H 'NAME: VALUE'`, as curl and wget take it).
struct Header: Equatable {
    var name: String
    var value: String

    /// `text` as `NAME: VALUE`, or a usage error that says why not.
    init(_ text: String) throws(UsageError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0].trimmingCharacters(in: .whitespaces)
        let isToken = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 && $0 != ":" }
        let value = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
        guard parts.count == 2, isToken, !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw .invalidValue(option: "-H", value: text, expected: "'NAME: VALUE', on one line")
        }
        self.name = name
        self.value = value
    }
}
