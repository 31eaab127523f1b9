/// Cumulative CPU time of one thread at a sampling point (Linux: `/proc/self/task/<tid>/stat`
/// utime + stime and comm; Darwin: `thread_basic_info`).
public struct ThreadCPUTime: Sendable, Hashable {
    /// OS thread id.
    public var id: UInt64
    /// Thread name, when it has one.
    public var name: String?
    /// User plus system CPU time since the thread started, in seconds.
    public var cpuSeconds: Double

    /// A reading for thread `id`.
    public init(id: UInt64, name: String?, cpuSeconds: Double) {
        self.id = id
        self.name = name
        self.cpuSeconds = cpuSeconds
    }
}
