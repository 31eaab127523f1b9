/// What the "with" phases of an ``IngestComparison`` add to the server benchmark's load: 8
/// scrapers polling `/metrics` (`scrape`), or a server started with `--retention-days` whose
/// pruner deletes old events (`retention`). The comparison runs the phases; a treatment only says
/// how its phases differ and what it measured in each.
protocol IngestTreatment: Sendable {
    /// What one phase measured of the treatment (its "without" value in untreated phases).
    associatedtype Measure: Sendable

    /// How the treatment is named in log lines ("scrapes", "pruning").
    var name: String { get }

    /// Whether every phase gets its own `vigil serve` (the treatment is a server option), or one
    /// server takes every phase of a database.
    var serverPerPhase: Bool { get }

    /// Extra `vigil serve` arguments: of a treated phase's server, or (`treated` false) of an
    /// untreated phase's and of the single server when ``serverPerPhase`` is false.
    func serverArguments(treated: Bool) -> [String]

    /// Runs on its own thread beside the load of a treated phase, from the phase's start until
    /// `deadline` (`DispatchTime` uptime, ns); returns what it measured.
    func beside(port: UInt16, until deadline: UInt64) -> Measure

    /// Runs after every phase's load, the server still up: the phase's whole measure, given what
    /// ``beside(port:until:)`` returned (nil in untreated phases).
    func afterLoad(port: UInt16, treated: Bool, beside: Measure?) throws -> Measure

    /// The measure's part of a phase's log line (may be empty).
    func describe(_ measure: Measure, treated: Bool) -> String
}
