/// Samples of several engines, measured in runs that each take every engine once, in a rotating
/// order, so that a machine that gets faster or slower during the benchmark weighs on all alike;
/// each run gives an engine's ratio to another (Downstream's, usually), and the ratios' median is
/// the figure.
struct RotatingRuns {
    var samples: [String: [Benchmark.Sample]] = [:]
    /// Each run's sample of each engine.
    private var rounds: [[String: Benchmark.Sample]] = []

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
            rounds.append(pair)
        }
    }

    /// The median of `engine`'s wall and CPU ratios to `baseline`, run by run (Downstream's by
    /// default).
    func ratios(to baseline: String, of engine: String = "downstream") -> (wall: Double, cpu: Double) {
        (
            Benchmark.middle(rounds.map { $0[engine]!.wall / $0[baseline]!.wall }),
            Benchmark.middle(rounds.map { $0[engine]!.cpu / $0[baseline]!.cpu })
        )
    }

    /// `engine`'s wall and CPU ratios to `baseline`, run by run.
    func runRatios(to baseline: String, of engine: String = "downstream") -> [(wall: Double, cpu: Double)] {
        rounds.map { ($0[engine]!.wall / $0[baseline]!.wall, $0[engine]!.cpu / $0[baseline]!.cpu) }
    }
}
