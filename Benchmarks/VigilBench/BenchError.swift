/// A suite could not measure what it was asked to (a child failed, a run did not finish).
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
