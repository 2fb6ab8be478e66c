import Foundation

/// A snapshot encodes as a flat object with short keys, its state as its name (`"running"`) and
/// its dates as their `Codable` form: a Live Activity's content state is sent to the system
/// encoded, and must stay under 4 KB.
extension ProgressSnapshot: Codable {
    private enum CodingKeys: String, CodingKey {
        case state
        case bytesReceived = "received"
        case expectedBytes = "expected"
        case fractionCompleted = "fraction"
        case downloadCount = "count"
        case completedCount = "completed"
        case failedCount = "failed"
        case date
        case estimatedCompletion = "end"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .state)
        guard let code = DownloadState.Code(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .state, in: container, debugDescription: "No download state is named \(name).")
        }
        state = DownloadState(code: code)
        bytesReceived = try container.decode(Int64.self, forKey: .bytesReceived)
        expectedBytes = try container.decodeIfPresent(Int64.self, forKey: .expectedBytes)
        fractionCompleted = try container.decodeIfPresent(Double.self, forKey: .fractionCompleted)
        downloadCount = try container.decode(Int.self, forKey: .downloadCount)
        completedCount = try container.decode(Int.self, forKey: .completedCount)
        failedCount = try container.decode(Int.self, forKey: .failedCount)
        date = try container.decode(Date.self, forKey: .date)
        estimatedCompletion = try container.decodeIfPresent(Date.self, forKey: .estimatedCompletion)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state.description, forKey: .state)
        try container.encode(bytesReceived, forKey: .bytesReceived)
        try container.encodeIfPresent(expectedBytes, forKey: .expectedBytes)
        try container.encodeIfPresent(fractionCompleted, forKey: .fractionCompleted)
        try container.encode(downloadCount, forKey: .downloadCount)
        try container.encode(completedCount, forKey: .completedCount)
        try container.encode(failedCount, forKey: .failedCount)
        try container.encode(date, forKey: .date)
        try container.encodeIfPresent(estimatedCompletion, forKey: .estimatedCompletion)
    }
}
