// downstream-benchmark: throughput, CPU time and peak memory of a loopback download through
// Downstream, next to a plain URLSession delegate download measured in the same run.
//
//     swift run -c release downstream-benchmark [--mib 1024] [--runs 3] [--slow-disk-mbps 100]
//
// The server runs in this process; every download runs in a child process of its own, which
// reports its wall time, CPU time (getrusage) and peak resident memory (VmHWM), so the figures
// are the client's alone.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == ChildRun.command {
    exit(await ChildRun.main(Array(arguments.dropFirst())))
}
exit(await Benchmark(arguments: arguments).run())
