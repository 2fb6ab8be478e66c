// Stand-in for Apple's SwiftUI: the views, scenes, property wrappers and result builders that the
// documentation samples use, with the generic signatures of the iOS 16.5 SDK's
// System/Library/Frameworks/SwiftUI.framework/Modules/SwiftUI.swiftmodule/arm64-apple-ios.swiftinterface
// (there `@MainActor(unsafe)` is what `@preconcurrency @MainActor` prints as). SwiftUI's own
// machinery (`_makeView`, graph inputs, storage) is left out. Views without a body of their own
// have `Body == Never`; a modifier that returns `some View` returns `self` (never run).
//
// In the 16.5 SDK `View` itself is not @MainActor, only its `body`; SDKs from iOS 18 on make the
// whole protocol @MainActor and accept more.

#if canImport(UIKit)
    @_exported import UIKit
#else
    @_exported import AppleFoundation
#endif
import Combine
// SwiftUI re-exports Observation in the SDKs that have it (iOS 17 and later; the 16.5 SDK has none).
// This is the toolchain's Observation, whose availability (iOS 17, macOS 14) Linux does not check.
@_exported import Observation

// MARK: - Views and scenes

// SwiftUI.swiftinterface: `public protocol View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol View {
    associatedtype Body: View
    // SwiftUI.swiftinterface: `@ViewBuilder @MainActor(unsafe) var body: Self.Body { get }`.
    @ViewBuilder @preconcurrency @MainActor var body: Self.Body { get }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension View where Body == Never {
    // The witness of `body` for views without one (Text, stacks): SwiftUI's is not in its interface.
    public var body: Never { fatalError() }
}

// SwiftUI.swiftinterface: `extension Never : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Never: View {
    public typealias Body = Never
    // Never's body, which the View, Scene and WidgetConfiguration conformances share (nonisolated,
    // as WidgetConfiguration's requirement is).
    nonisolated public var body: Never { fatalError() }
}

// SwiftUI.swiftinterface: `public protocol Scene`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public protocol Scene {
    associatedtype Body: Scene
    // SwiftUI.swiftinterface: `@SceneBuilder @MainActor(unsafe) var body: Self.Body { get }`.
    @SceneBuilder @preconcurrency @MainActor var body: Self.Body { get }
}

// SwiftUI.swiftinterface: `extension Never : Scene`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Never: Scene {}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension Scene where Body == Never {
    // The witness of `body` for scenes without one (WindowGroup): not in SwiftUI's interface.
    public var body: Never { fatalError() }
}

// SwiftUI.swiftinterface: `public protocol App`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public protocol App {
    associatedtype Body: Scene
    // SwiftUI.swiftinterface: `@SceneBuilder @MainActor(unsafe) var body: Self.Body { get }`.
    @SceneBuilder @preconcurrency @MainActor var body: Self.Body { get }
    // SwiftUI.swiftinterface: `@MainActor(unsafe) init()`.
    @preconcurrency @MainActor init()
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension App {
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public static func main()`, for `@main`.
    @preconcurrency @MainActor public static func main() { fatalError() }
}

// SwiftUI.swiftinterface: `public protocol DynamicProperty` (its graph requirement left out).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol DynamicProperty {
    // SwiftUI.swiftinterface: `mutating func update()`, with a default.
    mutating func update()
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension DynamicProperty {
    // SwiftUI.swiftinterface: the default `update()`.
    public mutating func update() {}
}

// MARK: - Result builders

// SwiftUI.swiftinterface: `@resultBuilder public struct ViewBuilder`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@resultBuilder public struct ViewBuilder {
    // SwiftUI.swiftinterface: buildExpression.
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: View { content }
    // SwiftUI.swiftinterface: the empty block.
    public static func buildBlock() -> EmptyView { EmptyView() }
    // SwiftUI.swiftinterface: one view.
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: View { content }
    // SwiftUI.swiftinterface: `if` without `else`.
    public static func buildIf<Content>(_ content: Content?) -> Content? where Content: View { content }
    // SwiftUI.swiftinterface: the first branch of `if`/`else` or `switch`.
    public static func buildEither<TrueContent, FalseContent>(
        first: TrueContent
    ) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
    // SwiftUI.swiftinterface: the second branch.
    public static func buildEither<TrueContent, FalseContent>(
        second: FalseContent
    ) -> _ConditionalContent<TrueContent, FalseContent> where TrueContent: View, FalseContent: View { fatalError() }
    // SwiftUI.swiftinterface: 2 to 10 views, each in its own overload.
    public static func buildBlock<C0, C1>(_ c0: C0, _ c1: C1) -> TupleView<(C0, C1)>
    where C0: View, C1: View { .init((c0, c1)) }
    // SwiftUI.swiftinterface: 3 views.
    public static func buildBlock<C0, C1, C2>(_ c0: C0, _ c1: C1, _ c2: C2) -> TupleView<(C0, C1, C2)>
    where C0: View, C1: View, C2: View { .init((c0, c1, c2)) }
    // SwiftUI.swiftinterface: 4 views.
    public static func buildBlock<C0, C1, C2, C3>(_ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3) -> TupleView<(C0, C1, C2, C3)>
    where C0: View, C1: View, C2: View, C3: View { .init((c0, c1, c2, c3)) }
    // SwiftUI.swiftinterface: 5 views.
    public static func buildBlock<C0, C1, C2, C3, C4>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4
    ) -> TupleView<(C0, C1, C2, C3, C4)> where C0: View, C1: View, C2: View, C3: View, C4: View {
        .init((c0, c1, c2, c3, c4))
    }
    // SwiftUI.swiftinterface: 6 views.
    public static func buildBlock<C0, C1, C2, C3, C4, C5>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5
    ) -> TupleView<(C0, C1, C2, C3, C4, C5)> where C0: View, C1: View, C2: View, C3: View, C4: View, C5: View {
        .init((c0, c1, c2, c3, c4, c5))
    }
    // SwiftUI.swiftinterface: 7 views.
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6)>
    where C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View {
        .init((c0, c1, c2, c3, c4, c5, c6))
    }
    // SwiftUI.swiftinterface: 8 views.
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7)>
    where C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View {
        .init((c0, c1, c2, c3, c4, c5, c6, c7))
    }
    // SwiftUI.swiftinterface: 9 views.
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7, C8>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8)>
    where C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View {
        .init((c0, c1, c2, c3, c4, c5, c6, c7, c8))
    }
    // SwiftUI.swiftinterface: 10 views, the most a block takes.
    public static func buildBlock<C0, C1, C2, C3, C4, C5, C6, C7, C8, C9>(
        _ c0: C0, _ c1: C1, _ c2: C2, _ c3: C3, _ c4: C4, _ c5: C5, _ c6: C6, _ c7: C7, _ c8: C8, _ c9: C9
    ) -> TupleView<(C0, C1, C2, C3, C4, C5, C6, C7, C8, C9)>
    where C0: View, C1: View, C2: View, C3: View, C4: View, C5: View, C6: View, C7: View, C8: View, C9: View {
        .init((c0, c1, c2, c3, c4, c5, c6, c7, c8, c9))
    }
}

// SwiftUI.swiftinterface: `@resultBuilder public struct SceneBuilder` (one scene is all it takes
// here; Apple's takes up to 10).
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@resultBuilder public struct SceneBuilder {
    // SwiftUI.swiftinterface: buildExpression.
    public static func buildExpression<Content>(_ content: Content) -> Content where Content: Scene { content }
    // SwiftUI.swiftinterface: `public static func buildBlock<Content>(_ content: Content) -> Content`.
    public static func buildBlock<Content>(_ content: Content) -> Content where Content: Scene { content }
}

// SwiftUI.swiftinterface: `@frozen public struct EmptyView : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EmptyView: View {
    // SwiftUI.swiftinterface: `@inlinable public init()`.
    public init() {}
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `@frozen public struct TupleView<T> : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct TupleView<T>: View {
    // SwiftUI.swiftinterface: `public var value: T`.
    public var value: T
    // SwiftUI.swiftinterface: `@inlinable public init(_ value: T)`.
    public init(_ value: T) { self.value = value }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `@frozen public struct _ConditionalContent<TrueContent, FalseContent>`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct _ConditionalContent<TrueContent, FalseContent> {}

// SwiftUI.swiftinterface: `extension _ConditionalContent : View where TrueContent : View, FalseContent : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension _ConditionalContent: View where TrueContent: View, FalseContent: View {
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `extension Optional : View where Wrapped : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Optional: View where Wrapped: View {
    public typealias Body = Never
}

// MARK: - Text

// SwiftUI.swiftinterface: `@frozen public struct Text : Equatable`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Text: Equatable, View {
    // SwiftUI.swiftinterface: `@inlinable public init(verbatim content: String)`.
    public init(verbatim content: String) { fatalError() }
    // SwiftUI.swiftinterface: `@_disfavoredOverload public init<S>(_ content: S) where S : StringProtocol`.
    @_disfavoredOverload public init<S>(_ content: S) where S: StringProtocol { fatalError() }
    // SwiftUI.swiftinterface: `public init(_ key: LocalizedStringKey, tableName:bundle:comment:)`.
    public init(
        _ key: LocalizedStringKey, tableName: String? = nil, bundle: Bundle? = nil, comment: StaticString? = nil
    ) { fatalError() }
    // SwiftUI.swiftinterface: `@_disfavoredOverload public init(_ attributedContent: AttributedString)`.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    @_disfavoredOverload public init(_ attributedContent: AttributedString) { fatalError() }
    // SwiftUI.swiftinterface: `public init<F>(_ input: F.FormatInput, format: F)`.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    public init<F>(_ input: F.FormatInput, format: F)
    where F: FormatStyle, F.FormatInput: Equatable, F.FormatOutput == String { fatalError() }
    // SwiftUI.swiftinterface: `public static func + (lhs: Text, rhs: Text) -> Text`.
    public static func + (lhs: Text, rhs: Text) -> Text { fatalError() }
    // Equatable.
    public static func == (lhs: Text, rhs: Text) -> Bool { fatalError() }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `public protocol _FormatSpecifiable : Equatable`, for `Text("\(count)")`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public protocol _FormatSpecifiable: Equatable {}
// SwiftUI.swiftinterface: `extension Int : _FormatSpecifiable`.
extension Int: _FormatSpecifiable {}
// SwiftUI.swiftinterface: `extension Int64 : _FormatSpecifiable`.
extension Int64: _FormatSpecifiable {}
// SwiftUI.swiftinterface: `extension Double : _FormatSpecifiable`.
extension Double: _FormatSpecifiable {}

// SwiftUI.swiftinterface: `@frozen public struct LocalizedStringKey : Equatable, ExpressibleByStringInterpolation`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct LocalizedStringKey: Equatable, ExpressibleByStringInterpolation {
    // SwiftUI.swiftinterface: `public init(_ value: String)`.
    public init(_ value: String) { fatalError() }
    // SwiftUI.swiftinterface: `public init(stringLiteral value: String)`.
    public init(stringLiteral value: String) { fatalError() }
    // SwiftUI.swiftinterface: `public init(stringInterpolation: LocalizedStringKey.StringInterpolation)`.
    public init(stringInterpolation: LocalizedStringKey.StringInterpolation) { fatalError() }

    // SwiftUI.swiftinterface: `public struct StringInterpolation : StringInterpolationProtocol`.
    public struct StringInterpolation: StringInterpolationProtocol {
        // SwiftUI.swiftinterface: `public init(literalCapacity: Int, interpolationCount: Int)`.
        public init(literalCapacity: Int, interpolationCount: Int) { fatalError() }
        // SwiftUI.swiftinterface: `public mutating func appendLiteral(_ literal: String)`.
        public mutating func appendLiteral(_ literal: String) { fatalError() }
        // SwiftUI.swiftinterface: `public mutating func appendInterpolation(_ string: String)`.
        public mutating func appendInterpolation(_ string: String) { fatalError() }
        // SwiftUI.swiftinterface: `appendInterpolation<F>(_ input: F.FormatInput, format: F)`.
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        public mutating func appendInterpolation<F>(_ input: F.FormatInput, format: F)
        where F: FormatStyle, F.FormatInput: Equatable, F.FormatOutput == String { fatalError() }
        // SwiftUI.swiftinterface: `appendInterpolation<T>(_ value: T) where T : _FormatSpecifiable`.
        public mutating func appendInterpolation<T>(_ value: T) where T: _FormatSpecifiable { fatalError() }
        // SwiftUI.swiftinterface: `public mutating func appendInterpolation(_ text: Text)`.
        public mutating func appendInterpolation(_ text: Text) { fatalError() }
    }

    // Equatable.
    public static func == (lhs: LocalizedStringKey, rhs: LocalizedStringKey) -> Bool { fatalError() }
}

// MARK: - Controls and layout

// SwiftUI.swiftinterface: `public struct ProgressView<Label, CurrentValueLabel> : View`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct ProgressView<Label, CurrentValueLabel>: View where Label: View, CurrentValueLabel: View {
    public typealias Body = Never
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension ProgressView {
    // SwiftUI.swiftinterface: `public init<V>(value: V?, total: V = 1.0)`.
    public init<V>(value: V?, total: V = 1.0)
    where Label == EmptyView, CurrentValueLabel == EmptyView, V: BinaryFloatingPoint { fatalError() }
}

// SwiftUI.swiftinterface: `public struct Button<Label> : View where Label : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Button<Label>: View where Label: View {
    // SwiftUI.swiftinterface: `public init(action: @escaping () -> Void, @ViewBuilder label: () -> Label)`.
    public init(action: @escaping () -> Void, @ViewBuilder label: () -> Label) { fatalError() }
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension Button where Label == Text {
    // SwiftUI.swiftinterface: `public init(_ titleKey: LocalizedStringKey, action: @escaping () -> Void)`.
    public init(_ titleKey: LocalizedStringKey, action: @escaping () -> Void) { fatalError() }
    // SwiftUI.swiftinterface: `@_disfavoredOverload public init<S>(_ title: S, action: @escaping () -> Void)`.
    @_disfavoredOverload public init<S>(_ title: S, action: @escaping () -> Void) where S: StringProtocol {
        fatalError()
    }
}

// SwiftUI.swiftinterface: `@frozen public struct HorizontalAlignment : Equatable`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct HorizontalAlignment: Equatable {
    // SwiftUI.swiftinterface: `public static let leading: HorizontalAlignment`.
    public static var leading: HorizontalAlignment { fatalError() }
    // SwiftUI.swiftinterface: `public static let center: HorizontalAlignment`.
    public static var center: HorizontalAlignment { fatalError() }
    // SwiftUI.swiftinterface: `public static let trailing: HorizontalAlignment`.
    public static var trailing: HorizontalAlignment { fatalError() }
}

// SwiftUI.swiftinterface: `@frozen public struct VerticalAlignment : Equatable`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct VerticalAlignment: Equatable {
    // SwiftUI.swiftinterface: `public static let top: VerticalAlignment`.
    public static var top: VerticalAlignment { fatalError() }
    // SwiftUI.swiftinterface: `public static let center: VerticalAlignment`.
    public static var center: VerticalAlignment { fatalError() }
    // SwiftUI.swiftinterface: `public static let bottom: VerticalAlignment`.
    public static var bottom: VerticalAlignment { fatalError() }
}

// SwiftUI.swiftinterface: `@frozen public struct VStack<Content> : View where Content : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct VStack<Content>: View where Content: View {
    // SwiftUI.swiftinterface: `public init(alignment:spacing:content:)`.
    public init(
        alignment: HorizontalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content
    ) { fatalError() }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `@frozen public struct HStack<Content> : View where Content : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct HStack<Content>: View where Content: View {
    // SwiftUI.swiftinterface: `public init(alignment:spacing:content:)`.
    public init(alignment: VerticalAlignment = .center, spacing: CGFloat? = nil, @ViewBuilder content: () -> Content) {
        fatalError()
    }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `@frozen public struct Spacer` (a View by extension).
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct Spacer: View {
    // SwiftUI.swiftinterface: `public var minLength: CGFloat?`.
    public var minLength: CGFloat?
    // SwiftUI.swiftinterface: `@inlinable public init(minLength: CGFloat? = nil)`.
    public init(minLength: CGFloat? = nil) { self.minLength = minLength }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `@MainActor(unsafe) public struct List<SelectionValue, Content> : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@preconcurrency @MainActor public struct List<SelectionValue, Content>: View
where SelectionValue: Hashable, Content: View {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension List where SelectionValue == Never {
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public init(@ViewBuilder content: () -> Content)`.
    @preconcurrency @MainActor public init(@ViewBuilder content: () -> Content) { fatalError() }
    // SwiftUI.swiftinterface: `public init<Data, RowContent>(_ data: Data, rowContent:)` over Identifiable data.
    @preconcurrency @MainActor public init<Data, RowContent>(
        _ data: Data, @ViewBuilder rowContent: @escaping (Data.Element) -> RowContent
    )
    where
        Content == ForEach<Data, Data.Element.ID, RowContent>, Data: RandomAccessCollection, RowContent: View,
        Data.Element: Identifiable
    { fatalError() }
}

// SwiftUI.swiftinterface: `public struct ForEach<Data, ID, Content>`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct ForEach<Data, ID, Content> where Data: RandomAccessCollection, ID: Hashable {
    // SwiftUI.swiftinterface: `public var data: Data`.
    public var data: Data
    // SwiftUI.swiftinterface: `public var content: (Data.Element) -> Content`.
    public var content: (Data.Element) -> Content
}

// SwiftUI.swiftinterface: `extension ForEach : View where Content : View`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach: View where Content: View {
    public typealias Body = Never
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach where ID == Data.Element.ID, Content: View, Data.Element: Identifiable {
    // SwiftUI.swiftinterface: `public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content)`.
    public init(_ data: Data, @ViewBuilder content: @escaping (Data.Element) -> Content) { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension ForEach where Content: View {
    // SwiftUI.swiftinterface: `public init(_ data: Data, id: KeyPath<Data.Element, ID>, content:)`.
    public init(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder content: @escaping (Data.Element) -> Content
    ) { fatalError() }
}

// MARK: - Modifiers

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
extension View {
    // SwiftUI.swiftinterface: `public func task(priority:_:) -> some View`.
    public func task(
        priority: TaskPriority = .userInitiated, @_inheritActorContext _ action: @escaping @Sendable () async -> Void
    ) -> some View { self }
}

// MARK: - State and environment

// SwiftUI.swiftinterface: `@frozen @propertyWrapper public struct State<Value> : DynamicProperty`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct State<Value>: DynamicProperty {
    // SwiftUI.swiftinterface: `public init(wrappedValue value: Value)`.
    public init(wrappedValue value: Value) { fatalError() }
    // SwiftUI.swiftinterface: `public init(initialValue value: Value)`.
    public init(initialValue value: Value) { fatalError() }
    // SwiftUI.swiftinterface: `public var wrappedValue: Value { get nonmutating set }`.
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set { fatalError() }
    }
    // SwiftUI.swiftinterface: `public var projectedValue: Binding<Value> { get }`.
    public var projectedValue: Binding<Value> { fatalError() }
}

@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
extension State where Value: ExpressibleByNilLiteral {
    // SwiftUI.swiftinterface: `@inlinable public init()`.
    public init() { fatalError() }
}

// SwiftUI.swiftinterface: `@frozen @propertyWrapper @dynamicMemberLookup public struct Binding<Value>`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    // SwiftUI.swiftinterface: `public init(get:set:)`.
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) { fatalError() }
    // SwiftUI.swiftinterface: `public static func constant(_ value: Value) -> Binding<Value>`.
    public static func constant(_ value: Value) -> Binding<Value> { fatalError() }
    // SwiftUI.swiftinterface: `public var wrappedValue: Value { get nonmutating set }`.
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set { fatalError() }
    }
    // SwiftUI.swiftinterface: `public var projectedValue: Binding<Value> { get }`.
    public var projectedValue: Binding<Value> { fatalError() }
    // SwiftUI.swiftinterface: `public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>)`.
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        fatalError()
    }
}

// SwiftUI.swiftinterface: `@frozen @propertyWrapper public struct Environment<Value> : DynamicProperty`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct Environment<Value>: DynamicProperty {
    // SwiftUI.swiftinterface: `@inlinable public init(_ keyPath: KeyPath<EnvironmentValues, Value>)`.
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { fatalError() }
    // SwiftUI.swiftinterface: `@inlinable public var wrappedValue: Value { get }`.
    public var wrappedValue: Value { fatalError() }
}

// SwiftUI.swiftinterface: `public struct EnvironmentValues : CustomStringConvertible`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
public struct EnvironmentValues: CustomStringConvertible {
    // SwiftUI.swiftinterface: `public init()`.
    public init() { fatalError() }
    // SwiftUI.swiftinterface: `public var description: String { get }`.
    public var description: String { fatalError() }
}

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension EnvironmentValues {
    // SwiftUI.swiftinterface: `public var scenePhase: ScenePhase { get set }`.
    public var scenePhase: ScenePhase {
        get { fatalError() }
        set { fatalError() }
    }
}

// SwiftUI.swiftinterface: `public enum ScenePhase : Comparable`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public enum ScenePhase: Comparable {
    case background
    case inactive
    case active
    // Comparable.
    public static func < (a: ScenePhase, b: ScenePhase) -> Bool { fatalError() }
}

// SwiftUI.swiftinterface: `@frozen @propertyWrapper public struct StateObject<ObjectType> : DynamicProperty`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
@propertyWrapper public struct StateObject<ObjectType>: DynamicProperty where ObjectType: ObservableObject {
    // SwiftUI.swiftinterface: `@inlinable public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType)`.
    public init(wrappedValue thunk: @autoclosure @escaping () -> ObjectType) { fatalError() }
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public var wrappedValue: ObjectType { get }`.
    @preconcurrency @MainActor public var wrappedValue: ObjectType { fatalError() }
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public var projectedValue: ObservedObject<ObjectType>.Wrapper { get }`.
    @preconcurrency @MainActor public var projectedValue: ObservedObject<ObjectType>.Wrapper { fatalError() }
}

// SwiftUI.swiftinterface: `@propertyWrapper @frozen public struct ObservedObject<ObjectType> : DynamicProperty`.
@available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
@propertyWrapper public struct ObservedObject<ObjectType>: DynamicProperty where ObjectType: ObservableObject {
    // SwiftUI.swiftinterface: `@dynamicMemberLookup @frozen public struct Wrapper`.
    @dynamicMemberLookup public struct Wrapper {
        // SwiftUI.swiftinterface: `public subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>) -> Binding<Subject>`.
        public subscript<Subject>(
            dynamicMember keyPath: ReferenceWritableKeyPath<ObjectType, Subject>
        ) -> Binding<Subject> { fatalError() }
    }
    // SwiftUI.swiftinterface: `public init(wrappedValue: ObjectType)`.
    public init(wrappedValue: ObjectType) { fatalError() }
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public var wrappedValue: ObjectType`.
    @preconcurrency @MainActor public var wrappedValue: ObjectType {
        get { fatalError() }
        set { fatalError() }
    }
    // SwiftUI.swiftinterface: `@MainActor(unsafe) public var projectedValue: ObservedObject<ObjectType>.Wrapper { get }`.
    @preconcurrency @MainActor public var projectedValue: ObservedObject<ObjectType>.Wrapper { fatalError() }
}

// MARK: - Scenes and background tasks

// SwiftUI.swiftinterface: `public struct WindowGroup<Content> : Scene where Content : View`.
@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
public struct WindowGroup<Content>: Scene where Content: View {
    // SwiftUI.swiftinterface: `public init(@ViewBuilder content: () -> Content)`.
    public init(@ViewBuilder content: () -> Content) { fatalError() }
    // SwiftUI.swiftinterface: `public init(id: String, @ViewBuilder content: () -> Content)`.
    public init(id: String, @ViewBuilder content: () -> Content) { fatalError() }
    public typealias Body = Never
}

// SwiftUI.swiftinterface: `public struct BackgroundTask<Request, Response> : Sendable`.
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct BackgroundTask<Request, Response>: Sendable {}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension BackgroundTask {
    // SwiftUI.swiftinterface: `public static var urlSession: BackgroundTask<String, Void> { get }`: any session.
    public static var urlSession: BackgroundTask<String, Void> { fatalError() }
    // SwiftUI.swiftinterface: `public static func urlSession(_ identifier: String) -> BackgroundTask<Void, Void>`.
    public static func urlSession(_ identifier: String) -> BackgroundTask<Void, Void> { fatalError() }
    // SwiftUI.swiftinterface: `public static func urlSession(matching:) -> BackgroundTask<String, Void>`.
    public static func urlSession(matching: @escaping @Sendable (String) -> Bool) -> BackgroundTask<String, Void> {
        fatalError()
    }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension Scene {
    // SwiftUI.swiftinterface: `public func backgroundTask<D, R>(_ task: BackgroundTask<D, R>, action:) -> some Scene`.
    public func backgroundTask<D, R>(
        _ task: BackgroundTask<D, R>, action: @escaping @Sendable (D) async -> R
    ) -> some Scene where D: Sendable, R: Sendable { self }
}

#if canImport(UIKit)
    // SwiftUI.swiftinterface: `@MainActor(unsafe) @propertyWrapper public struct UIApplicationDelegateAdaptor<DelegateType>`.
    @available(iOS 14.0, tvOS 14.0, *)
    @available(macOS, unavailable)
    @available(watchOS, unavailable)
    @preconcurrency @MainActor @propertyWrapper
    public struct UIApplicationDelegateAdaptor<DelegateType>: DynamicProperty
    where DelegateType: NSObject, DelegateType: UIApplicationDelegate {
        // SwiftUI.swiftinterface: `@MainActor(unsafe) public var wrappedValue: DelegateType { get }`.
        @preconcurrency @MainActor public var wrappedValue: DelegateType { fatalError() }
        // SwiftUI.swiftinterface: `@MainActor(unsafe) public init(_ delegateType: DelegateType.Type = DelegateType.self)`.
        @preconcurrency @MainActor public init(_ delegateType: DelegateType.Type = DelegateType.self) { fatalError() }
    }
#endif

// MARK: - Widgets and timers (Live Activities)

// SwiftUI.swiftinterface: `public struct DefaultDateProgressLabel : SwiftUI.View`.
// https://developer.apple.com/documentation/swiftui/defaultdateprogresslabel
@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
public struct DefaultDateProgressLabel: View {
    public typealias Body = Never
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension ProgressView {
    // SwiftUI.swiftinterface: `public init(timerInterval: ClosedRange<Date>, countsDown: Bool = true,
    // @ViewBuilder label: () -> Label, @ViewBuilder currentValueLabel: () -> CurrentValueLabel)`.
    // https://developer.apple.com/documentation/swiftui/progressview/init(timerinterval:countsdown:label:currentvaluelabel:)
    public init(
        timerInterval: ClosedRange<Date>, countsDown: Bool = true, @ViewBuilder label: () -> Label,
        @ViewBuilder currentValueLabel: () -> CurrentValueLabel
    ) { fatalError() }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension ProgressView where Label == EmptyView, CurrentValueLabel == DefaultDateProgressLabel {
    // SwiftUI.swiftinterface: `public init(timerInterval: ClosedRange<Date>, countsDown: Bool = true)`.
    // https://developer.apple.com/documentation/swiftui/progressview/init(timerinterval:countsdown:)
    public init(timerInterval: ClosedRange<Date>, countsDown: Bool = true) { fatalError() }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, watchOS 9.0, *)
extension Text {
    // SwiftUI.swiftinterface: `public init(timerInterval: ClosedRange<Date>, pauseTime: Date? = nil,
    // countsDown: Bool = true, showsHours: Bool = true)`.
    // https://developer.apple.com/documentation/swiftui/text/init(timerinterval:pausetime:countsdown:showshours:)
    public init(
        timerInterval: ClosedRange<Date>, pauseTime: Date? = nil, countsDown: Bool = true, showsHours: Bool = true
    ) { fatalError() }
}

// SwiftUI.swiftinterface: `public protocol WidgetConfiguration` (its graph requirement left out).
// https://developer.apple.com/documentation/swiftui/widgetconfiguration
@available(iOS 14.0, macOS 11.0, watchOS 9.0, *)
@available(tvOS, unavailable)
public protocol WidgetConfiguration {
    associatedtype Body: WidgetConfiguration
    // SwiftUI.swiftinterface: `var body: Self.Body { get }`.
    var body: Self.Body { get }
}

// SwiftUI.swiftinterface: `extension Swift.Never : SwiftUI.WidgetConfiguration`.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, *)
@available(tvOS, unavailable)
extension Never: WidgetConfiguration {}

@available(iOS 14.0, macOS 11.0, watchOS 9.0, *)
@available(tvOS, unavailable)
extension WidgetConfiguration where Body == Never {
    // The witness of `body` for configurations without one (WidgetKit's): not in the interface.
    public var body: Never { fatalError() }
}

// SwiftUI.swiftinterface: `public protocol Widget` (WidgetKit's in later SDKs).
// https://developer.apple.com/documentation/widgetkit/widget
@available(iOS 14.0, macOS 11.0, watchOS 9.0, *)
@available(tvOS, unavailable)
public protocol Widget {
    associatedtype Body: WidgetConfiguration
    // SwiftUI.swiftinterface: `init()`.
    init()
    // SwiftUI.swiftinterface: `var body: Self.Body { get }`.
    var body: Self.Body { get }
}
