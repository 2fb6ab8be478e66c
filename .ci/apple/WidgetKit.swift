// Stand-in for Apple's WidgetKit, its Live Activity part only (iOS): the widget configuration of
// an activity and its Dynamic Island, with the signatures of the iOS 16.5 SDK's
// System/Library/Frameworks/WidgetKit.framework/Modules/WidgetKit.swiftmodule/arm64-apple-ios.swiftinterface
// and the availability of Apple's documentation page of each symbol. `Widget` and
// `WidgetConfiguration` are SwiftUI's in that SDK (see SwiftUI.swift). As Apple's, this module
// imports SwiftUI and ActivityKit without re-exporting them: a widget imports all three.

import ActivityKit
@_exported import AppleFoundation
import SwiftUI

// WidgetKit.swiftinterface: `public struct ActivityViewContext<Attributes> where Attributes : ActivityKit.ActivityAttributes`.
// https://developer.apple.com/documentation/widgetkit/activityviewcontext
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ActivityViewContext<Attributes> where Attributes: ActivityAttributes {
    // WidgetKit.swiftinterface: `public let activityID: Swift.String`.
    public var activityID: String { fatalError() }
    // WidgetKit.swiftinterface: `public let attributes: Attributes`.
    public var attributes: Attributes { fatalError() }
    // WidgetKit.swiftinterface: `public let state: Attributes.ContentState`.
    public var state: Attributes.ContentState { fatalError() }
    // WidgetKit.swiftinterface: `public let isStale: Swift.Bool`.
    // https://developer.apple.com/documentation/widgetkit/activityviewcontext/isstale
    @available(iOS 16.2, *)
    public var isStale: Bool { fatalError() }
}

// WidgetKit.swiftinterface: `public struct ActivityConfiguration<Attributes> : SwiftUI.WidgetConfiguration`.
// https://developer.apple.com/documentation/widgetkit/activityconfiguration
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct ActivityConfiguration<Attributes>: WidgetConfiguration where Attributes: ActivityAttributes {
    // WidgetKit.swiftinterface: `public init<Content>(for attributesType: Attributes.Type,
    // @ViewBuilder content: @escaping (ActivityViewContext<Attributes>) -> Content,
    // dynamicIsland: @escaping (ActivityViewContext<Attributes>) -> DynamicIsland) where Content : View`.
    // https://developer.apple.com/documentation/widgetkit/activityconfiguration/init(for:content:dynamicisland:)
    public init<Content>(
        for attributesType: Attributes.Type,
        @ViewBuilder content: @escaping (ActivityViewContext<Attributes>) -> Content,
        dynamicIsland: @escaping (ActivityViewContext<Attributes>) -> DynamicIsland
    ) where Content: View { fatalError() }
    public typealias Body = Never
}

// WidgetKit.swiftinterface: `public struct DynamicIsland`.
// https://developer.apple.com/documentation/widgetkit/dynamicisland
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct DynamicIsland {
    // WidgetKit.swiftinterface: `public init<Expanded, CompactLeading, CompactTrailing, Minimal>(...)`.
    // https://developer.apple.com/documentation/widgetkit/dynamicisland/init(expanded:compactleading:compacttrailing:minimal:)
    public init<Expanded, CompactLeading, CompactTrailing, Minimal>(
        @DynamicIslandExpandedContentBuilder expanded: @escaping () -> DynamicIslandExpandedContent<Expanded>,
        @ViewBuilder compactLeading: @escaping () -> CompactLeading,
        @ViewBuilder compactTrailing: @escaping () -> CompactTrailing,
        @ViewBuilder minimal: @escaping () -> Minimal
    ) where Expanded: View, CompactLeading: View, CompactTrailing: View, Minimal: View { fatalError() }
}

// WidgetKit.swiftinterface: `public struct DynamicIslandExpandedContent<Content> where Content : SwiftUI.View`.
// https://developer.apple.com/documentation/widgetkit/dynamicislandexpandedcontent
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct DynamicIslandExpandedContent<Content> where Content: View {
    // WidgetKit.swiftinterface: `@usableFromInline internal var content: Content`.
    var content: Content
}

// WidgetKit.swiftinterface: `@_functionBuilder public struct DynamicIslandExpandedContentBuilder`.
// https://developer.apple.com/documentation/widgetkit/dynamicislandexpandedcontentbuilder
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@resultBuilder public struct DynamicIslandExpandedContentBuilder {
    // WidgetKit.swiftinterface: `buildPartialBlock<C>(first: DynamicIslandExpandedRegion<C>) -> DynamicIslandExpandedContent<some View>`.
    public static func buildPartialBlock<C>(first: DynamicIslandExpandedRegion<C>) -> DynamicIslandExpandedContent<
        some View
    > where C: View { DynamicIslandExpandedContent(content: first.content) }
    // WidgetKit.swiftinterface: `buildPartialBlock<C0, C1>(accumulated:next: DynamicIslandExpandedRegion<C1>)`.
    public static func buildPartialBlock<C0, C1>(
        accumulated: DynamicIslandExpandedContent<C0>, next: DynamicIslandExpandedRegion<C1>
    ) -> DynamicIslandExpandedContent<some View> where C0: View, C1: View {
        DynamicIslandExpandedContent(content: TupleView((accumulated.content, next.content)))
    }
}

// WidgetKit.swiftinterface: `public struct DynamicIslandExpandedRegionPosition`.
// https://developer.apple.com/documentation/widgetkit/dynamicislandexpandedregionposition
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct DynamicIslandExpandedRegionPosition {
    // WidgetKit.swiftinterface: `public static let leading`.
    public static var leading: DynamicIslandExpandedRegionPosition { fatalError() }
    // WidgetKit.swiftinterface: `public static let trailing`.
    public static var trailing: DynamicIslandExpandedRegionPosition { fatalError() }
    // WidgetKit.swiftinterface: `public static let center`.
    public static var center: DynamicIslandExpandedRegionPosition { fatalError() }
    // WidgetKit.swiftinterface: `public static let bottom`.
    public static var bottom: DynamicIslandExpandedRegionPosition { fatalError() }
}

// WidgetKit.swiftinterface: `public struct DynamicIslandExpandedRegion<Content> where Content : SwiftUI.View`.
// https://developer.apple.com/documentation/widgetkit/dynamicislandexpandedregion
@available(iOS 16.1, *)
@available(macOS, unavailable)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
public struct DynamicIslandExpandedRegion<Content> where Content: View {
    var content: Content
    // WidgetKit.swiftinterface: `public init(_ position:priority:content:)`.
    // https://developer.apple.com/documentation/widgetkit/dynamicislandexpandedregion/init(_:priority:content:)
    public init(
        _ position: DynamicIslandExpandedRegionPosition, priority: Double = 0, @ViewBuilder content: () -> Content
    ) { self.content = content() }
}
