/// URLs written without a scheme (`example.com/x`, `127.0.0.1:8080/f.bin`, `localhost/x`): dl
/// reads them as `http://`, as curl and wget do.
extension Entry {
    /// What `text` is: a URL with a scheme, one without (to be read as `http://`), or neither.
    enum Written: Equatable {
        /// `http://…`, `ftp://…`: as written.
        case withScheme
        /// `HOST[:PORT][/…]`, with the port when one is written.
        case withoutScheme(port: String?)
        /// Not a URL: empty, a path (`/x`, `./x`), spaces, a host that is not one.
        case notAURL
    }

    /// How `text` is written: `HOST[:PORT]` before the first `/`, `?` or `#`, the host a name
    /// (letters, digits, `-`, `.`, `_`, starting with a letter or digit) or an IPv6 address in
    /// brackets, the port digits.
    static func written(_ text: String) -> Written {
        if text.contains("://") { return .withScheme }
        let authority = text.prefix { !"/?#".contains($0) }
        guard !authority.isEmpty, !text.contains(where: \.isWhitespace) else { return .notAURL }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let end = authority.firstIndex(of: "]") else { return .notAURL }
            host = authority[...end]
            let after = authority[authority.index(after: end)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .notAURL }
                port = after.dropFirst()
            }
        } else {
            let pieces = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = pieces[0]
            port = pieces.count == 2 ? pieces[1] : nil
            let isNameCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || "-._".contains(c)) }
            guard let first = host.first, first.isASCII, first.isLetter || first.isNumber,
                host.allSatisfy(isNameCharacter)
            else { return .notAURL }
        }
        if let port, !Options.isWholeNumber(String(port)) { return .notAURL }
        return .withoutScheme(port: port.map(String.init))
    }

    /// `text` with `http://` in front when it is written without a scheme, and the line `-v`
    /// prints about it; `text` alone otherwise.
    static func withAssumedScheme(_ text: String) -> (text: String, notice: String?) {
        guard case .withoutScheme = written(text) else { return (text, nil) }
        let url = "http://" + text
        return (url, "no scheme in '\(text)': using \(url)")
    }

    /// Whether `value`, after `-O`, is curl's habit (`-O URL`: save the URL under its own name)
    /// rather than wget's (`-O FILE`): a URL with a scheme, or `HOST:PORT…` without one. A name
    /// like `name.bin`, `dir/name.bin` or `example.com/x` is a file's.
    static func isCurlsRemoteName(_ value: String) -> Bool {
        switch written(value) {
        case .withScheme: (try? url(value)) != nil
        case .withoutScheme(let port): port != nil
        case .notAURL: false
        }
    }
}
