import Foundation

/// Why the system would not send a request on the network it has: the request's (or session's)
/// policy forbids that network (Apple's `URLError.NetworkUnavailableReason`, in the error's
/// `NSURLErrorNetworkUnavailableReasonKey`).
public struct NetworkUnavailableReason: Sendable, Hashable, CustomStringConvertible {
    enum Code: Int, Sendable, Hashable {
        case cellular = 0
        case expensive = 1
        case constrained = 2
    }

    let code: Code

    /// The network is cellular, and the request may not use cellular networks.
    public static let cellular = NetworkUnavailableReason(code: .cellular)
    /// The network is expensive, and the request may not use expensive networks.
    public static let expensive = NetworkUnavailableReason(code: .expensive)
    /// The network is in Low Data Mode, and the request may not use constrained networks.
    public static let constrained = NetworkUnavailableReason(code: .constrained)

    public var description: String {
        switch code {
        case .cellular: "cellular access is not allowed"
        case .expensive: "expensive networks are not allowed"
        case .constrained: "networks in Low Data Mode are not allowed"
        }
    }

    /// The reason in an error's `userInfo`, if it has one.
    init?(userInfo: [String: Any]) {
        let value = (userInfo[Self.userInfoKey] as? NSNumber)?.intValue ?? userInfo[Self.userInfoKey] as? Int
        guard let value, let code = Code(rawValue: value) else { return nil }
        self.code = code
    }

    private init(code: Code) {
        self.code = code
    }

    /// The `userInfo` key of the reason in Apple's errors (`NSURLErrorNetworkUnavailableReasonKey`).
    package static let userInfoKey = "NSURLErrorNetworkUnavailableReasonKey"

    /// Apple's value of the reason (`URLError.NetworkUnavailableReason.rawValue`).
    package var rawValue: Int { code.rawValue }
}
