import Foundation
#if os(Linux)
import Glibc
#endif

/// Binds the calling thread to one core, where the platform lets a thread choose its core
/// (Linux's `sched_setaffinity`); elsewhere it is unavailable and does nothing.
///
/// Why the runner wants it: it never runs more synchronous tasks than cores, so on a machine
/// whose every core it uses, each task can own a core. Left to itself, Linux places a woken
/// thread on the core it last ran on or on its waker's core even when that core is busy, and
/// does not move a task that just ran to the core that falls idle a moment later; two tasks
/// then share one core for a time slice (1.5 ms on two cores) while the other core idles.
/// Pinning each task to the core its slot stands for removes that.
struct LaunchCorePinning: Sendable {
    /// A thread's set of allowed cores, as the kernel's bit mask.
    struct CoreSet: Equatable, Sendable {
        fileprivate var words: [UInt64]

        /// The core numbers in the set, ascending.
        var cores: [Int] {
            words.indices.flatMap { word in
                (0..<64).filter { words[word] & (1 << UInt64($0)) != 0 }.map { word * 64 + $0 }
            }
        }

        /// The set holding only `core`.
        static func single(_ core: Int) -> CoreSet {
            var words = Array(repeating: UInt64(0), count: LaunchCorePinning.maskWords)
            if core >= 0, core < words.count * 64 { words[core / 64] = 1 << UInt64(core % 64) }
            return CoreSet(words: words)
        }
    }

    /// The cores a task slot may be pinned to, one per slot; empty when pinning is off.
    let slotCores: [Int]
    /// The calling thread's cores when the runner was made: what a pool thread returns to.
    let allowed: CoreSet?

    /// Pinning for `slots` task slots: on when asked for, the platform supports it, and the
    /// calling thread may run on exactly `slots` cores (with more cores than slots, the others
    /// are free for the kernel to balance, and a fixed choice could pick a busy one).
    init(slots: Int, enabled: Bool) {
        guard enabled, slots > 1, let current = LaunchCorePinning.currentCores(),
              current.cores.count == slots else {
            slotCores = []
            allowed = nil
            return
        }
        slotCores = current.cores
        allowed = current
    }

    /// Whether tasks are pinned at all.
    var isActive: Bool { !slotCores.isEmpty }

    /// The calling thread's allowed cores, or nil when they cannot be read.
    static func currentCores() -> CoreSet? {
        #if os(Linux)
        guard let getAffinity = functions.get else { return nil }
        var words = Array(repeating: UInt64(0), count: maskWords)
        let status = words.withUnsafeMutableBytes { getAffinity(0, $0.count, $0.baseAddress!) }
        return status == 0 ? CoreSet(words: words) : nil
        #else
        return nil
        #endif
    }

    /// Restricts the calling thread to `set`; returns whether the kernel accepted it.
    @discardableResult
    static func confine(to set: CoreSet) -> Bool {
        #if os(Linux)
        guard let setAffinity = functions.set else { return false }
        return set.words.withUnsafeBytes { setAffinity(0, $0.count, $0.baseAddress!) } == 0
        #else
        return false
        #endif
    }

    /// 1,024 cores, the size of glibc's `cpu_set_t`.
    fileprivate static let maskWords = 16

    #if os(Linux)
    private typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer) -> Int32

    /// glibc declares `sched_getaffinity` and `sched_setaffinity` only under `_GNU_SOURCE`,
    /// which Swift's Glibc module does not define, so they are looked up once by name.
    private static let functions: (get: GetAffinity?, set: SetAffinity?) = {
        let process = dlopen(nil, RTLD_NOW)
        let get = dlsym(process, "sched_getaffinity").map { unsafeBitCast($0, to: GetAffinity.self) }
        let set = dlsym(process, "sched_setaffinity").map { unsafeBitCast($0, to: SetAffinity.self) }
        return (get, set)
    }()
    #endif
}
