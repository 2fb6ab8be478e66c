// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Downstream",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Downstream", targets: ["Downstream"]),
        .executable(name: "dl", targets: ["dl"]),
        .executable(name: "downstream-benchmark", targets: ["DownstreamBenchmark"]),
    ],
    targets: [
        .target(name: "Downstream"),

        // Examples: executables that show the SDK in use and measure it.
        .executableTarget(name: "dl", dependencies: ["Downstream"], path: "Examples/dl"),
        .executableTarget(
            name: "DownstreamBenchmark",
            dependencies: ["Downstream", "DownstreamTestServer"],
            path: "Examples/Benchmark"
        ),

        // Test support: a loopback HTTP/1.1 server with fault injection, and a
        // child-process client that tests measure from the outside.
        .target(name: "DownstreamTestServer", path: "Tests/DownstreamTestServer"),
        .executableTarget(
            name: "DownstreamTestClient",
            dependencies: ["Downstream"],
            path: "Tests/DownstreamTestClient"
        ),
        .testTarget(
            name: "DownstreamTests",
            dependencies: ["Downstream", "DownstreamTestServer", "DownstreamTestClient", "dl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
