/// Samples of several engines, measured in runs that each take every engine once, in a rotating
/// order, so that a machine that gets faster or slower during the benchmark weighs on all alike;
/// each run gives Downstream's ratio to each other engine, and the ratios' median is the figure.
struct RotatingRuns {
    var samples: [String: [Benchmark.Sample]] = [:]
    var wallRatios: [String: [Double]] = [:]
    var cpuRatios: [String: [Double]] = [:]

    /// Runs `measure` for each engine of `engines` (one of which is `downstream`), `runs` times.
    /// `measure` gets the engine and the run's number.
    init(
        engines: [String], runs: Int, measure: (String, Int) async throws -> Benchmark.Sample
    ) async throws {
        for run in 0..<runs {
            let shift = run % engines.count
            var pair: [String: Benchmark.Sample] = [:]
            for engine in Array(engines[shift...]) + Array(engines[..<shift]) {
                let sample = try await measure(engine, run)
                pair[engine] = sample
                samples[engine, default: []].append(sample)
            }
            for baseline in engines where baseline != "downstream" {
                wallRatios[baseline, default: []].append(pair["downstream"]!.wall / pair[baseline]!.wall)
                cpuRatios[baseline, default: []].append(pair["downstream"]!.cpu / pair[baseline]!.cpu)
            }
        }
    }

    /// Downstream's median wall and CPU ratios to `baseline`.
    func ratios(to baseline: String) -> (wall: Double, cpu: Double) {
        (Benchmark.middle(wallRatios[baseline]!), Benchmark.middle(cpuRatios[baseline]!))
    }
}
