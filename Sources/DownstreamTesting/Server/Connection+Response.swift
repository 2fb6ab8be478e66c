import Foundation

extension Connection {
    /// How writing a response ended.
    enum WriteOutcome {
        /// The whole response went out.
        case completed
        /// A fault asks for a clean close now.
        case closeCleanly
        /// A fault asks for an abortive close now.
        case reset
        /// The client disconnected, or the server stops.
        case clientGone
    }

    /// The peer went away while a body block was being sent.
    private struct PeerGone: Error {}

    /// Writes a planned response, applying its fault, pacing and framing.
    ///
    /// The response leaves the gauges just before its last bytes are sent: a client can only
    /// see it complete (and start another request) after that, so two responses counted at once
    /// were requests the client really had open at once.
    func write(_ plan: ResponsePlan, path: String, logPosition: Int) -> WriteOutcome {
        let body = plan.sendsBody ? plan.bodyRange : plan.bodyRange.lowerBound..<plan.bodyRange.lowerBound
        if body.isEmpty, plan.interruption == nil, !plan.chunked { leaveGauges() }
        if owedTrailingBytes > 0 {
            let trailing = [UInt8](repeating: UInt8(ascii: "X"), count: owedTrailingBytes)
            owedTrailingBytes = 0
            guard POSIXSocket.sendAll(socket, trailing) else { return .clientGone }
        }
        if let endless = plan.endlessHead {
            sendEndlessHead(plan, bytesPerSecond: endless.bytesPerSecond)
            return .clientGone
        }
        guard POSIXSocket.sendAll(socket, plan.headBytes()) else { return .clientGone }
        if plan.hugeChunkSize {
            guard POSIXSocket.sendAll(socket, Array("100000000000000000000\r\n".utf8)) else { return .clientGone }
        }
        // The last body byte ends the response, unless a terminating chunk or a cut follows.
        let bodyEndsIt = !plan.chunked && plan.bodyLimit == nil && plan.interruption.map({ $0.kind == .hold }) != false
        lastBodyByte = bodyEndsIt ? body.upperBound : nil
        let end = body.lowerBound + plan.bytesToSend
        let cut = body.lowerBound + plan.bytesBeforeInterruption
        guard sendBody(plan, body.lowerBound..<cut, logPosition: logPosition) else { return .clientGone }

        if let interruption = plan.effectiveInterruption {
            switch interruption.kind {
            case .close:
                return .closeCleanly
            case .reset:
                waitUntilAcknowledged()
                return .reset
            case .stall:
                waitForDisconnect()
                return .clientGone
            case .hold:
                guard waitForRelease(of: path) else { return .clientGone }
            case .holdThenClose:
                return waitForRelease(of: path) ? .closeCleanly : .clientGone
            }
        }

        guard sendBody(plan, cut..<end, logPosition: logPosition) else { return .clientGone }
        if end < body.upperBound {
            return .closeCleanly  // an expiring query's budget ran out
        }
        if plan.chunked && plan.sendsBody {
            leaveGauges()
            guard POSIXSocket.sendAll(socket, Array("0\r\n\r\n".utf8)) else { return .clientGone }
        }
        owedTrailingBytes = plan.trailingBytes
        return .completed
    }

    /// Sends the plan's head without its end, then header lines for ever, paced to about
    /// `bytesPerSecond` if given, until the client leaves or the server stops.
    private func sendEndlessHead(_ plan: ResponsePlan, bytesPerSecond: Int?) {
        var head = plan.headBytes()
        head.removeLast(2)  // the blank line that would end it
        let start = ContinuousClock.now
        var sent = 0
        var line = 0
        var pending = head
        while true {
            if let rate = bytesPerSecond {
                // A byte at a time, each when the rate allows it.
                guard core.sleep(until: start + .seconds(Double(sent) / Double(rate))) else { return }
                guard POSIXSocket.sendAll(socket, [pending.removeFirst()]) else { return }
                sent += 1
            } else {
                guard POSIXSocket.sendAll(socket, pending) else { return }
                sent += pending.count
                pending = []
            }
            if pending.isEmpty {
                pending = Array("X-Endless-\(line): \(String(repeating: "e", count: 1_000))\r\n".utf8)
                line += 1
            }
        }
    }

    /// Sends `range` of the plan's body, in chunks if the plan says so, paced if it is
    /// throttled. Returns `false` once the client is gone.
    private func sendBody(_ plan: ResponsePlan, _ range: Range<Int64>, logPosition: Int) -> Bool {
        guard !range.isEmpty else { return true }
        if plan.bytesPerSecond == nil && !plan.chunked {
            // Fast path: stream the generator's large blocks, in sends of `writeSize`.
            return send(plan.body, range, writeSize: plan.writeSize, logPosition: logPosition)
        }

        var sliceSize = plan.writeSize
        if let rate = plan.bytesPerSecond {
            sliceSize = max(1, min(sliceSize, rate / 20))
        }
        let start = ContinuousClock.now
        var offset = range.lowerBound
        while offset < range.upperBound {
            if let rate = plan.bytesPerSecond {
                let sent = Double(offset - range.lowerBound)
                guard core.sleep(until: start + .seconds(sent / Double(rate))) else { return false }
            }
            let slice = offset..<min(offset + Int64(sliceSize), range.upperBound)
            if plan.chunked {
                let size = String(slice.upperBound - slice.lowerBound, radix: 16, uppercase: true)
                guard POSIXSocket.sendAll(socket, Array("\(size)\r\n".utf8)) else { return false }
            }
            guard send(plan.body, slice, writeSize: sliceSize, logPosition: logPosition) else { return false }
            if plan.chunked {
                guard POSIXSocket.sendAll(socket, [13, 10]) else { return false }
            }
            offset = slice.upperBound
        }
        return true
    }

    /// Sends `range` of `body` in pieces of at most `writeSize` bytes, counting them.
    private func send(_ body: Body, _ range: Range<Int64>, writeSize: Int, logPosition: Int) -> Bool {
        var position = range.lowerBound
        do {
            try body.write(range) { block in
                var offset = 0
                while offset < block.count {
                    let length = min(writeSize, block.count - offset)
                    position += Int64(length)
                    let piece = UnsafeRawBufferPointer(rebasing: block[offset..<(offset + length)])
                    // Counted before sending, so a client that has received the bytes never
                    // sees a smaller count in the log; corrected if the send falls short.
                    core.addBodyBytes(length, logPosition: logPosition)
                    if position == lastBodyByte {
                        leaveGauges()
                    }
                    let sent = POSIXSocket.send(socket, piece)
                    guard sent == length else {
                        core.addBodyBytes(sent - length, logPosition: logPosition)
                        throw PeerGone()
                    }
                    offset += length
                }
            }
            return true
        } catch {
            return false
        }
    }
}
