import Foundation

extension Download {
    /// Adds a check that the response and the complete file must pass before the file is
    /// delivered, to a download that is paused; returns the download, so that checks chain.
    ///
    /// Give checks with the request (``DownloadRequest/checks``): they then run however soon the
    /// download ends. This call is for a download that cannot deliver its file before you resume
    /// it: one made paused (``DownloadManager/download(_:startsPaused:)``), paused, failed, or
    /// restored after a relaunch (whose checks, which live in this process only, are gone).
    ///
    /// ```swift
    /// let download = await manager.download(request, startsPaused: true)
    /// try download
    ///     .validate(statusCode: 200..<300)
    ///     .validate { response, file in
    ///         guard try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64 ?? 0 > 0 else {
    ///             throw EmptyFile()
    ///         }
    ///     }
    /// await download.resume()
    /// ```
    ///
    /// - Parameter validation: a check, as ``ResponseCheck/init(_:)`` takes it.
    /// - Throws: ``DownloadError/Kind/invalidRequest`` when the download is queued, running,
    ///   waiting or ended: a check added then could come after the file was delivered, so it is
    ///   refused, never silently skipped.
    @discardableResult
    public nonisolated func validate(
        _ validation: @escaping @Sendable (_ response: ServerResponse, _ file: URL) async throws -> Void
    ) throws(DownloadError) -> Download {
        try add(ResponseCheck(validation))
    }

    /// Adds a check that the last response's status code is one of `acceptable`
    /// (``ResponseCheck/statusCode(_:)``), to a download that is paused; see ``validate(_:)``.
    @discardableResult
    public nonisolated func validate<Codes: Sequence<Int>>(statusCode acceptable: Codes) throws(DownloadError)
        -> Download
    {
        try add(.statusCode(acceptable))
    }

    /// Adds a check that the response's media type is one of `acceptable`
    /// (``ResponseCheck/contentType(_:)``), to a download that is paused; see ``validate(_:)``.
    @discardableResult
    public nonisolated func validate(contentType acceptable: [String]) throws(DownloadError) -> Download {
        try add(.contentType(acceptable))
    }

    /// Adds the usual checks (``DownloadRequest/usualChecks``) to a download that is paused; see
    /// ``validate(_:)``.
    @discardableResult
    public nonisolated func validate() throws(DownloadError) -> Download {
        for check in request.usualChecks {
            _ = try add(check)
        }
        return self
    }

    /// Whether checks may be added: the download cannot deliver its file before it is resumed.
    nonisolated var acceptsChecks: Bool {
        switch state.code {
        case .paused: true
        case .failed: canBeJoined
        case .queued, .running, .waitingToRetry, .waitingForNetwork, .completed, .cancelled: false
        }
    }

    /// Adds the checks of a request that joins this download, which accepts checks.
    nonisolated func addChecks(_ checks: [ResponseCheck]) {
        for check in checks {
            responseChain.add(check.run)
        }
    }

    /// Adds `check` if the download accepts checks (``acceptsChecks``).
    private nonisolated func add(_ check: ResponseCheck) throws(DownloadError) -> Download {
        guard acceptsChecks else {
            throw .invalidRequest(
                "a check cannot be added to a download that is \(state): it could come after the file was "
                    + "delivered; give checks with the request (DownloadRequest.checks), or add them while the "
                    + "download is paused (download(_:startsPaused: true))")
        }
        responseChain.add(check.run)
        return self
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
}
