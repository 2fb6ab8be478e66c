import Foundation

extension Download {
    /// Adds a check that the response and the complete file must pass before the file is
    /// delivered; returns the download, so that checks and `fileURL` chain:
    ///
    /// ```swift
    /// let file = try await download
    ///     .validate(statusCode: 200..<300)
    ///     .validate { response, file in
    ///         guard try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0 > 0 else {
    ///             throw EmptyFile()
    ///         }
    ///     }
    ///     .fileURL
    /// ```
    ///
    /// Checks run in the order they were added, after the expected digest (if any) matched. The
    /// first that throws fails the download with ``DownloadError/Kind/validationFailed`` (its
    /// reason is the thrown error's description); the file is not delivered, and its bytes are
    /// deleted or kept as ``DownloadRequest/onRejectedFile`` says.
    ///
    /// Checks live in this process only: add them before the download can end, right after the
    /// manager returned it, or start it paused (``DownloadManager/download(_:startsPaused:)``),
    /// add them, then resume it. A download restored after a relaunch has none until you add them.
    ///
    /// - Parameter validation: gets the last response whose body was written (a resumed or
    ///   ranged download's is usually `206 Partial Content`) and the complete file, before it
    ///   is moved to its destination. It may read the file; it must not move or change it.
    @discardableResult
    public nonisolated func validate(
        _ validation: @escaping @Sendable (_ response: ServerResponse, _ file: URL) async throws -> Void
    ) -> Download {
        responseChain.add(validation)
        return self
    }

    /// Adds a check that the last response's status code is one of `acceptable`.
    ///
    /// Downstream already fails on error statuses; this check narrows the success codes. Ranged
    /// requests are answered `206 Partial Content`: accept it when you list codes one by one.
    @discardableResult
    public nonisolated func validate<Codes: Sequence<Int>>(statusCode acceptable: Codes) -> Download {
        let codes = Set(acceptable)
        return validate { response, _ in
            guard codes.contains(response.statusCode) else {
                throw ValidationFailure("status code \(response.statusCode) is not acceptable")
            }
        }
    }

    /// Adds a check that the response's media type (its `Content-Type` without parameters) is
    /// one of `acceptable`: `type/subtype`, `type/*` or `*/*`, in any case.
    @discardableResult
    public nonisolated func validate(contentType acceptable: [String]) -> Download {
        let patterns = acceptable.map { $0.lowercased() }
        return validate { response, _ in
            guard let mediaType = response.mediaType else {
                throw ValidationFailure(
                    "the response has no Content-Type; acceptable: \(patterns.joined(separator: ", "))")
            }
            guard patterns.contains(where: { Self.mediaType(mediaType, matches: $0) }) else {
                throw ValidationFailure(
                    "content type \(mediaType) is not acceptable; acceptable: \(patterns.joined(separator: ", "))")
            }
        }
    }

    /// Adds the usual checks: a status code in `200..<300`, and a media type that the request's
    /// `Accept` header allows (if it has one).
    @discardableResult
    public nonisolated func validate() -> Download {
        validate(statusCode: 200..<300)
        guard let accept = request.urlRequest.value(forHTTPHeaderField: "Accept") else { return self }
        let types = accept.split(separator: ",").compactMap { item in
            item.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return types.isEmpty ? self : validate(contentType: types)
    }

    /// Adds a handler that runs once the download ends (completed, failed or cancelled), after
    /// the handlers added before it, and is awaited before the next one runs. Returns the
    /// download, for chaining; the caller does not wait.
    ///
    /// ```swift
    /// download
    ///     .validate()
    ///     .response { response in
    ///         switch response.result {
    ///         case .success(let file): await library.add(file)
    ///         case .failure(let error): logger.error("\(error)")
    ///         }
    ///     }
    /// ```
    ///
    /// A handler added after the download ended runs at once with that end. A failed download
    /// that is resumed runs the handlers added after the failure at its next end.
    @discardableResult
    public nonisolated func response(_ handler: @escaping @Sendable (DownloadResponse) async -> Void) -> Download {
        responseChain.add(handler)
        return self
    }

    static func mediaType(_ mediaType: String, matches pattern: String) -> Bool {
        if pattern == "*/*" || pattern == mediaType { return true }
        guard pattern.hasSuffix("/*") else { return false }
        return mediaType.hasPrefix(pattern.dropLast())
    }
}

/// The reason a built-in validation refused a download.
struct ValidationFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
