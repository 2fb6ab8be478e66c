import Foundation

/// Text for logs and terminals, made from what users and servers give: URLs without the secrets
/// they carry, and server text that cannot take a terminal over.
///
/// Downstream's own messages (``DownloadError``'s reasons, ``ConsoleEventLogger``'s lines) are
/// made with it; use it for what your app prints of a download:
///
/// ```swift
/// print("from", LogText.url(download.url ?? url))  // https://***@example.com/f?token=***
/// print(LogText.escaped(response.value(forHTTPHeaderField: "Server") ?? ""))
/// ```
public enum LogText {
    /// The query parameters whose values are hidden: names that say they carry a credential
    /// (compared without case), and those that contain such a word.
    static let secretParameters: Set<String> = [
        "key", "sig", "pass", "pwd", "code", "policy", "key-pair-id", "sid", "jwt",
    ]
    static let secretWords = [
        "token", "secret", "password", "passwd", "signature", "credential", "auth", "session", "apikey", "api_key",
        "api-key", "access_key", "accesskey",
    ]

    /// `url` as text with its secrets hidden: its user information (`user:password@`) as
    /// `***@`, and the values of query parameters whose names say they carry a credential
    /// (`token`, `key`, `sig`, `X-Amz-Signature`, `X-Goog-Credential`, `access_token`…) as `***`.
    public static func url(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        if components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            components.percentEncodedUser = "***"
            components.percentEncodedPassword = nil
        }
        if let items = components.percentEncodedQueryItems {
            components.percentEncodedQueryItems = items.map { item in
                guard item.value != nil, isSecret(parameter: item.name) else { return item }
                return URLQueryItem(name: item.name, value: "***")
            }
        }
        return components.string ?? url.absoluteString
    }

    /// Whether a header named `name` carries a credential: `Authorization`,
    /// `Proxy-Authorization`, `Cookie`, `Set-Cookie`, and names that say they carry a token, a
    /// secret, a password or an API key (`X-Auth-Token`, `X-Api-Key`). Logs show no such value, and
    /// a download's record keeps none.
    public static func isCredential(header name: String) -> Bool {
        let lowercased = name.lowercased()
        if ["authorization", "proxy-authorization", "cookie", "set-cookie"].contains(lowercased) { return true }
        return ["token", "secret", "password", "api-key", "apikey"].contains { lowercased.contains($0) }
    }

    /// Whether a query parameter named `name` carries a credential.
    static func isSecret(parameter name: String) -> Bool {
        let lowercased = (name.removingPercentEncoding ?? name).lowercased()
        return secretParameters.contains(lowercased) || secretWords.contains { lowercased.contains($0) }
    }

    /// `text` with what a terminal would obey escaped, so that printing it cannot move the
    /// cursor, change a window's title or clear the screen: control characters (C0, DEL and C1,
    /// the escape that starts a control sequence among them) as `\u{1B}`, and format characters
    /// (bidirectional controls, which reorder what follows) and line separators too. A tab stays.
    public static func escaped(_ text: String) -> String {
        // Most text has nothing to escape: printable ASCII and tabs.
        guard text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 >= 0x7F }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let isControl = (value < 0x20 && value != 0x09) || (0x7F..<0xA0).contains(value)
            let category = scalar.properties.generalCategory
            if isControl || category == .format || category == .lineSeparator || category == .paragraphSeparator {
                result += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
