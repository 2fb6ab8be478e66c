import Downstream

extension Options {
    /// The options of the *HTTP* section: response heads, credentials from a netrc file, cookies.
    static let httpOptions: [OptionSpec<Options>] = [
        OptionSpec(
            names: ["-I", "--head"], action: .flag { $0.http.headsOnly = true }, section: "HTTP",
            help: "print each URL's response heads (a HEAD request; redirects followed, each head printed, as"
                + " curl's -IL) on standard output, credentials hidden, and download nothing; a 4xx or 5xx"
                + " answer is a failure"),
        OptionSpec(
            names: ["-S", "--server-response", "--show-error"], action: .flag { $0.http.showsServerResponse = true },
            section: "HTTP",
            help: "print each response head on standard error while downloading (wget's -S); with -q or -s,"
                + " nothing more: failures are printed anyway (curl's -sS)"),
        OptionSpec(
            names: ["-n", "--netrc"], action: .flag { $0.http.usesDefaultNetrc = true }, section: "HTTP",
            help: "answer a server that asks for credentials with its host's entry in ~/.netrc (curl's format;"
                + " the file must be readable by you alone: chmod 600); -u wins"),
        OptionSpec(
            names: ["--netrc-file"], action: .value("FILE") { $0.http.netrcFile = $1 }, section: "HTTP",
            help: "as -n, with the netrc file FILE"),
        OptionSpec(
            names: ["-b", "--cookie"], action: .value("FILE|'NAME=VALUE'") { $0.http.cookieSources.append($1) },
            section: "HTTP",
            help: "send the cookies of FILE (Netscape format, as curl and wget write it) with the requests they"
                + " match, redirects included; a value with '=' is cookies to send as they are, to the hosts of"
                + " the URLs given (repeatable)"),
        OptionSpec(
            names: ["--cookie-jar"], action: .value("FILE") { $0.http.cookieJar = $1 }, section: "HTTP",
            help: "at the end, write the cookies of -b and those the servers set to FILE (Netscape format,"
                + " readable by you alone)"),
        OptionSpec(
            names: ["--remove-on-error"], action: .flag { $0.http.removesFailedFiles = true }, section: "HTTP",
            help: "keep nothing of a file that fails: its partial bytes are deleted and the next run starts"
                + " it over (without it, the next run continues it)"),
    ]
}
