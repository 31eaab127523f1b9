import Foundation
import VigilCore
import VigilRuntime

/// Picks the platform's adapter behind each VigilRuntime protocol.
enum PlatformAdapters {
    static func imageSource() -> any LoadedImageSource {
        #if os(Linux)
        return ELFImageList()
        #else
        return DyldImageList()
        #endif
    }

    static func processFacts() -> any ProcessFactsSource {
        #if os(Linux)
        return ProcFSProcessFacts()
        #else
        return MachProcessFacts()
        #endif
    }

    static func networkPath(queue: DispatchQueue) -> any NetworkPathSource {
        #if os(Linux)
        return SysfsNetworkPath()
        #else
        return PathMonitorNetworkPath(queue: queue)
        #endif
    }

    /// A sampler of the calling thread; call on the main thread. The error text says why
    /// sampling is unavailable (hang detection then runs without stacks).
    static func samplerForCurrentThread(maxFrames: Int, timeoutMs: Double) -> Result<any ThreadSampler, SamplerUnavailable> {
        #if os(Linux)
        do {
            return .success(try SignalThreadSampler.forCurrentThread(maxFrames: maxFrames, timeoutMs: timeoutMs))
        } catch {
            return .failure(SamplerUnavailable(reason: error.description))
        }
        #else
        return .success(MachThreadSampler.forCurrentThread(maxFrames: maxFrames))
        #endif
    }

    /// The display link the SDK creates itself when the app passes none: `CADisplayLink` on
    /// iOS; nothing elsewhere (Linux has no display).
    static func defaultFrameSource() -> (any FrameTimingSource)? {
        #if canImport(UIKit) && !os(watchOS)
        return DisplayLinkFrameSource()
        #else
        return nil
        #endif
    }

    struct SamplerUnavailable: Error {
        var reason: String
    }
}
