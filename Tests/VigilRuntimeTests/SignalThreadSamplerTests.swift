#if os(Linux)
import CVigilRuntime
import Foundation
import Synchronization
import Testing
import VigilCore
import VigilRuntime
import VigilTestSupport

/// A flag shared between the test and a target thread, read by the spinning thread with an
/// inlined atomic load (its loop must stay in the known function, not in a lock's code, and
/// the load must not be hoisted out of the loop by the optimizer).
private final class SpinFlag: Sendable {
    let word = Atomic<Int>(0)
    let entered = DispatchSemaphore(value: 0)
    func set() { word.store(1, ordering: .releasing) }
}

/// Spins until `flag` is set. Its name is what the sampler test looks for in the symbolicated
/// samples, so it must not be inlined, and its loop calls nothing (only transparent operators
/// and a pointer read): a sample taken inside a callee without a frame record (a PLT stub, a
/// runtime function built without frame pointers) would skip this frame.
@inline(never)
private func runtimeTestKnownSpin(_ flag: SpinFlag) -> Int {
    flag.entered.signal()
    var accumulator = 0
    var step = 0
    while flag.word.load(ordering: .acquiring) == 0 {
        accumulator = accumulator &* 31 &+ step
        step = step &+ 1
    }
    return accumulator
}

/// Starts a thread that reports its `pthread_t` and then runs `body`.
///
/// The new thread clears its signal mask: it inherits the creator's, and the test runner's
/// worker threads (libdispatch) block asynchronous signals, the sampler's included. An app's
/// main thread does not.
private func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: @unchecked Sendable { var thread: pthread_t? }
    let box = Box()
    let ready = DispatchSemaphore(value: 0)
    let thread = Thread {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        box.thread = pthread_self()
        ready.signal()
        body()
    }
    thread.start()
    ready.wait()
    return box.thread!
}

/// Runs `body` with a thread that spins in `runtimeTestKnownSpin` (already inside it), then
/// stops the thread and waits for it to end.
private func withSpinningThread<Result>(_ body: (pthread_t) throws -> Result) rethrows -> Result {
    let flag = SpinFlag()
    let done = DispatchSemaphore(value: 0)
    let target = startThread {
        _ = runtimeTestKnownSpin(flag)
        done.signal()
    }
    defer { flag.set(); done.wait() }
    flag.entered.wait()
    return try body(target)
}

@Suite("Signal thread sampler", .serialized)
struct SignalThreadSamplerTests {
    @Test("samples another thread and finds the function it is running in the symbolicated stack")
    func samplesKnownFunction() throws {
        try withSpinningThread { target in
            let sampler = try SignalThreadSampler(thread: target, maxFrames: 128, timeoutMs: 500)
            var stacks: [CapturedStack] = []
            for _ in 0..<20 {
                if case .success(let sample) = sampler.sample() { stacks.append(sample) }
            }
            #expect(stacks.count == 20)
            let images = ELFImageList().images()
            let symbolicated = try LLVMSymbolizer.symbolicate(stacks: stacks.map(\.frames), images: images)
            let hits = symbolicated.filter { frames in
                frames.contains { $0.function?.contains("runtimeTestKnownSpin") == true }
            }.count
            #expect(hits == stacks.count, "every sample of the spinning thread passes through runtimeTestKnownSpin")
            #expect(sampler.counters.completed == 20)
            #expect(sampler.counters.timeouts == 0)
        }
    }

    @Test("times out, without queueing more signals, when the target blocks the signal; recovers when it unblocks")
    func timesOutWhenSignalBlocked() throws {
        // The sampler picks its signal at creation; the target needs that number to block it.
        let blocked = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let unblocked = DispatchSemaphore(value: 0)
        let finish = DispatchSemaphore(value: 0)
        let exited = DispatchSemaphore(value: 0)
        let target = startThread {
            proceed.wait()
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SignalThreadSampler.signalNumber)
            pthread_sigmask(SIG_BLOCK, &set, nil)
            blocked.signal()
            proceed.wait()
            pthread_sigmask(SIG_UNBLOCK, &set, nil)  // the pending signal is handled here
            unblocked.signal()
            finish.wait()
            exited.signal()
        }
        let sampler = try SignalThreadSampler(thread: target, maxFrames: 64, timeoutMs: 40)
        proceed.signal()
        blocked.wait()

        let started = Date()
        #expect(sampler.sample() == .failure(.timeout))
        #expect(sampler.sample() == .failure(.timeout))
        #expect(Date().timeIntervalSince(started) < 1, "each request waits about its timeout, never forever")
        var counters = sampler.counters
        #expect(counters.timeouts == 2)
        #expect(counters.coalesced == 1, "the second request reuses the signal still pending on the target")

        proceed.signal()
        unblocked.wait()
        counters = sampler.counters
        #expect(counters.lateAnswers == 1, "the pending signal is answered late and ignored")
        let recovered = sampler.sample()
        if case .success(let sample) = recovered {
            #expect(!sample.frames.isEmpty)
        } else {
            Issue.record("sampling did not recover after the target unblocked the signal: \(recovered)")
        }
        finish.signal()
        exited.wait()
    }

    @Test("one sample of a busy thread costs tens of microseconds, not milliseconds")
    func latencyIsBounded() throws {
        try withSpinningThread { target in
            let sampler = try SignalThreadSampler(thread: target, maxFrames: 128, timeoutMs: 100)
            var latencies: [UInt64] = []
            for _ in 0..<200 {
                if case .success(let sample) = sampler.sample() { latencies.append(sample.latencyNanoseconds) }
            }
            latencies.sort()
            try #require(latencies.count == 200)
            // The benchmark checks the 20 µs goal on a quiet machine; here only the order of
            // magnitude is pinned, because the test machine is shared.
            #expect(latencies[latencies.count / 2] < 1_000_000)
        }
    }

    @Test("a sampler made on a thread that inherited a blocked signal mask unblocks its signal there")
    func unblocksInheritedMask() throws {
        final class Box: @unchecked Sendable { var sampler: SignalThreadSampler? }
        let box = Box()
        let flag = SpinFlag()
        let ready = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_SETMASK, &all, nil)
            box.sampler = try? SignalThreadSampler.forCurrentThread(maxFrames: 64, timeoutMs: 500)
            ready.signal()
            _ = runtimeTestKnownSpin(flag)
            done.signal()
        }
        thread.start()
        ready.wait()
        defer { flag.set(); done.wait() }
        let sampler = try #require(box.sampler)
        if case .failure(let failure) = sampler.sample() {
            Issue.record("the thread did not answer: \(failure)")
        }
    }

    @Test("refuses to sample the calling thread instead of deadlocking")
    func refusesSelfSampling() throws {
        let sampler = try SignalThreadSampler.forCurrentThread(timeoutMs: 10)
        #expect(sampler.sample() == .failure(.unavailable("the sampler rejected the request")))
    }
}
#endif
