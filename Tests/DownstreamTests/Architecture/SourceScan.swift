import Foundation

/// What a check of the layers needs to know of a Swift source file: the types it declares at top
/// level and the capitalised names it uses, with comments and string literals left out.
struct SourceScan {
    var declared: Set<String> = []
    var named: Set<String> = []

    init(_ source: String) {
        let code = Self.withoutCommentsAndStrings(source)
        for line in code.split(separator: "\n", omittingEmptySubsequences: false) {
            if let name = Self.topLevelDeclaration(line) { declared.insert(name) }
        }
        var word = ""
        for character in code + " " {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
                continue
            }
            if let first = word.first, first.isUppercase { named.insert(word) }
            word = ""
        }
    }

    /// The name declared by a line that starts a top-level type (`public final class Name`…).
    static func topLevelDeclaration(_ line: Substring) -> String? {
        guard let first = line.first, !first.isWhitespace else { return nil }
        let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
        let kinds: Set<Substring> = ["struct", "class", "enum", "actor", "protocol", "typealias"]
        guard let kind = words.firstIndex(where: { kinds.contains($0) }), kind + 1 < words.count else {
            return nil
        }
        let modifiers = words[..<kind]
        let allowed: Set<Substring> = [
            "public", "package", "internal", "fileprivate", "private", "final", "indirect", "nonisolated",
        ]
        guard modifiers.allSatisfy({ allowed.contains($0) || $0.hasPrefix("@") }) else { return nil }
        return String(words[kind + 1])
    }

    /// `source` with every comment and string literal (interpolations included) blanked out.
    static func withoutCommentsAndStrings(_ source: String) -> String {
        var output = ""
        let characters = Array(source)
        var index = 0
        func at(_ offset: Int) -> Character? {
            index + offset < characters.count ? characters[index + offset] : nil
        }
        while index < characters.count {
            let character = characters[index]
            if character == "/", at(1) == "/" {
                while index < characters.count, characters[index] != "\n" { index += 1 }
            } else if character == "/", at(1) == "*" {
                var depth = 0
                repeat {
                    if characters[index] == "/", at(1) == "*" {
                        depth += 1
                        index += 2
                    } else if characters[index] == "*", at(1) == "/" {
                        depth -= 1
                        index += 2
                    } else {
                        if characters[index] == "\n" { output.append("\n") }
                        index += 1
                    }
                } while depth > 0 && index < characters.count
            } else if character == "\"" {
                let isMultiline = at(1) == "\"" && at(2) == "\""
                let delimiter = isMultiline ? 3 : 1
                index += delimiter
                while index < characters.count {
                    if characters[index] == "\\" {
                        index += 2
                        continue
                    }
                    if characters[index] == "\"", !isMultiline || (at(1) == "\"" && at(2) == "\"") {
                        index += delimiter
                        break
                    }
                    if characters[index] == "\n" { output.append("\n") }
                    index += 1
                }
                output.append("\"\"")
            } else {
                output.append(character)
                index += 1
            }
        }
        return output
    }
}
