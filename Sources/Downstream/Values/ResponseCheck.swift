import Foundation

/// A check that the response and the complete file must pass before the file is delivered: given
/// with the request (``DownloadRequest/checks``), so that it runs whatever the download's timing.
///
/// Checks run in order, after the expected digest (if any) matched. The first that throws fails
/// the download with ``DownloadError/Kind/validationFailed`` (its reason is the thrown error's
/// description); the file is not delivered, and its bytes are deleted or kept as
/// ``DownloadRequest/onRejectedFile`` says. Checks live in this process only: a download restored
/// after a relaunch has none (add them to it while it is paused, with ``Download/validate(_:)``).
public struct ResponseCheck: Sendable {
    let run: @Sendable (_ response: ServerResponse, _ file: URL) async throws -> Void

    /// A check of your own: `check` gets the last response whose body was written (a resumed or
    /// ranged download's is usually `206 Partial Content`) and the complete file, before it is
    /// moved to its destination. It may read the file; it must not move or change it. What it
    /// throws refuses the file.
    public init(_ check: @escaping @Sendable (_ response: ServerResponse, _ file: URL) async throws -> Void) {
        run = check
    }

    /// The last response's status code is one of `acceptable`.
    ///
    /// Downstream already fails on error statuses; this check narrows the success codes. Ranged
    /// requests are answered `206 Partial Content`: accept it when you list codes one by one.
    public static func statusCode<Codes: Sequence<Int>>(_ acceptable: Codes) -> ResponseCheck {
        let codes = Set(acceptable)
        return ResponseCheck { response, _ in
            guard codes.contains(response.statusCode) else {
                throw CheckFailure("status code \(response.statusCode) is not acceptable")
            }
        }
    }

    /// The response's media type (its `Content-Type` without parameters) is one of `acceptable`:
    /// `type/subtype`, `type/*` or `*/*`, in any case.
    public static func contentType(_ acceptable: [String]) -> ResponseCheck {
        let patterns = acceptable.map { $0.lowercased() }
        return ResponseCheck { response, _ in
            guard let mediaType = response.mediaType else {
                throw CheckFailure(
                    "the response has no Content-Type; acceptable: \(patterns.joined(separator: ", "))")
            }
            guard patterns.contains(where: { Self.mediaType(mediaType, matches: $0) }) else {
                throw CheckFailure(
                    "content type \(mediaType) is not acceptable; acceptable: \(patterns.joined(separator: ", "))")
            }
        }
    }

    /// The usual checks for a request whose `Accept` header is `accept`: a status code in
    /// `200..<300`, and a media type that the header allows (if there is one).
    static func usual(accepting accept: String?) -> [ResponseCheck] {
        let types = (accept ?? "").split(separator: ",").compactMap { item in
            item.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return [statusCode(200..<300)] + (types.isEmpty ? [] : [contentType(types)])
    }

    static func mediaType(_ mediaType: String, matches pattern: String) -> Bool {
        if pattern == "*/*" || pattern == mediaType { return true }
        guard pattern.hasSuffix("/*") else { return false }
        return mediaType.hasPrefix(pattern.dropLast())
    }
}

extension DownloadRequest {
    /// The usual checks for this request: a status code in `200..<300`, and a media type that its
    /// `Accept` header allows (if it has one). `request.checks = request.usualChecks`.
    public var usualChecks: [ResponseCheck] {
        ResponseCheck.usual(accepting: urlRequest.value(forHTTPHeaderField: "Accept"))
    }
}

/// The reason a built-in check refused a download.
struct CheckFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
