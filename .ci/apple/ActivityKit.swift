// Stand-in for Apple's ActivityKit (Live Activities, iOS only): what the documentation's samples
// use, with the signatures of the iOS 16.5 SDK's
// System/Library/Frameworks/ActivityKit.framework/Modules/ActivityKit.swiftmodule/arm64-apple-ios.swiftinterface
// and the availability of Apple's documentation page of each symbol (ActivityKit has no tvOS,
// watchOS, macOS or visionOS API in that SDK). The API of iOS 16.2 (`ActivityContent`) is what the
// samples use; the iOS 16.1 forms it deprecates are left out. In that SDK `Activity` is a class
// that is not `Sendable`.

@_exported import AppleFoundation

// ActivityKit.swiftinterface: `public protocol ActivityAttributes : Decodable, Encodable`.
// https://developer.apple.com/documentation/activitykit/activityattributes
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public protocol ActivityAttributes: Decodable, Encodable {
    // https://developer.apple.com/documentation/activitykit/activityattributes/contentstate
    associatedtype ContentState: Decodable, Encodable, Hashable
}

// ActivityKit.swiftinterface: `public struct ActivityContent<State> where State : Decodable, State : Encodable, State : Hashable`.
// https://developer.apple.com/documentation/activitykit/activitycontent
@available(iOS 16.2, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ActivityContent<State> where State: Decodable, State: Encodable, State: Hashable {
    // ActivityKit.swiftinterface: `public let state: State`.
    public let state: State
    // ActivityKit.swiftinterface: `public let staleDate: Foundation.Date?`.
    public let staleDate: Date?
    // ActivityKit.swiftinterface: `public let relevanceScore: Swift.Double`.
    public let relevanceScore: Double
    // ActivityKit.swiftinterface: `public init(state: State, staleDate: Foundation.Date?, relevanceScore: Swift.Double = 0.0)`.
    // https://developer.apple.com/documentation/activitykit/activitycontent/init(state:staledate:relevancescore:)
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) {
        self.state = state
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
    }
}

// ActivityKit.swiftinterface: `public struct PushType : Equatable`.
// https://developer.apple.com/documentation/activitykit/pushtype
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct PushType: Equatable {
    // ActivityKit.swiftinterface: `public static let token: ActivityKit.PushType`.
    public static var token: PushType { fatalError() }
}

// ActivityKit.swiftinterface: `public struct ActivityUIDismissalPolicy : Equatable`.
// https://developer.apple.com/documentation/activitykit/activityuidismissalpolicy
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ActivityUIDismissalPolicy: Equatable {
    // ActivityKit.swiftinterface: `public static let `default`: ActivityKit.ActivityUIDismissalPolicy`.
    public static var `default`: ActivityUIDismissalPolicy { fatalError() }
    // ActivityKit.swiftinterface: `public static let immediate: ActivityKit.ActivityUIDismissalPolicy`.
    public static var immediate: ActivityUIDismissalPolicy { fatalError() }
    // ActivityKit.swiftinterface: `public static func after(_ date: Foundation.Date) -> ActivityKit.ActivityUIDismissalPolicy`.
    public static func after(_ date: Date) -> ActivityUIDismissalPolicy { fatalError() }
}

// ActivityKit.swiftinterface: `public class Activity<Attributes> : Identifiable where Attributes : ActivityKit.ActivityAttributes`.
// https://developer.apple.com/documentation/activitykit/activity
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public class Activity<Attributes>: Identifiable where Attributes: ActivityAttributes {
    // ActivityKit.swiftinterface: `public typealias ContentState = Attributes.ContentState`.
    public typealias ContentState = Attributes.ContentState

    private init() {}

    // ActivityKit.swiftinterface: `final public let id: Swift.String`.
    public final var id: String { fatalError() }
    // ActivityKit.swiftinterface: `final public let attributes: Attributes`.
    public final var attributes: Attributes { fatalError() }

    // ActivityKit.swiftinterface: `public static func request(attributes:content:pushType:) throws -> Activity<Attributes>`.
    // https://developer.apple.com/documentation/activitykit/activity/request(attributes:content:pushtype:)
    @available(iOS 16.2, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> { fatalError() }

    // ActivityKit.swiftinterface: `public static var activities: [ActivityKit.Activity<Attributes>] { get }`.
    // https://developer.apple.com/documentation/activitykit/activity/activities
    public static var activities: [Activity<Attributes>] { fatalError() }

    // ActivityKit.swiftinterface: `public var content: ActivityKit.ActivityContent<...ContentState> { get }`.
    // https://developer.apple.com/documentation/activitykit/activity/content
    @available(iOS 16.2, *)
    public var content: ActivityContent<Activity<Attributes>.ContentState> { fatalError() }

    // ActivityKit.swiftinterface: `public func update(_ content: ActivityKit.ActivityContent<...ContentState>) async`.
    // https://developer.apple.com/documentation/activitykit/activity/update(_:)
    @available(iOS 16.2, *)
    public func update(_ content: ActivityContent<Activity<Attributes>.ContentState>) async { fatalError() }

    // ActivityKit.swiftinterface: `public func end(_ content: ActivityKit.ActivityContent<...ContentState>?, dismissalPolicy: ActivityKit.ActivityUIDismissalPolicy = .default) async`.
    // https://developer.apple.com/documentation/activitykit/activity/end(_:dismissalpolicy:)
    @available(iOS 16.2, *)
    public func end(
        _ content: ActivityContent<Activity<Attributes>.ContentState>?,
        dismissalPolicy: ActivityUIDismissalPolicy = .default
    ) async { fatalError() }
}
