import Foundation
import VigilCommandLine

/// Every benchmark suite, in the order `vigil-bench help` lists them. Each writes
/// `bench-results/<suite>.json`; `make bench` runs them through the scripts in `Benchmarks/`.
let commands: [any Command.Type] = [
    MonitoringBenchmark.self,
    StoreBenchmark.self,
    LaunchBenchmark.self,
    ReportsBenchmark.self,
    ServerBenchmark.self,
    ScrapeBenchmark.self,
    DashboardBenchmark.self,
    RetentionBenchmark.self,
    BLEBenchmark.self,
    CrashBenchmark.self,
    SymbolsBenchmark.self,
    SymbolsLookupBenchmark.self,
    NetworkBenchmark.self,
    ClickHouseBenchmark.self,
]

exit(CommandDispatcher.main(program: "vigil-bench", commands: commands))
