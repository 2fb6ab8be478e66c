import Foundation

/// Decides the response to a request from the route, the request's index on its path, and
/// the route's fault for that index. Pure: no I/O, no shared state.
enum ResponsePlanner {
    /// The plan for answering `request`; `route` is `nil` for an unknown path. `queryBudget` is
    /// set when the route's queries expire (``Route/queryExpiresAfter``): the body bytes the
    /// request's query may still receive, 0 when it has no query. `digestChallenges` are set when the
    /// route's Digest authentication refused the request: the challenges of its `401`.
    static func plan(
        for request: HTTPRequestHead,
        route: Route?,
        index: Int,
        queryBudget: Int64?,
        digestChallenges: [String]? = nil,
        date: String
    ) -> ResponsePlan {
        let isHead = request.method == "HEAD"
        guard request.method == "GET" || isHead else {
            var plan = text(405, isHead: false, keepAlive: request.wantsKeepAlive, date: date)
            plan.headers.append(("Allow", "GET, HEAD"))
            return plan
        }
        guard let route else {
            return text(404, isHead: isHead, keepAlive: request.wantsKeepAlive, date: date)
        }

        let fault = route.fault(forRequest: index)
        var plan: ResponsePlan
        var chargesQuery = false
        if case .status(let code, let headers) = fault.kind {
            plan = text(code, isHead: isHead, keepAlive: request.wantsKeepAlive, date: date)
            for name in headers.keys.sorted() {
                plan.headers.append((name, headers[name]!))
            }
        } else if let queryBudget, queryBudget <= 0 {
            plan = text(403, isHead: isHead, keepAlive: request.wantsKeepAlive, date: date)
        } else if let required = route.requiredAuthorization, request.header("authorization") != required {
            plan = text(401, isHead: isHead, keepAlive: request.wantsKeepAlive, date: date)
            plan.headers.append(("WWW-Authenticate", "Basic realm=\"downstream\""))
        } else if let digestChallenges {
            plan = text(401, isHead: isHead, keepAlive: request.wantsKeepAlive, date: date)
            for challenge in digestChallenges {
                plan.headers.append(("WWW-Authenticate", challenge))
            }
        } else if let redirect = route.redirect {
            plan = self.redirect(redirect, keepAlive: request.wantsKeepAlive, date: date)
        } else if NotModified.applies(
            to: request,
            etag: route.currentETag(forRequest: index),
            lastModified: route.lastModified
        ) {
            plan = notModified(route: route, index: index, keepAlive: request.wantsKeepAlive, date: date)
        } else {
            plan = entity(for: request, route: route, index: index, fault: fault, date: date)
            if let queryBudget {
                chargesQuery = true
                if plan.bytesToSend > queryBudget {
                    plan.bodyLimit = queryBudget
                }
            }
        }
        plan.interruption = interruption(for: fault)
        if chargesQuery {
            plan.queryCharge = plan.mostBodyBytes
        }
        switch fault.kind {
        case .trailingBytes(let count):
            plan.trailingBytes = count
        case .endlessHeaders(let rate):
            plan.endlessHead = .init(bytesPerSecond: rate)
            plan.keepAlive = false
        case .oversizedHeader(let count):
            plan.headers.append(("X-Oversized", String(repeating: "o", count: count)))
        case .hugeChunkSize:
            plan.hugeChunkSize = true
            plan.chunked = true
            plan.keepAlive = false
            plan.headers.removeAll { $0.name.lowercased() == "content-length" }
            plan.headers.append(("Transfer-Encoding", "chunked"))
        default:
            break
        }
        if plan.interruption.map({ $0.kind != .hold }) == true || plan.bodyLimit != nil {
            plan.keepAlive = false
        }
        if !request.wantsKeepAlive {
            plan.headers.append(("Connection", "close"))
        }
        return plan
    }

    /// A `200`, `206` or `416` answer serving the route's body.
    private static func entity(
        for request: HTTPRequestHead,
        route: Route,
        index: Int,
        fault: Fault,
        date: String
    ) -> ResponsePlan {
        let length = route.body.count
        let etag = route.currentETag(forRequest: index)
        var asked = route.supportsRanges ? request.header("range").flatMap(ByteRangeRequest.init(header:)) : nil
        if fault == .ignoreRange {
            asked = nil
        }
        if asked != nil, let condition = request.header("if-range"),
            route.answersIfRangeInFull || !IfRange.matches(condition, etag: etag, lastModified: route.lastModified)
        {
            asked = nil
        }

        var status = 200
        var range: Range<Int64> = 0..<length
        var contentRange: String?
        switch fault.kind {
        case .rangeNotSatisfiable:
            status = 416
        case .contentRangeStart(let claimedStart):
            let request = asked ?? .from(start: 0, end: nil)
            if length > 0 {
                let start = min(max(claimedStart, 0), length - 1)
                let askedCount =
                    request.resolve(length: length).map { $0.upperBound - $0.lowerBound } ?? (length - start)
                let end = request.isOpenEnded ? length : min(start + askedCount, length)
                status = 206
                range = start..<end
                contentRange = "bytes \(start)-\(end - 1)/\(length)"
            } else {
                status = 416
            }
        case .contentRangeTotal(let claimedTotal):
            if let resolved = (asked ?? .from(start: 0, end: nil)).resolve(length: length) {
                status = 206
                range = resolved
                contentRange = "bytes \(resolved.lowerBound)-\(resolved.upperBound - 1)/\(claimedTotal)"
            } else {
                status = 416
            }
        default:
            if let asked {
                if let resolved = asked.resolve(length: length) {
                    status = 206
                    range = resolved
                    contentRange = "bytes \(resolved.lowerBound)-\(resolved.upperBound - 1)/\(length)"
                } else {
                    status = 416
                }
            }
        }
        if status == 416 {
            range = 0..<0
            contentRange = "bytes */\(length)"
        }

        let chunked = route.chunked && status != 416
        var headers: [(name: String, value: String)] = [("Date", date)]
        if let contentType = route.contentType, status != 416 {
            headers.append(("Content-Type", contentType))
        }
        if chunked {
            headers.append(("Transfer-Encoding", "chunked"))
        } else {
            headers.append(("Content-Length", "\(range.upperBound - range.lowerBound)"))
        }
        if route.supportsRanges {
            headers.append(("Accept-Ranges", "bytes"))
        }
        if let contentRange {
            headers.append(("Content-Range", contentRange))
        }
        if let etag {
            headers.append(("ETag", etag))
        }
        if let lastModified = route.lastModified {
            headers.append(("Last-Modified", lastModified))
        }
        if let contentDisposition = route.contentDisposition, status != 416 {
            headers.append(("Content-Disposition", contentDisposition))
        }
        for name in route.extraHeaders.keys.sorted() {
            headers.append((name, route.extraHeaders[name]!))
        }
        return ResponsePlan(
            status: status,
            headers: headers,
            body: route.body,
            bodyRange: range,
            sendsBody: request.method != "HEAD",
            chunked: chunked,
            interruption: nil,
            writeSize: max(route.writeSize, 1),
            bytesPerSecond: route.bytesPerSecond.map { max($0, 1) },
            keepAlive: request.wantsKeepAlive
        )
    }

    /// A redirect with an empty body.
    private static func redirect(
        _ redirect: (status: Int, location: String),
        keepAlive: Bool,
        date: String
    ) -> ResponsePlan {
        headersOnly(
            redirect.status, [("Date", date), ("Location", redirect.location), ("Content-Length", "0")],
            keepAlive: keepAlive)
    }

    /// A `304 Not Modified`: the route's validators and extra headers, and no body.
    private static func notModified(route: Route, index: Int, keepAlive: Bool, date: String) -> ResponsePlan {
        var headers: [(name: String, value: String)] = [("Date", date)]
        if let etag = route.currentETag(forRequest: index) {
            headers.append(("ETag", etag))
        }
        if let lastModified = route.lastModified {
            headers.append(("Last-Modified", lastModified))
        }
        for name in route.extraHeaders.keys.sorted() {
            headers.append((name, route.extraHeaders[name]!))
        }
        return headersOnly(304, headers, keepAlive: keepAlive)
    }

    /// An answer of `status` and `headers` without a body.
    private static func headersOnly(
        _ status: Int, _ headers: [(name: String, value: String)], keepAlive: Bool
    ) -> ResponsePlan {
        ResponsePlan(
            status: status,
            headers: headers,
            body: .data(Data()),
            bodyRange: 0..<0,
            sendsBody: false,
            chunked: false,
            interruption: nil,
            writeSize: 65536,
            bytesPerSecond: nil,
            keepAlive: keepAlive
        )
    }

    /// A status with a short `text/plain` body such as `404 Not Found`.
    static func text(_ status: Int, isHead: Bool, keepAlive: Bool, date: String) -> ResponsePlan {
        var headers: [(name: String, value: String)] = [("Date", date)]
        var body = Data()
        if !HTTPStatus.forbidsBody(status) {
            body = Data("\(status) \(HTTPStatus.reason(status))\n".utf8)
            headers.append(("Content-Type", "text/plain; charset=utf-8"))
            headers.append(("Content-Length", "\(body.count)"))
        }
        return ResponsePlan(
            status: status,
            headers: headers,
            body: .data(body),
            bodyRange: 0..<Int64(body.count),
            sendsBody: !isHead && !body.isEmpty,
            chunked: false,
            interruption: nil,
            writeSize: 65536,
            bytesPerSecond: nil,
            keepAlive: keepAlive
        )
    }

    private static func interruption(for fault: Fault) -> ResponsePlan.Interruption? {
        switch fault.kind {
        case .closeAfter(let count): .init(after: count, kind: .close)
        case .resetAfter(let count): .init(after: count, kind: .reset)
        case .holdAfter(let count): .init(after: count, kind: .hold)
        case .holdThenCloseAfter(let count): .init(after: count, kind: .holdThenClose)
        case .stallAfter(let count): .init(after: count, kind: .stall)
        default: nil
        }
    }
}
