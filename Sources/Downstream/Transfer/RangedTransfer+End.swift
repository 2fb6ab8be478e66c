import Foundation

extension RangedTransfer {
    /// The request ended: puts the bytes on disk, saves the record, and tells how it ended.
    func didComplete(_ failure: TransportFailure?) {
        let task = control.end()
        var end = sink.decidedEnd ?? endOfRequest(failure)
        let settings = setup.settings
        if let (written, failure) = sink.intake.close(
            task, limiter: settings.limiter, synchronizes: settings.synchronizesToDisk)
        {
            if let failure, end == .finished { end = .failed(failure) }
            sink.record.durableLength = written
            if case .finished = end, sink.record.expectedLength == nil {
                sink.record.expectedLength = written
            }
            if case .failed(let error) = end, error.kind == .fileTooLarge, setup.discardsRejectedFile {
                // A rejected file: its bytes go (the record first, so that a process killed in
                // between starts over).
                sink.record = .startingOver(url: sink.record.url)
                try? saveRecord()
                POSIXFile.removeOwnFile(atPath: setup.partialPath)
            }
        }
        do {
            try saveRecord()
        } catch {
            // Without its record the partial cannot be resumed; a complete file needs none.
            if end != .finished { end = .failed(error) }
        }
        onEnd(end, sink.lastResponse)
    }

    /// How the request ended, when nothing was decided before: the transport's failure, or what
    /// the body's length says.
    private func endOfRequest(_ failure: TransportFailure?) -> TransferEnd {
        if let failure {
            if failure.isCancellation, control.isStopRequested {
                return .cancelled
            }
            if failure.code == .unsupportedURL {
                // Every URL sent is HTTP(S): what was not understood is the answer. Typically the
                // rest of a previous response longer than its Content-Length, read on the same
                // connection as this one's status line ("Received HTTP/0.9").
                return .failed(.unexpectedResponse("the answer is not HTTP (\(failure.reason))"))
            }
            return .failed(.network(failure))
        }
        guard let body = sink.body else {
            return .failed(.unexpectedResponse("the request ended without a response"))
        }
        guard let file = sink.intake.file else {
            // The body ended while its first bytes were compared with the file it continues.
            return control.isStopRequested
                ? .cancelled
                : .failed(.unexpectedResponse("the body ended before the \(body.verifiedPrefix) bytes to compare"))
        }
        let end = endOfBody(in: file, body)
        // Asked to stop, the request ended before the cancel took effect: the transport hands
        // over nothing after bytes that a cancel dropped, so a short body is the stop's doing.
        if end != .finished, control.isStopRequested {
            return .cancelled
        }
        return end
    }

    /// How the request ended, from what its body's length says.
    private func endOfBody(in file: PartialFile, _ body: ResponseDecision.BodyPlan) -> TransferEnd {
        if let end = body.end, file.length < end {
            return .failed(
                .unexpectedResponse("the body ended after \(file.length - body.start) of \(end - body.start) bytes"))
        }
        let progressed = file.length > body.keptLength
        if let total = body.totalLength {
            if file.length < total {
                // The range asked for (or a shorter one the server chose) is here: the next
                // request continues.
                return .incomplete(progressed: progressed)
            }
        } else if let asked = setup.plan.end, body.end == asked {
            // A whole range of a file of unknown length: there may be more.
            return .incomplete(progressed: progressed)
        }
        return .finished
    }
}
