import Foundation

/// Writes that others reading or writing the same file wait for, and are told of: on Apple
/// platforms through `NSFileCoordinator` (iCloud Drive, File Providers, an app group's container
/// read by an extension); on Linux, which has no file coordination (swift-corelibs-foundation has
/// no `NSFileCoordinator`), the same work without it.
enum FileCoordination {
    /// Runs `placement`, which puts a new file at `url` (replacing whatever is in its way), as a
    /// coordinated write of `url` (`.forReplacing`: the writer is not handed another URL if the
    /// item moves while it waits, Apple's headers say).
    static func replacing(
        _ url: URL, _ placement: () throws(DownloadError) -> URL
    ) throws(DownloadError) -> URL {
        #if canImport(Darwin)
            var result: Result<URL, DownloadError>?
            var refusal: NSError?
            NSFileCoordinator(filePresenter: nil).coordinate(
                writingItemAt: url, options: .forReplacing, error: &refusal
            ) { _ in
                do throws(DownloadError) {
                    result = .success(try placement())
                } catch {
                    result = .failure(error)
                }
            }
            guard let result else {
                throw .fileSystem(
                    path: url.path,
                    reason:
                        "the file coordinator refused the write: \(refusal?.localizedDescription ?? "no reason given")")
            }
            // Not `result.get()`: it throws `any Error` in the standard library of the iOS 16 SDK.
            switch result {
            case .success(let url): return url
            case .failure(let error): throw error
            }
        #else
            return try placement()
        #endif
    }
}
