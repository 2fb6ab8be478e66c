import DownstreamTesting
import Foundation

extension Body {
    /// Checks the first, middle and last of `count` files `0.bin`… in `directory` against this
    /// body, byte for byte; throws naming `engine` and the first wrong byte.
    func checkSampleFiles(in directory: URL, count: Int, writtenBy engine: String) throws {
        for index in [0, count / 2, count - 1] {
            let file = directory.appendingPathComponent("\(index).bin", isDirectory: false)
            if let mismatch = try firstMismatch(inFileAt: file) {
                throw BenchmarkError("\(engine) wrote a wrong \(file.lastPathComponent) (byte \(mismatch))")
            }
        }
    }
}
