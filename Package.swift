// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Downstream",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Downstream", targets: ["Downstream"]),
        .library(name: "DownstreamTesting", targets: ["DownstreamTesting"]),
        .executable(name: "dl", targets: ["dl"]),
        .executable(name: "downstream-benchmark", targets: ["DownstreamBenchmark"]),
    ],
    targets: [
        .target(name: "Downstream", dependencies: ["CCurl"], exclude: ["README.md"]),
        // libcurl's entry points, loaded at run time on Linux (no headers, no link): the libcurl
        // transport's C side. Compiles to stubs elsewhere.
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // For the tests of apps that use Downstream: a loopback HTTP/1.1 server with fault
        // injection, and a replay of background-session events.
        .target(name: "DownstreamTesting", dependencies: ["Downstream"]),

        // Examples: executables that show the SDK in use and measure it.
        .executableTarget(name: "dl", dependencies: ["Downstream"], path: "Examples/dl"),
        .executableTarget(
            name: "DownstreamBenchmark",
            dependencies: ["Downstream", "DownstreamTesting", "AllocationCounter"],
            path: "Examples/Benchmark"
        ),
        // The benchmark's count of heap allocations (glibc: the allocation functions, counted).
        .target(name: "AllocationCounter", path: "Examples/AllocationCounter"),

        // Test support: a child-process client that tests measure from the outside.
        .executableTarget(
            name: "DownstreamTestClient",
            dependencies: ["Downstream"],
            path: "Tests/DownstreamTestClient"
        ),
        .testTarget(
            name: "DownstreamTests",
            dependencies: ["Downstream", "DownstreamTesting", "DownstreamTestClient", "dl"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
