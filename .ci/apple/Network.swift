// Stand-in for Apple's Network framework: the path monitor, as the package uses it. Signatures
// from the iOS 16.5 SDK's usr/lib/swift/Network.swiftmodule/arm64-apple-ios.swiftinterface. In
// that SDK neither NWPathMonitor nor NWPath is Sendable and `pathUpdateHandler` is not @Sendable.

import Dispatch

// Network.swiftinterface: `public struct NWPath : Equatable, CustomDebugStringConvertible`.
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct NWPath: Equatable, CustomDebugStringConvertible {
    // Network.swiftinterface: `NWPath.Status`, Equatable and Hashable.
    public enum Status: Equatable, Hashable {
        case satisfied
        case unsatisfied
        case requiresConnection
    }

    // Network.swiftinterface: `public let status: NWPath.Status`.
    public let status: NWPath.Status
    // Network.swiftinterface: `public let isExpensive: Swift.Bool`.
    public let isExpensive: Bool
    // Network.swiftinterface: `@available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *) public var isConstrained: Swift.Bool { get }`.
    @available(macOS 10.15, iOS 13.0, watchOS 6.0, tvOS 13.0, *)
    public var isConstrained: Bool { fatalError() }
    // Network.swiftinterface: `public func usesInterfaceType(_ type: Network.NWInterface.InterfaceType) -> Swift.Bool`.
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool { fatalError() }
    // Network.swiftinterface: `public var debugDescription: String { get }`.
    public var debugDescription: String { fatalError() }

    // Network.swiftinterface: `public static func == (lhs: NWPath, rhs: NWPath) -> Bool`.
    public static func == (lhs: NWPath, rhs: NWPath) -> Bool { fatalError() }
}

// Network.swiftinterface: `final public class NWPathMonitor`.
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
final public class NWPathMonitor {
    // Network.swiftinterface: `final public var currentPath: NWPath`.
    final public var currentPath: NWPath
    // Network.swiftinterface: `final public var pathUpdateHandler: ((_ newPath: NWPath) -> Void)?`.
    final public var pathUpdateHandler: ((_ newPath: NWPath) -> Void)?
    // Network.swiftinterface: `final public func start(queue: DispatchQueue)`.
    final public func start(queue: DispatchQueue) { fatalError() }
    // Network.swiftinterface: `final public func cancel()`.
    final public func cancel() { fatalError() }
    // Network.swiftinterface: `public init()`.
    public init() { fatalError() }
}

// Network.swiftinterface: `public struct NWInterface : Swift.Hashable, Swift.CustomDebugStringConvertible`.
@available(macOS 10.14, iOS 12.0, watchOS 5.0, tvOS 12.0, *)
public struct NWInterface: Hashable, CustomDebugStringConvertible {
    // Network.swiftinterface: `NWInterface.InterfaceType`.
    public enum InterfaceType: Hashable {
        case other
        case wifi
        case cellular
        case wiredEthernet
        case loopback
    }

    // Network.swiftinterface: `public let type: Network.NWInterface.InterfaceType`.
    public let type: NWInterface.InterfaceType
    // Network.swiftinterface: `public var debugDescription: Swift.String { get }`.
    public var debugDescription: String { fatalError() }
}
