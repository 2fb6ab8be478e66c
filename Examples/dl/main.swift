// dl: a command-line downloader built on Downstream. Interrupt it with Ctrl-C and run the same
// command again: it continues from the bytes it kept. `dl --help` says the rest.
//
//     swift run dl https://example.com/big.iso

import Foundation

let status = await DL.run(Array(CommandLine.arguments.dropFirst()))
exit(status.rawValue)
