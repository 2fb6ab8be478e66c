import Foundation

extension Plan {
    /// The entries of the command line's URLs and of the input files (`inputs`), each URL's
    /// globs expanded (unless `-g`), named as the `-o` and `-O` of ``Options/outputs`` say:
    ///
    /// - One `-o PATH`: the one URL's file, or the folder of several URLs, of `-i`'s, or when
    ///   PATH is a folder (it exists, or ends with `/`); `options` gets it as the file
    ///   (``Options/outputDocument``) or the folder (``Options/outputDirectory``).
    /// - Several (or one with `#1` in it and one URL): curl's pairs, the first name for the first
    ///   URL as written, and so on; `#N` is the text of the URL's glob N; a name that is a folder
    ///   takes the URL's file under its own name; URLs past the last name are named after
    ///   themselves (curl would write them to standard output).
    static func entries(
        _ options: inout Options, inputs: [Entry], currentDirectory: URL
    ) throws(UsageError) -> [Entry] {
        // The URLs each URL as written stands for, with the texts of its globs.
        var groups: [[(entry: Entry, captures: [String])]] = []
        for text in options.urls {
            let (written, notice) = Entry.withAssumedScheme(text)
            let expansions = options.globs ? try URLGlob(written).expanded() : [(url: written, captures: [])]
            var group: [(entry: Entry, captures: [String])] = []
            for expansion in expansions {
                group.append((Entry(url: try Entry.url(expansion.url)), expansion.captures))
            }
            if let notice { group[0].entry.notices.append(notice) }
            groups.append(group)
        }
        let count = groups.reduce(0) { $0 + $1.count } + inputs.count
        let outputs = options.outputs
        if outputs.isEmpty || outputs == [.remote] {
            return groups.flatMap { $0.map(\.entry) } + inputs
        }
        if outputs.count == 1, case .path(let output) = outputs[0],
            !(URLGlob.namesGlobs(output) && groups.count == 1 && inputs.isEmpty)
        {
            try name(by: output, &options, count: count, currentDirectory: currentDirectory)
            return groups.flatMap { $0.map(\.entry) } + inputs
        }
        guard options.inputFiles.isEmpty else {
            throw .other(
                "several -o names pair with the URLs of the command line, not with -i's: name a URL of an"
                    + " input file with an indented line 'out=NAME' after it")
        }
        guard outputs.count <= groups.count else {
            throw .other(
                "\(outputs.count) names (-o, -O) for \(groups.count) URL\(groups.count == 1 ? "" : "s"):"
                    + " each name pairs with one URL, in order")
        }
        for (index, output) in outputs.enumerated() {
            guard case .path(let path) = output else { continue }
            guard path != "-" else {
                throw .other("-o - (standard output) takes one URL, not a place among several -o")
            }
            let namesGlobs = URLGlob.namesGlobs(path)
            guard namesGlobs || groups[index].count == 1 else {
                throw .other(
                    "-o \(path) pairs with '\(options.urls[index])', which makes \(groups[index].count) URLs:"
                        + " put #1 in the name for the text of its first glob")
            }
            for member in groups[index].indices {
                let (entry, captures) = groups[index][member]
                var out = namesGlobs ? try URLGlob.name(path, captures: captures) : path
                if isFolder(out, currentDirectory: currentDirectory) {
                    out += (out.hasSuffix("/") ? "" : "/") + FileNaming.name(for: entry.url)
                }
                groups[index][member].entry.out = out
            }
        }
        return groups.flatMap { $0.map(\.entry) } + inputs
    }

    /// Whether `path` names a folder: it ends with `/`, or is one.
    private static func isFolder(_ path: String, currentDirectory: URL) -> Bool {
        var isDirectory: ObjCBool = false
        let absolute = URL(fileURLWithPath: path, relativeTo: currentDirectory).path
        return path.hasSuffix("/")
            || (FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// One `-o PATH` for `count` URLs: curl's and aria2's file of the one URL; the folder of
    /// several, of a list, or when it is one.
    private static func name(
        by output: String, _ options: inout Options, count: Int, currentDirectory: URL
    ) throws(UsageError) {
        if count > 1 || !options.inputFiles.isEmpty || isFolder(output, currentDirectory: currentDirectory) {
            guard options.outputDirectory == nil else {
                throw .other("-o \(output) and --dir \(options.outputDirectory ?? "") both name the folder: give one")
            }
            options.outputDirectory = output
        } else {
            guard options.outputDocument == nil else {
                throw .other("-o \(output) and -O \(options.outputDocument ?? "") both name the file: give one")
            }
            options.outputDocument = output
        }
    }
}
