// downstream-benchmark: what Downstream costs, measured.
//
//     swift run -c release downstream-benchmark [--mib 1024] [--runs 5] [--slow-disk-mbps 100]
//         Throughput, CPU time and peak memory of a loopback download through Downstream, next to
//         a plain URLSession delegate download measured in the same run. The server runs in this
//         process; every download runs in a child process of its own, which reports its wall
//         time, CPU time (getrusage) and peak resident memory (VmHWM), so the figures are the
//         client's alone.
//
//     swift run -c release downstream-benchmark store [--count 100000] [--runs 3] [--directory DIR]
//         The time and memory to enqueue that many new downloads, and to restore them in a new
//         process (peak memory too), with the store's journal and with a file per record as the
//         baseline, and a newcomer's program (download(from:to:) in a loop, every handle kept,
//         manager.downloads read), in turns; medians and ratios.
//
//     swift run -c release downstream-benchmark queue [--count 10000] [--size 4096] [--limit 8]
//         Memory per queued download, enqueue time, and the time to drain that many small files at
//         the limit, next to a plain URLSession task group in the same run.
//
//     swift run -c release downstream-benchmark files [--count 1000] [--size 65536] [--limit 8]
//         Many small files, each client in a child process: Downstream on its default transport,
//         Downstream over URLSession, and curl -Z (when installed); wall and CPU time, ratios.
//
//     swift run -c release downstream-benchmark rtt [--rtt-ms 20] [--count 1000] [--limit 8] [--runs 3]
//         Many small files over a network's round-trip time: a DelayingProxy (DownstreamTesting)
//         holds each direction back half of it, and a new connection's first bytes one more, in
//         front of an nginx of the benchmark's own in /dev/shm/rtt-PID (HTTP/1.1, and HTTPS with
//         HTTP/2 and a CA made by openssl; without nginx, the benchmark's TestServer, HTTP/1.1).
//         Downstream (default transport), curl -Z and aria2c (when installed) in rotating runs:
//         wall time, ratios to curl, and each client's turnaround at the proxy (from the last
//         bytes delivered to it on a connection to its next bytes there: over HTTP/1.1, from a
//         response's last byte out to the next request's first byte in), in microseconds.
//
//     swift run -c release downstream-benchmark digest [--mib 1024] [--runs 5] [--directory DIR]
//         Each digest's CPU time per GiB next to `openssl dgst` on the same file (interleaved,
//         medians, ratios), and Downstream's Swift code alone; then a download of that size with
//         and without an expected SHA-256: wall time, CPU time, peak memory, ratios.
//
//     swift run -c release downstream-benchmark limit [--rate 5000000] [--seconds 10] [--count 8]
//         Whether a bandwidth limit holds: one download under a manager limit, then several
//         sharing it; the rate over a window, and each download's part of its fair share.
//
//     swift run -c release downstream-benchmark segments [--mib 512] [--mbps 20] [--runs 1]
//         One file from a server that paces each connection, over 1, 4 and 8 connections (and
//         aria2c -x4 -s4 when installed): wall time, peak memory, speed as ratios to 1 connection.
//
//     swift run -c release downstream-benchmark overlap [--mib 256] [--range-mib 4] [--mbps 100]
//         What overlap verification costs per resume: a download in consecutive ranges, with
//         overlaps of 0, 64 KiB and 1 MiB; extra bytes and time (--validators yes: with ETag).
//
//     swift run -c release downstream-benchmark kills [--mib 512] [--mbps 20] [--connections 8]
//         What a kill -9 costs a download over several connections: killed at random moments
//         until it completes, with the default checkpoints per connection and after 8 MiB; the
//         bytes the server sent again per kill.
//
//     swift run -c release downstream-benchmark remote --url URL[,URL…] [--cacert PEM] [--mib 1024] [--runs 5]
//         One file from a server of your own (nginx over HTTPS with HTTP/2, say: RemoteBenchmark.swift
//         has the set-up), through Downstream and `curl --cacert`, interleaved, each in a child
//         process; wall, CPU and user time, ratios to curl. `pattern --mib N --output PATH` writes
//         the file to serve.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == ChildRun.command {
    exit(await ChildRun.main(Array(arguments.dropFirst())))
}
if arguments.first == RTTChild.command {
    exit(await RTTChild.main(Array(arguments.dropFirst())))
}
if arguments.first == "rtt" {
    exit(await RTTBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "remote" {
    exit(await RemoteBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "pattern" {
    exit(RemoteBenchmark.writePattern(Array(arguments.dropFirst())))
}
if arguments.first == "files" {
    exit(await FilesBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "queue" {
    exit(await QueueBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == DigestBenchmark.childCommand {
    exit(DigestBenchmark.child(Array(arguments.dropFirst())))
}
if arguments.first == "digest" {
    exit(await DigestBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "overlap" {
    exit(await OverlapBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "limit" {
    exit(await LimitBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "segments" {
    exit(await SegmentsBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == "kills" {
    exit(await KillsBenchmark(arguments: Array(arguments.dropFirst())).run())
}
if arguments.first == StoreBenchmark.childCommand {
    exit(await StoreBenchmark.childMain(Array(arguments.dropFirst())))
}
if arguments.first == "store" {
    exit(await StoreBenchmark(arguments: Array(arguments.dropFirst())).run())
}
exit(await Benchmark(arguments: arguments).run())
