// Stand-in for Apple's Combine: what SwiftUI samples use (ObservableObject, @Published).
// Signatures from the iOS 16.5 SDK's
// System/Library/Frameworks/Combine.framework/Modules/Combine.swiftmodule/arm64-apple-ios.swiftinterface.
// Apple's Foundation re-exports ObservableObject and Published as typealiases (see
// AppleFoundation.swift), so samples that import only Foundation or SwiftUI see them too.

// Combine.swiftinterface: `public protocol Publisher<Output, Failure>`.
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Publisher<Output, Failure> {
    associatedtype Output
    associatedtype Failure: Error
    // Combine.swiftinterface: `func receive<S>(subscriber: S)`.
    func receive<S>(subscriber: S) where S: Subscriber, Self.Failure == S.Failure, Self.Output == S.Input
}

// Combine.swiftinterface: `public protocol Subscriber<Input, Failure>`; its `receive` requirements
// are left out (nothing here subscribes).
@available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, *)
public protocol Subscriber<Input, Failure> {
    associatedtype Input
    associatedtype Failure: Error
}

// Combine.swiftinterface: `public protocol ObservableObject : AnyObject`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher: Publisher = ObservableObjectPublisher
    where Self.ObjectWillChangePublisher.Failure == Never
    // Combine.swiftinterface: `var objectWillChange: Self.ObjectWillChangePublisher { get }`.
    var objectWillChange: Self.ObjectWillChangePublisher { get }
}

// Combine.swiftinterface: `final public class ObservableObjectPublisher : Publisher`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
final public class ObservableObjectPublisher: Publisher {
    public typealias Output = Void
    public typealias Failure = Never
    // Combine.swiftinterface: `public init()`.
    public init() { fatalError() }
    // Combine.swiftinterface: `final public func receive<S>(subscriber: S)`.
    final public func receive<S>(subscriber: S) where S: Subscriber, S.Failure == Never, S.Input == () {
        fatalError()
    }
    // Combine.swiftinterface: `final public func send()`.
    final public func send() { fatalError() }
}

// Combine.swiftinterface: the default `objectWillChange`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ObservableObject where Self.ObjectWillChangePublisher == ObservableObjectPublisher {
    // Combine.swiftinterface: `public var objectWillChange: ObservableObjectPublisher { get }`.
    public var objectWillChange: ObservableObjectPublisher { fatalError() }
}

// Combine.swiftinterface: `@propertyWrapper public struct Published<Value>`: classes only.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct Published<Value> {
    // Combine.swiftinterface: `public init(wrappedValue: Value)`.
    public init(wrappedValue: Value) { fatalError() }
    // Combine.swiftinterface: `public init(initialValue: Value)`.
    public init(initialValue: Value) { fatalError() }
    // Combine.swiftinterface: unavailable, so that @Published on a struct's property fails.
    @available(*, unavailable, message: "@Published is only available on properties of classes")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }
    // Combine.swiftinterface: the enclosing-instance subscript that classes use.
    public static subscript<EnclosingSelf>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Published<Value>>
    ) -> Value where EnclosingSelf: AnyObject {
        get { fatalError() }
        set { fatalError() }
    }
    // Combine.swiftinterface: `public struct Publisher : Combine.Publisher`.
    public struct Publisher: Combine.Publisher {
        public typealias Output = Value
        public typealias Failure = Never
        // Combine.swiftinterface: `public func receive<S>(subscriber: S)`.
        public func receive<S>(subscriber: S) where Value == S.Input, S: Subscriber, S.Failure == Never {
            fatalError()
        }
    }
    // Combine.swiftinterface: `public var projectedValue: Published<Value>.Publisher { mutating get }`.
    public var projectedValue: Published<Value>.Publisher {
        mutating get { fatalError() }
    }
}
