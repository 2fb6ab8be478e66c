import Foundation

extension StoredDownload {
    /// Reads a record from its JSON: with ``JSONReader`` when the record is of the shape most
    /// records have (no digest, segments, server response, system resume data or sources: a
    /// download that has not protected bytes yet), else with `JSONDecoder`.
    static func decode(_ payload: UnsafeRawBufferPointer) throws -> StoredDownload {
        if let record = readFast(payload) { return record }
        return try JSONDecoder().decode(StoredDownload.self, from: Data(payload))
    }

    /// The record `JSONDecoder` would read from `payload`, read with ``JSONReader``; nil when the
    /// record is not of the common shape, or the text is anything `JSONReader` does not take.
    static func readFast(_ payload: UnsafeRawBufferPointer) -> StoredDownload? {
        var reader = JSONReader(payload)
        guard let record = try? StoredDownload(reading: &reader), reader.isAtEnd else { return nil }
        return record
    }

    /// Reads the members `JSONDecoder` would, for records of the common shape; throws for any
    /// other, and for a member missing or not what `JSONDecoder` takes.
    private init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var version: Int?
        var id: DownloadID?
        var request: Request?
        var destination: StoredDestination?
        var partialPath: String?
        var intent: Intent?
        var resume: ResumeRecord?
        var created: Date?
        try reader.members { reader, key throws(JSONReader.Unsupported) in
            switch key {
            case "version": version = try reader.integer()
            case "id":
                guard let uuid = Self.uuid(try reader.string()) else { throw JSONReader.Unsupported() }
                id = DownloadID(rawValue: uuid)
            case "request": request = try Request(reading: &reader)
            case "destination": destination = try StoredDestination(reading: &reader)
            case "partialPath": partialPath = try reader.string()
            case "intent": intent = try Self.code(&reader)
            case "resume": resume = try ResumeRecord(reading: &reader, urlReadBefore: request?.url)
            case "created": created = Date(timeIntervalSinceReferenceDate: try reader.double())
            default: throw JSONReader.Unsupported()
            }
        }
        guard let version, let id, let request, let destination, let partialPath, let intent, let resume, let created
        else { throw JSONReader.Unsupported() }
        var shared = resume
        if resume.url.absoluteString == request.url.absoluteString {
            // One URL, not two equal ones: a restored store holds thousands of records.
            shared.url = request.url
        }
        self.init(
            id: id, request: request, destination: destination, partialPath: partialPath, intent: intent,
            resume: shared, created: created)
        self.version = version
    }

    /// The UUID `text` spells in its usual form (`8-4-4-4-12` hexadecimal digits), as
    /// `UUID(uuidString:)` reads it, without its `sscanf`.
    static func uuid(_ text: String) -> UUID? {
        var text = text
        // Without an allocation: a restored store reads one per record.
        return text.withUTF8 { characters -> UUID? in
            guard characters.count == 36 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let isValid = withUnsafeMutableBytes(of: &uuid) { bytes in
                var digits = 0
                for (offset, character) in characters.enumerated() {
                    if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                        guard character == UInt8(ascii: "-") else { return false }
                        continue
                    }
                    guard let value = UInt8(hexDigit: character) else { return false }
                    bytes[digits / 2] |= digits % 2 == 0 ? value << 4 : value
                    digits += 1
                }
                return true
            }
            return isValid ? UUID(uuid: uuid) : nil
        }
    }

    fileprivate static func code<Code: RawRepresentable<String>>(
        _ reader: inout JSONReader
    ) throws(JSONReader.Unsupported) -> Code {
        guard let code = Code(rawValue: try reader.string()) else { throw JSONReader.Unsupported() }
        return code
    }

    fileprivate static func optionalCode<Code: RawRepresentable<String>>(
        _ reader: inout JSONReader
    ) throws(JSONReader.Unsupported) -> Code? {
        try reader.null() ? nil : try code(&reader)
    }

    fileprivate static func url(_ reader: inout JSONReader) throws(JSONReader.Unsupported) -> URL {
        guard let url = URL(string: try reader.string()) else { throw JSONReader.Unsupported() }
        return url
    }
}

extension StoredDownload.Request {
    fileprivate init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var url: URL?
        var headers: [String: String]?
        var onServerFileChange: DownloadRequest.ServerFileChangePolicy.Code?
        var priority: Int?
        var metadata: [String: String]?
        // The members a request may lack are read into it; those it must have, checked below.
        var request = Self(
            url: PartialLocation.noURL, headers: [:], onServerFileChange: .restart, priority: 0, metadata: [:])
        try reader.members { reader, key throws(JSONReader.Unsupported) in
            // As `decodeIfPresent` reads it, null is nil; only optional members may be null.
            let isNull = try reader.null()
            switch key {
            case "url" where !isNull: url = try StoredDownload.url(&reader)
            case "headers" where !isNull: headers = try reader.stringDictionary()
            case "onServerFileChange" where !isNull: onServerFileChange = try StoredDownload.code(&reader)
            case "priority" where !isNull: priority = try reader.integer()
            case "metadata" where !isNull: metadata = try reader.stringDictionary()
            case "expectedDigest": request.expectedDigest = isNull ? nil : try reader.string()
            case "onRejectedFile": request.onRejectedFile = isNull ? nil : try StoredDownload.code(&reader)
            case "mirrors":
                guard !isNull else { return }
                var urls: [URL] = []
                try reader.elements { reader throws(JSONReader.Unsupported) in
                    urls.append(try StoredDownload.url(&reader))
                }
                request.mirrors = urls
            case "maximumBytesPerSecond": request.maximumBytesPerSecond = isNull ? nil : try reader.integer()
            case "maximumConnections": request.maximumConnections = isNull ? nil : try reader.integer()
            case "minimumSegmentSize": request.minimumSegmentSize = isNull ? nil : try reader.integer()
            case "fileProtection": request.fileProtection = isNull ? nil : try StoredDownload.code(&reader)
            case "networkAccess":
                guard !isNull else { return }
                var access = StoredDownload.StoredNetworkAccess()
                try reader.members { reader, key throws(JSONReader.Unsupported) in
                    let value = try reader.null() ? nil : try reader.bool()
                    switch key {
                    case "cellular": access.cellular = value
                    case "expensive": access.expensive = value
                    case "constrained": access.constrained = value
                    default: throw JSONReader.Unsupported()
                    }
                }
                request.networkAccess = access
            case "earliestBeginDate":
                request.earliestBeginDate = isNull ? nil : Date(timeIntervalSinceReferenceDate: try reader.double())
            case "expectedByteCount": request.expectedByteCount = isNull ? nil : try reader.integer()
            case "acceptsCompressedBody": request.acceptsCompressedBody = isNull ? nil : try reader.bool()
            case "maximumFileSize": request.maximumFileSize = isNull ? nil : try reader.integer()
            default: throw JSONReader.Unsupported()
            }
        }
        guard let url, let headers, let onServerFileChange, let priority, let metadata else {
            throw JSONReader.Unsupported()
        }
        request.url = url
        request.headers = headers
        request.onServerFileChange = onServerFileChange
        request.priority = priority
        request.metadata = metadata
        self = request
    }
}

extension StoredDownload.StoredDestination {
    fileprivate init(reading reader: inout JSONReader) throws(JSONReader.Unsupported) {
        var isDirectory: Bool?
        var path: String?
        var conflictPolicy: Destination.ConflictPolicy.Code?
        var isCoordinated: Bool?
        try reader.members { reader, key throws(JSONReader.Unsupported) in
            switch key {
            case "isDirectory": isDirectory = try reader.bool()
            case "path": path = try reader.string()
            case "conflictPolicy": conflictPolicy = try StoredDownload.code(&reader)
            case "isCoordinated": isCoordinated = try reader.null() ? nil : try reader.bool()
            default: throw JSONReader.Unsupported()
            }
        }
        guard let isDirectory, let path, let conflictPolicy else { throw JSONReader.Unsupported() }
        self.init(isDirectory: isDirectory, path: path, conflictPolicy: conflictPolicy, isCoordinated: isCoordinated)
    }
}

extension ResumeRecord {
    /// Reads a record of bytes not yet protected: no digest, segments, server digest or response.
    /// - Parameter urlReadBefore: the request's URL, read before: taken, not parsed again, when
    ///   the record's is the same text (most often).
    fileprivate init(reading reader: inout JSONReader, urlReadBefore: URL?) throws(JSONReader.Unsupported) {
        var url: URL?
        var validator: Validator?
        var expectedLength: Int64?
        var durableLength: Int64?
        var suggestedFileName: String?
        var isResumable: Bool?
        try reader.members { reader, key throws(JSONReader.Unsupported) in
            switch key {
            case "url":
                let text = try reader.string()
                if let urlReadBefore, urlReadBefore.absoluteString == text {
                    url = urlReadBefore
                } else {
                    guard let parsed = URL(string: text) else { throw JSONReader.Unsupported() }
                    url = parsed
                }
            case "validator":
                var read = Validator()
                try reader.members { reader, key throws(JSONReader.Unsupported) in
                    switch key {
                    case "etag": read.etag = try reader.optionalString()
                    case "lastModified": read.lastModified = try reader.optionalString()
                    default: throw JSONReader.Unsupported()
                    }
                }
                validator = read
            case "expectedLength": expectedLength = try reader.null() ? nil : try reader.integer()
            case "durableLength": durableLength = try reader.integer()
            case "suggestedFileName": suggestedFileName = try reader.optionalString()
            case "isResumable": isResumable = try reader.bool()
            default: throw JSONReader.Unsupported()
            }
        }
        guard let url, let validator, let durableLength, let isResumable else { throw JSONReader.Unsupported() }
        self.init(url: url)
        self.validator = validator
        self.expectedLength = expectedLength
        self.durableLength = durableLength
        self.suggestedFileName = suggestedFileName
        self.isResumable = isResumable
    }
}
