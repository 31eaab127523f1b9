// Swift fixture for the ELF side: generics, closures, classes, protocols and inlining give
// mangled names ($s…), DW_AT_linkage_name and Swift-specific DWARF (modules, APPLE attributes).
protocol Scorer {
    func score(_ value: Int) -> Int
}

struct Doubler: Scorer {
    let factor: Int
    @inline(__always) func score(_ value: Int) -> Int { value &* factor &* 2 }
}

final class Accumulator<S: Scorer> {
    private var total = 0
    private let scorer: S
    init(scorer: S) { self.scorer = scorer }

    @inline(never)
    func add(_ values: [Int]) -> Int {
        for value in values {
            total &+= scorer.score(value)
        }
        return total
    }
}

enum Shape {
    case circle(radius: Int)
    case square(side: Int)

    var area: Int {
        switch self {
        case .circle(let radius): return 3 &* radius &* radius
        case .square(let side): return side &* side
        }
    }
}

@inline(never)
func transform(_ values: [Int], _ body: (Int) -> Int) -> [Int] {
    values.map { body($0) }
}

@main
struct FixtureMain {
    static func main() {
        let count = CommandLine.arguments.count
        let accumulator = Accumulator(scorer: Doubler(factor: count))
        let values = transform([1, 2, 3, count]) { $0 &+ count }
        var total = accumulator.add(values)
        for shape in [Shape.circle(radius: count), .square(side: total & 7)] {
            total &+= shape.area
        }
        if total == 42 { print("unlikely") }
    }
}
